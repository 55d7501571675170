import assert from "node:assert/strict";
import { it } from "node:test";
import type { NatsConnection } from "@nats-io/nats-core";
import { ChunkAssembler, chunkBytesFor, chunkCount, MAX_CHUNK_BYTES, splitIntoChunks } from "./chunking.ts";

function bytes(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + 7) % 256);
}

function roundTrip(data: Uint8Array, chunkBytes: number): Uint8Array | undefined {
  const chunks = splitIntoChunks(data, chunkBytes);
  assert.equal(chunks.length, chunkCount(data.length, chunkBytes));
  const assembler = new ChunkAssembler();
  let whole: Uint8Array | undefined;
  chunks.forEach((chunk, i) => {
    assert.equal(whole, undefined, "nothing before the last chunk");
    whole = assembler.add(`${i}/${chunks.length}`, chunk);
  });
  return whole;
}

it("splits and reassembles bodies of any length", () => {
  for (const length of [0, 1, 999, 1000, 1001, 5 * 1000 + 3]) {
    const data = bytes(length);
    assert.deepEqual(roundTrip(data, 1000), data, `length ${length}`);
  }
});

it("never makes a chunk larger than asked", () => {
  const chunks = splitIntoChunks(bytes(2500), 1000);
  assert.deepEqual(
    chunks.map((c) => c.length),
    [1000, 1000, 500],
  );
});

it("refuses chunks out of order, twice, with a changed count or a malformed header", () => {
  const chunk = bytes(10);
  assert.throws(() => new ChunkAssembler().add("1/3", chunk), /chunk 1 of 3 arrived when 0 was expected/);
  const duplicate = new ChunkAssembler();
  duplicate.add("0/3", chunk);
  assert.throws(() => duplicate.add("0/3", chunk), /arrived when 1 was expected/);
  const changed = new ChunkAssembler();
  changed.add("0/3", chunk);
  assert.throws(() => changed.add("1/4", chunk), /count changed/);
  assert.throws(() => new ChunkAssembler().add("x", chunk), /malformed/);
  assert.throws(() => new ChunkAssembler().add("0/0", chunk), /implausible/);
  assert.throws(() => new ChunkAssembler().add("0/999999", chunk), /implausible/);
});

it("keeps chunks below half of the server's max_payload", () => {
  const withMaxPayload = (max_payload: number) => ({ info: { max_payload } }) as unknown as NatsConnection;
  assert.equal(chunkBytesFor(withMaxPayload(1024 * 1024)), MAX_CHUNK_BYTES);
  assert.equal(chunkBytesFor(withMaxPayload(64 * 1024 * 1024)), MAX_CHUNK_BYTES);
  assert.equal(chunkBytesFor(withMaxPayload(256 * 1024)), 128 * 1024);
});
