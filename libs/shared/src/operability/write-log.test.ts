import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import {
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createMemoryRepository,
} from "../engine/index.ts";
import { createLogger } from "./logger.ts";
import { meteredCommandHandler } from "./metered-command-handler.ts";
import { createProcessMetrics } from "./process-metrics.ts";

const SUBMODEL = "urn:test:write-log";

async function system() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    role: "test",
    destination: {
      write: (text: string) =>
        lines.push(
          ...text
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l)),
        ),
    },
  });
  const engine = createEngine({ repository: createMemoryRepository(), bus: createInProcessEventBus() });
  const store = createDirectStoreClient(meteredCommandHandler(engine, createProcessMetrics("test"), logger));
  const loaded = await store.execute({
    type: "PostSubmodel",
    params: {
      body: JSON.stringify({
        modelType: "Submodel",
        id: SUBMODEL,
        submodelElements: ["A", "B", "C"].map((idShort) => ({
          modelType: "Property",
          idShort,
          valueType: "xs:int",
          value: "0",
        })),
      }),
    },
  });
  assert.ok(loaded.ok, JSON.stringify(loaded));
  await nextTurn();
  lines.length = 0;
  const patch = (idShortPath: string, body: string, correlationId: string) =>
    store.execute({
      type: "PatchSubmodelElementValueByPath",
      params: { submodelId: SUBMODEL, idShortPath, body },
      origin: "http",
      correlationId,
    });
  return { lines, patch, store };
}

test("the writes answered in one event-loop turn are logged as one line naming each correlation id", async () => {
  const { lines, patch } = await system();
  const replies = await Promise.all([patch("A", "1", "id-a"), patch("B", "2", "id-b"), patch("C", "x", "id-c")]);
  assert.deepEqual(
    replies.map((r) => r.ok),
    [true, true, false],
  );
  await nextTurn();
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const line = lines[0]!;
  assert.equal(line.msg, "writes");
  assert.equal(line.level, 30);
  assert.equal(line.count, 3);
  // In the order they were answered (the refused one needs no commit): sorted here by id.
  const writes = (line.writes as Record<string, unknown>[]).sort((a, b) =>
    String(a.correlationId).localeCompare(String(b.correlationId)),
  );
  assert.deepEqual(
    writes.map((w) => [w.correlationId, w.command, w.origin]),
    [
      ["id-a", "PatchSubmodelElementValueByPath", "http"],
      ["id-b", "PatchSubmodelElementValueByPath", "http"],
      ["id-c", "PatchSubmodelElementValueByPath", "http"],
    ],
  );
  assert.equal(writes[0]!.revision, (replies[0] as { revision: number }).revision);
  assert.equal(writes[2]!.code, "bad-request");
  assert.equal(typeof writes[1]!.ms, "number");
});

test("a turn with one write logs the single-write line", async () => {
  const { lines, patch } = await system();
  const reply = await patch("A", "7", "id-single");
  assert.ok(reply.ok);
  await nextTurn();
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.msg, "write committed");
  assert.equal(lines[0]!.correlationId, "id-single");
  assert.equal(lines[0]!.revision, reply.revision);
});

test("a delete is logged with the revision its event carries", async () => {
  const { lines, store } = await system();
  const deleted = await store.execute({
    type: "DeleteSubmodelElementByPath",
    params: { submodelId: SUBMODEL, idShortPath: "B" },
    origin: "http",
    correlationId: "id-delete",
  });
  assert.ok(deleted.ok, JSON.stringify(deleted));
  await nextTurn();
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.msg, "write committed");
  assert.equal(typeof lines[0]!.revision, "number", JSON.stringify(lines[0]));
  assert.equal(lines[0]!.revision, deleted.seq);
});
