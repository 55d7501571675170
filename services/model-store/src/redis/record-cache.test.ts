import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type Command,
  type CommandResult,
  type CommandType,
  createEngine,
  type Engine,
  type Reply,
} from "@twinport/shared";
import { type RunningServer, startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository, type RedisRepository } from "./redis-repository.ts";

/**
 * Two model-store replicas on one Redis, each planning value writes from its own record cache: a
 * write made by the other replica must never be lost, hidden or answered wrongly here.
 */
describe("record cache across replicas", () => {
  let server: RunningServer;
  const repositories: RedisRepository[] = [];
  let a: Engine;
  let b: Engine;
  const run = <T extends CommandType>(
    engine: Engine,
    type: T,
    params: Command<T>["params"],
  ): Promise<Reply<CommandResult<T>>> => engine.execute({ type, params, origin: "test" } as Command<T>);
  const value = async (engine: Engine, path: string) => {
    const reply = await run(engine, "GetSubmodelElementByPath", { submodelId: "urn:sm", idShortPath: path });
    assert.ok(reply.ok);
    return { value: (reply.value as { value: string }).value, revision: reply.revision! };
  };

  before(async () => {
    server = await startRedis();
    for (let i = 0; i < 2; i++) repositories.push(await createRedisRepository({ url: server.url, keyPrefix: "cache" }));
    [a, b] = repositories.map((repository) => createEngine({ repository, recordCacheSize: 100 }));
    const items = ["a", "b", "c"].map((name) => ({
      modelType: "Property",
      valueType: "xs:string",
      value: name,
      description: [{ language: "en", text: name }],
    }));
    const body = JSON.stringify({
      submodels: [
        {
          modelType: "Submodel",
          id: "urn:sm",
          idShort: "sm",
          submodelElements: [
            ...["p", "q"].map((idShort) => ({ modelType: "Property", idShort, valueType: "xs:int", value: "0" })),
            {
              modelType: "SubmodelElementList",
              idShort: "L",
              typeValueListElement: "Property",
              valueTypeListElement: "xs:string",
              value: items,
            },
          ],
        },
      ],
    });
    assert.ok((await run(a, "LoadEnvironment", { body })).ok);
  });
  after(async () => {
    for (const repository of repositories) await repository.close();
    await server?.stop();
  });

  it("a write by the other replica is built upon, and its ETag is honoured", async () => {
    assert.ok(
      (await run(a, "PatchSubmodelElementValueByPath", { submodelId: "urn:sm", idShortPath: "p", body: "1" })).ok,
    ); // A caches p
    assert.ok(
      (await run(b, "PatchSubmodelElementValueByPath", { submodelId: "urn:sm", idShortPath: "p", body: "2" })).ok,
    );
    const afterB = await value(b, "p");
    // A's cached revision is older than the ETag the client holds: the write must still succeed.
    const patched = await run(a, "PatchSubmodelElementValueByPath", {
      submodelId: "urn:sm",
      idShortPath: "p",
      body: "3",
      preconditions: { ifMatch: [String(afterB.revision)] },
    });
    assert.ok(patched.ok, JSON.stringify(patched));
    assert.deepEqual(await value(b, "p"), { value: "3", revision: patched.revision });
    // And a stale ETag still fails, whoever cached what.
    const stale = await run(b, "PatchSubmodelElementValueByPath", {
      submodelId: "urn:sm",
      idShortPath: "p",
      body: "4",
      preconditions: { ifMatch: [String(afterB.revision)] },
    });
    assert.equal(stale.ok, false);
    assert.equal(!stale.ok && stale.error.code, "precondition-failed");
  });

  it("concurrent writers on both replicas: every write applied once, the last one wins", async () => {
    const writes = Array.from({ length: 40 }, (_, i) =>
      run(i % 2 === 0 ? a : b, "PatchSubmodelElementValueByPath", {
        submodelId: "urn:sm",
        idShortPath: "q",
        body: String(100 + i),
      }),
    );
    const replies = await Promise.all(writes);
    assert.ok(replies.every((r) => r.ok));
    const revisions = replies.map((r) => r.revision!);
    assert.equal(new Set(revisions).size, 40, "each write its own commit");
    const last = replies.reduce((best, r, i) => (r.revision! > replies[best]!.revision! ? i : best), 0);
    assert.equal((await value(a, "q")).value, String(100 + last));
  });

  it("a list item cached here, shifted by the other replica: the write reaches the item now at that index, not the cached one", async () => {
    // The items were loaded in one commit: they share a revision, only their orderKey tells them apart.
    // A plans a write of L[1] (item b) that fails its If-Match: A has now cached item b as L[1].
    const refused = await run(a, "PatchSubmodelElementValueByPath", {
      submodelId: "urn:sm",
      idShortPath: "L[1]",
      body: '"b1"',
      preconditions: { ifMatch: ["999999"] },
    });
    assert.equal(!refused.ok && refused.error.code, "precondition-failed");
    assert.ok((await run(b, "DeleteSubmodelElementByPath", { submodelId: "urn:sm", idShortPath: "L[0]" })).ok);
    assert.ok(
      (await run(a, "PatchSubmodelElementValueByPath", { submodelId: "urn:sm", idShortPath: "L[1]", body: '"c1"' })).ok,
    );
    const list = await run(b, "GetSubmodelElementByPath", { submodelId: "urn:sm", idShortPath: "L" });
    assert.ok(list.ok);
    const shown = (list.value as { value: { value: string; description: { text: string }[] }[] }).value.map((p) => [
      p.description[0]!.text,
      p.value,
    ]);
    assert.deepEqual(shown, [
      ["b", "b"],
      ["c", "c1"],
    ]);
  });

  it("an element deleted by the other replica is not found here", async () => {
    assert.ok(
      (await run(a, "PatchSubmodelElementValueByPath", { submodelId: "urn:sm", idShortPath: "p", body: "7" })).ok,
    );
    assert.ok((await run(b, "DeleteSubmodelElementByPath", { submodelId: "urn:sm", idShortPath: "p" })).ok);
    const reply = await run(a, "PatchSubmodelElementValueByPath", {
      submodelId: "urn:sm",
      idShortPath: "p",
      body: "8",
    });
    assert.equal(!reply.ok && reply.error.code, "not-found");
  });
});
