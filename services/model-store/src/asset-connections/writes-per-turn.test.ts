import assert from "node:assert/strict";
import { Duplex } from "node:stream";
import { test } from "node:test";
import { writesPerTurn } from "./writes-per-turn.ts";

/**
 * A duplex that records each write reaching its "socket" (`_write` / `_writev` calls), answering
 * every received chunk the way mqtt.js answers QoS 1 PUBLISHes: one packet per message, each written
 * with mqtt-packet's cork-then-uncork-on-next-tick.
 */
function answeringStream(answersPerChunk: number) {
  const socketWrites: number[] = [];
  const stream = new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      socketWrites.push(1);
      done();
    },
    writev(chunks, done) {
      socketWrites.push(chunks.length);
      done();
    },
  });
  return { stream, socketWrites, answer: () => answer(stream, answersPerChunk) };
}

function answer(stream: Duplex, count: number): void {
  let remaining = count;
  const next = () => {
    stream.cork();
    stream.write(Buffer.from([0x40, 0x02, 0x00, remaining]));
    process.nextTick(() => stream.uncork());
    // mqtt.js handles each parsed packet in its own tick.
    if (--remaining > 0) process.nextTick(next);
  };
  next();
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test("the answers to one received chunk leave in one socket write", async () => {
  const { stream, socketWrites, answer } = answeringStream(20);
  writesPerTurn(stream);
  stream.on("data", answer);
  stream.push(Buffer.from("20 PUBLISHes"));
  await turn();
  await turn();
  assert.deepEqual(socketWrites, [20]);
  assert.equal(stream.writableCorked, 0, "nothing stays corked after the turn");
});

test("without it, each answer is its own socket write (what the helper exists for)", async () => {
  const { stream, socketWrites, answer } = answeringStream(20);
  stream.on("data", answer);
  stream.push(Buffer.from("20 PUBLISHes"));
  await turn();
  await turn();
  assert.equal(socketWrites.length, 20);
});

test("chunks of later turns are answered in their own turn: nothing waits longer than its turn", async () => {
  const { stream, socketWrites, answer } = answeringStream(3);
  writesPerTurn(stream);
  stream.on("data", answer);
  stream.push(Buffer.from("first"));
  await turn();
  await turn();
  assert.deepEqual(socketWrites, [3]);
  stream.push(Buffer.from("second"));
  await turn();
  await turn();
  assert.deepEqual(socketWrites, [3, 3]);
  assert.equal(stream.writableCorked, 0);
});

test("a write made outside any received data is not held", async () => {
  const { stream, socketWrites } = answeringStream(0);
  writesPerTurn(stream);
  stream.resume();
  stream.write(Buffer.from([0xc0, 0x00]));
  assert.deepEqual(socketWrites, [1], "written at once");
});
