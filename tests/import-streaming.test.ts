import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createEngine, createMemoryRepository, type Engine, type ImportPhase, type Repository } from "@twinport/shared";
import { createRedisRepository, type RedisRepository } from "../services/model-store/src/redis/redis-repository.ts";
import { writeSubmodelsModelFile } from "./test-support/model-file-writer.ts";
import { type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { startTwinport } from "./test-support/system.ts";

// Start-up models are read in chunks, an identifiable at a time, checked in a first pass and
// committed in batches in a second (docs/adr/0037): on the memory store (embedded mode) and on
// Redis (the model-store), the memory the import itself holds does not grow with the file, and a
// broken identifiable deep in the file still leaves the store untouched.

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

const SUBMODELS = 1_000;
const PROPERTIES = 100;

describe("streamed import of start-up models", () => {
  let redis: RunningServer;
  let dir: string;
  let modelFile: string;
  /** What the whole model costs as parsed JSON: the least a whole-file reader holds while it writes. */
  let wholeModelBytes: number;
  const closing: (() => Promise<void>)[] = [];

  before(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), "twinport-import-streaming-"));
    modelFile = join(dir, "model.json");
    writeSubmodelsModelFile(modelFile, SUBMODELS, PROPERTIES);
    const baseline = liveHeap();
    const whole = JSON.parse(readFileSync(modelFile, "utf8")) as { submodels: unknown[] };
    wholeModelBytes = liveHeap() - baseline;
    assert.equal(whole.submodels.length, SUBMODELS);
  });
  after(async () => {
    for (const close of closing.reverse()) await close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  let prefix = 0;
  async function storeOf(kind: "memory" | "redis"): Promise<Repository> {
    if (kind === "memory") return createMemoryRepository();
    const repository: RedisRepository = await createRedisRepository({ url: redis.url, keyPrefix: `st${++prefix}` });
    closing.push(() => repository.close());
    return repository;
  }

  /** An engine whose import progress samples the live heap (after a full GC) every `every` identifiables. */
  function engineOn(repository: Repository, every: number) {
    const peaks: Record<ImportPhase, number> = { reading: 0, writing: 0 };
    const counts: Record<ImportPhase, number> = { reading: 0, writing: 0 };
    const engine: Engine = createEngine({
      repository,
      publishEvents: false,
      importProgress: (done, _total, phase) => {
        counts[phase] = done;
        if (done % every === 0) peaks[phase] = Math.max(peaks[phase], liveHeap());
      },
    });
    closing.push(() => engine.close());
    return { engine, peaks, counts };
  }

  for (const kind of ["memory", "redis"] as const) {
    it(`${kind}: a ${SUBMODELS * PROPERTIES}-element file loads holding at most half of it as parsed`, async () => {
      const repository = await storeOf(kind);
      const { engine, peaks, counts } = engineOn(repository, 250);
      const baseline = liveHeap();
      const outcome = await engine.importModelFiles({
        files: [{ source: "model.json", format: "json", path: modelFile }],
        mode: "all-or-nothing",
        validate: true,
        onlyIfEmpty: true,
        origin: "load",
      });
      assert.equal(outcome.submodels, SUBMODELS);
      assert.equal(outcome.elements, SUBMODELS * PROPERTIES);
      assert.equal(await repository.countIdentifiables("submodel"), SUBMODELS);
      // Every identifiable was reported while it was read and checked, then while it was written.
      assert.deepEqual(counts, { reading: SUBMODELS, writing: SUBMODELS });
      // A whole-file reader holds at least the parsed model, and its canonical copy beside it.
      const bound = wholeModelBytes / 2;
      const reading = peaks.reading - baseline;
      assert.ok(
        reading < bound,
        `reading held ${mb(reading)} MB; the whole model is ${mb(wholeModelBytes)} MB, the bound ${mb(bound)} MB`,
      );
      // On Redis the store is elsewhere: writing holds no more than reading. In memory the store
      // itself grows, so only reading is measured there.
      if (kind === "redis") {
        const writing = peaks.writing - baseline;
        assert.ok(writing < bound, `writing held ${mb(writing)} MB; the bound is ${mb(bound)} MB`);
      }
    });

    it(`${kind}: an invalid identifiable deep in the file fails the load by name, nothing is written`, async () => {
      const broken = join(dir, `broken-${kind}.json`);
      const text = readFileSync(modelFile, "utf8");
      // Submodel 700 of 1,000 gets a Property whose value is no xs:int.
      const marker = `"id":"urn:bench:big:700"`;
      const at = text.indexOf(marker);
      assert.ok(at > 0);
      const valueAt = text.indexOf(`"value":"0"`, at);
      writeFileSync(broken, `${text.slice(0, valueAt)}"value":"zero"${text.slice(valueAt + `"value":"0"`.length)}`);
      const repository = await storeOf(kind);
      const { engine } = engineOn(repository, 1_000_000);
      await assert.rejects(
        engine.importModelFiles({
          files: [{ source: "broken.json", format: "json", path: broken }],
          mode: "all-or-nothing",
          validate: true,
          onlyIfEmpty: true,
          origin: "load",
        }),
        (error: Error) => {
          assert.match(error.message, /^broken\.json, submodels\[700\] \('urn:bench:big:700'\): /);
          return true;
        },
      );
      assert.equal(await repository.countIdentifiables("submodel"), 0, "nothing half-applied");
      assert.equal(await repository.currentSeq(), 0);
    });
  }

  it("our own AASX export of the model (it compresses 121×, past the zip-bomb ratio) imports with the default limits", async () => {
    const source = engineOn(createMemoryRepository(), 1_000_000).engine;
    await source.importModelFiles({
      files: [{ source: "model.json", format: "json", path: modelFile }],
      mode: "all-or-nothing",
      validate: false,
      origin: "load",
    });
    const stream = await source.stream({ type: "GenerateSerializationByIds", params: { format: "aasx" } } as never);
    assert.ok(stream.ok, JSON.stringify(stream));
    const packageFile = join(dir, "export.aasx");
    const parts: Uint8Array[] = [];
    for await (const chunk of stream.value.chunks) parts.push(chunk);
    writeFileSync(packageFile, Buffer.concat(parts));

    const repository = await storeOf("redis");
    const { engine } = engineOn(repository, 1_000_000);
    const outcome = await engine.importModelFiles({
      files: [{ source: "export.aasx", format: "aasx", path: packageFile }],
      mode: "all-or-nothing",
      validate: true,
      onlyIfEmpty: true,
      origin: "load",
    });
    assert.equal(outcome.submodels, SUBMODELS);
    assert.equal(outcome.elements, SUBMODELS * PROPERTIES);
    const read = async (id: string, engineToAsk: Engine) => {
      const reply = await engineToAsk.execute({ type: "GetSubmodelById", params: { submodelId: id } } as never);
      assert.ok(reply.ok, JSON.stringify(reply));
      const value = reply.value as { rawJson?: string };
      return value.rawJson !== undefined ? JSON.parse(value.rawJson) : value;
    };
    for (const id of ["urn:bench:big:0", "urn:bench:big:999"])
      assert.deepEqual(await read(id, engine), await read(id, source), id);
  });

  it("a model-store killed mid-seed: the next one loads what is missing, every identifiable once", async () => {
    const nats = await startNats();
    closing.push(() => nats.stop());
    const keyPrefix = "killed";
    const env = {
      TWINPORT_PERSISTENCE_URL: redis.url,
      TWINPORT_PERSISTENCE_KEYPREFIX: keyPrefix,
      TWINPORT_MESSAGEBUS_URL: nats.url,
    };
    const watch = await createRedisRepository({ url: redis.url, keyPrefix });
    closing.push(() => watch.close());
    let child: ChildProcess | undefined;
    const first = startTwinport({
      role: "model-store",
      cwd: mkdtempSync(join(dir, "store-a-")),
      args: ["-m", modelFile],
      env,
      timeoutMs: 600_000,
      onSpawn: (spawned) => {
        child = spawned;
      },
    });
    first.catch(() => undefined);
    // Killed (SIGKILL: no clean-up) once some batches are in and others are not.
    let written = 0;
    for (let tries = 0; tries < 30_000 && (written === 0 || written >= SUBMODELS); tries++) {
      written = await watch.countIdentifiables("submodel");
      if (written === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(written > 0 && written < SUBMODELS, `killed after ${written} of ${SUBMODELS} submodels`);
    child!.kill("SIGKILL");
    await assert.rejects(first, /exited/);
    const partial = await watch.countIdentifiables("submodel");
    assert.ok(partial < SUBMODELS, `the kill left ${partial} of ${SUBMODELS}`);

    const second = await startTwinport({
      role: "model-store",
      cwd: mkdtempSync(join(dir, "store-b-")),
      args: ["-m", modelFile],
      env,
      timeoutMs: 600_000,
    });
    closing.push(async () => void (await second.stop()));
    assert.equal(await watch.countIdentifiables("submodel"), SUBMODELS);
    const model = second.details.model as { submodels: number };
    assert.equal(model.submodels, SUBMODELS - partial, "the second loaded exactly what was missing");
    const log =
      readFileSync(join(second.logFile, "..", "model-store.out"), "utf8") + readFileSync(second.logFile, "utf8");
    assert.match(log, /an earlier model-store died while loading the model files/);
  });
});

function mb(bytes: number): string {
  return (bytes / 1024 ** 2).toFixed(1);
}
