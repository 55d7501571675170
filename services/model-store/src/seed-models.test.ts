import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createEngine, type Engine } from "@twinport/shared";
import { EXAMPLE_MODEL_TEXT, exampleModel } from "@twinport/shared/test-support";
import { type RunningServer, startRedis } from "../../../tests/test-support/servers.ts";
import { createRedisRepository, type RedisRepository } from "./redis/redis-repository.ts";
import { seedModels } from "./seed-models.ts";

// The seed over a real Redis: loaded once, finished after a replica died half-way, never written
// over live data.
const model = exampleModel();
const files = [{ file: "example-env.json", text: EXAMPLE_MODEL_TEXT }];
const total = {
  shells: model.assetAdministrationShells.length,
  submodels: model.submodels.length,
  conceptDescriptions: model.conceptDescriptions.length,
};

describe("seedModels", () => {
  let server: RunningServer;
  let n = 0;
  const opened: { repository: RedisRepository; engine: Engine }[] = [];
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    for (const { engine, repository } of opened) {
      await engine.close();
      await repository.close();
    }
    await server.stop();
  });

  /** A fresh store (own key prefix) and the engine a model-store would run on it. */
  async function store(prefix = `seed-${++n}`) {
    const repository = await createRedisRepository({ url: server.url, keyPrefix: prefix });
    const engine = createEngine({ repository, publishEvents: false });
    opened.push({ repository, engine });
    return { repository, engine, prefix };
  }

  async function counts(engine: Engine) {
    const count = async (type: "GetAllAssetAdministrationShells" | "GetAllSubmodels" | "GetAllConceptDescriptions") => {
      const reply = await engine.execute({ type, params: { limit: 1000 } } as never);
      assert.ok(reply.ok, JSON.stringify(reply));
      const value = reply.value as { items: unknown[] } | { rawJson: string };
      return "items" in value ? value.items.length : (JSON.parse(value.rawJson) as { items: unknown[] }).items.length;
    };
    return {
      shells: await count("GetAllAssetAdministrationShells"),
      submodels: await count("GetAllSubmodels"),
      conceptDescriptions: await count("GetAllConceptDescriptions"),
    };
  }

  it("loads an empty store once; a later start keeps the store as it is", async () => {
    const { repository, engine } = await store();
    const first = await seedModels(repository, "replica-a", engine, files, true);
    assert.equal(first.skipped, false);
    assert.deepEqual(
      { shells: first.shells, submodels: first.submodels, conceptDescriptions: first.conceptDescriptions },
      total,
    );
    const deleted = await engine.execute({
      type: "DeleteConceptDescriptionById",
      params: { cdId: model.conceptDescriptions[0]!.id as string },
    } as never);
    assert.ok(deleted.ok, JSON.stringify(deleted));
    const second = await seedModels(repository, "replica-b", engine, files, true);
    assert.equal(second.skipped, true);
    // A deletion made after the seed is live data too: not undone by a restart.
    assert.deepEqual(await counts(engine), { ...total, conceptDescriptions: total.conceptDescriptions - 1 });
  });

  it("finishes a seed that a replica left half-done", async () => {
    const { repository, engine } = await store();
    // What a replica killed mid-seed leaves: the start marker and the first identifiables.
    await repository.redis.set(repository.key("seed:started"), JSON.stringify({ by: "dead-replica" }));
    const partial = { submodels: model.submodels.slice(0, 2) };
    const loaded = await engine.execute({
      type: "ImportEnvironment",
      params: {
        documents: [{ source: "part.json", format: "json", text: JSON.stringify(partial) }],
        mode: "all-or-nothing",
      },
      origin: "load",
    } as never);
    assert.ok(loaded.ok, JSON.stringify(loaded));
    const outcome = await seedModels(repository, "replica-b", engine, files, true);
    assert.equal(outcome.resumed, true);
    assert.equal(outcome.submodels, total.submodels - 2);
    assert.deepEqual(await counts(engine), total);
    assert.equal((await seedModels(repository, "replica-c", engine, files, true)).skipped, true);
  });

  it("loads everything, all-or-nothing, when the replica died before its first write", async () => {
    const { repository, engine } = await store();
    await repository.redis.set(repository.key("seed:started"), JSON.stringify({ by: "dead-replica" }));
    const outcome = await seedModels(repository, "replica-b", engine, files, true);
    assert.equal(outcome.resumed, false);
    assert.deepEqual(await counts(engine), total);
  });

  it("keeps a store filled another way (no markers) as it is", async () => {
    const { repository, engine } = await store();
    const loaded = await engine.execute({
      type: "ImportEnvironment",
      params: {
        documents: [
          { source: "other.json", format: "json", text: JSON.stringify({ submodels: model.submodels.slice(0, 1) }) },
        ],
        mode: "all-or-nothing",
      },
      origin: "load",
    } as never);
    assert.ok(loaded.ok, JSON.stringify(loaded));
    const outcome = await seedModels(repository, "replica-a", engine, files, true);
    assert.equal(outcome.skipped, true);
    assert.deepEqual(await counts(engine), { shells: 0, submodels: 1, conceptDescriptions: 0 });
  });
});
