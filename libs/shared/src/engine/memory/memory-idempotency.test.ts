import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryIdempotency } from "./memory-idempotency.ts";

test("a record keeps its event draft only until the reply is stored (the draft rebuilds a lost reply)", async () => {
  const idempotency = createMemoryIdempotency();
  idempotency.claim({ key: "k", fingerprint: "f", ttlMs: 60_000 }, 7, '{"kind":"element.value-changed"}');
  assert.equal((await idempotency.getIdempotencyRecord("k"))?.event, '{"kind":"element.value-changed"}');
  await idempotency.putIdempotencyReply("k", "f", '{"ok":true}', 60_000);
  const record = await idempotency.getIdempotencyRecord("k");
  assert.deepEqual(
    { ...record, committedAt: undefined },
    { fingerprint: "f", seq: 7, committedAt: undefined, reply: '{"ok":true}' },
  );
  // Another fingerprint never replaces it.
  await idempotency.putIdempotencyReply("k", "other", '{"ok":false}', 60_000);
  assert.equal((await idempotency.getIdempotencyRecord("k"))?.reply, '{"ok":true}');
});
