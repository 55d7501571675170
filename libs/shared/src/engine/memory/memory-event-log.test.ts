import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChangeEvent } from "../../contracts/index.ts";
import { createEngine } from "../create-engine.ts";
import { createInProcessEventBus } from "./in-process-event-bus.ts";
import { createMemoryEventLog, PAYLOAD_WINDOW } from "./memory-event-log.ts";
import { createMemoryRepository } from "./memory-repository.ts";

const event = (seq: number, payload?: unknown): ChangeEvent => ({
  seq,
  revision: seq,
  kind: "element.value-changed",
  id: "sm",
  idShortPath: `P${seq}`,
  time: new Date().toISOString(),
  ...(payload !== undefined ? { payload } : {}),
});

describe("memory event log", () => {
  it("keeps the newest maxEvents events and reads after a seq", () => {
    const log = createMemoryEventLog({ maxEvents: 5, maxAgeMs: 60_000 });
    assert.deepEqual(log.bounds(0), { latest: 0 });
    for (let seq = 1; seq <= 8; seq++) log.append(event(seq));
    assert.deepEqual(
      log.read(0, 100).map((e) => e.seq),
      [4, 5, 6, 7, 8],
    );
    assert.deepEqual(
      log.read(5, 2).map((e) => e.seq),
      [6, 7],
    );
    assert.deepEqual(log.read(8, 10), []);
    assert.deepEqual(log.bounds(8), { oldest: 4, latest: 8 });
  });

  it("drops events older than maxAgeMs", () => {
    let now = 1_000_000;
    const log = createMemoryEventLog({ maxEvents: 100, maxAgeMs: 1000 }, () => now);
    log.append(event(1));
    now += 600;
    log.append(event(2));
    now += 600; // event 1 is 1,200 ms old, event 2 600 ms
    assert.deepEqual(
      log.read(0, 10).map((e) => e.seq),
      [2],
    );
    now += 1000;
    assert.deepEqual(log.read(0, 10), []);
    assert.deepEqual(log.bounds(2), { latest: 2 });
  });

  it("only the newest PAYLOAD_WINDOW events keep their payload", () => {
    const log = createMemoryEventLog({ maxEvents: PAYLOAD_WINDOW + 10, maxAgeMs: 60_000 });
    for (let seq = 1; seq <= PAYLOAD_WINDOW + 5; seq++) log.append(event(seq, { value: seq }));
    const all = log.read(0, PAYLOAD_WINDOW + 10);
    assert.equal(all.length, PAYLOAD_WINDOW + 5);
    assert.deepEqual(
      all.slice(0, 6).map((e) => [e.seq, e.payload, e.payloadOmitted]),
      [...[1, 2, 3, 4, 5].map((seq): unknown[] => [seq, undefined, true]), [6, { value: 6 }, undefined]],
    );
  });
});

describe("GetEvents on a memory store", () => {
  const setValue = (n: number) => ({
    type: "PutSubmodelById" as const,
    params: { submodelId: "urn:sm", body: JSON.stringify({ modelType: "Submodel", id: "urn:sm", idShort: `S${n}` }) },
  });

  it("replays from the in-memory log and says reset when 'after' is trimmed or ahead of the store", async () => {
    const engine = createEngine({
      repository: createMemoryRepository({ eventLog: { maxEvents: 3, maxAgeMs: 60_000 } }),
      bus: createInProcessEventBus(),
      validation: false,
    });
    const created = await engine.execute({
      type: "PostSubmodel",
      params: { body: JSON.stringify({ modelType: "Submodel", id: "urn:sm", idShort: "S0" }) },
    });
    assert.ok(created.ok, JSON.stringify(created));
    for (let n = 1; n <= 4; n++) assert.ok((await engine.execute(setValue(n))).ok);
    const read = async (after: number) => {
      const reply = await engine.execute({ type: "GetEvents", params: { after, limit: 10 } });
      assert.ok(reply.ok);
      return { seqs: reply.value.events.map((e) => e.seq), reset: reply.value.reset };
    };
    assert.deepEqual(await read(2), { seqs: [3, 4, 5], reset: undefined });
    assert.deepEqual(await read(4), { seqs: [5], reset: undefined });
    assert.deepEqual(await read(5), { seqs: [], reset: undefined });
    assert.deepEqual(await read(1), { seqs: [3, 4, 5], reset: { oldest: 3, latest: 5 } });
    assert.deepEqual(await read(9), { seqs: [], reset: { oldest: 3, latest: 5 } });
    await engine.close();
  });
});
