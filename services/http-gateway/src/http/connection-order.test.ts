import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { MAX_PARSED_WAITING, MAX_WAITING_PER_CONNECTION, servedInConnectionOrder } from "./connection-order.ts";

// A real server whose /hold answer never ends (as an /events stream), /slow answers after 50 ms and
// /count answers at once, counting the requests it served.
let server: Server;
let port: number;
let served: string[] = [];

before(async () => {
  server = createServer(
    servedInConnectionOrder((incoming, outgoing) => {
      served.push(incoming.url!);
      if (incoming.url === "/hold") outgoing.writeHead(200).write("holding");
      else if (incoming.url === "/slow") setTimeout(() => outgoing.end("slow"), 50);
      else outgoing.end(incoming.url);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

async function opened(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, received: () => text, closed };
}

test("a pipelined request is served once the answer before it has ended, in order", async () => {
  served = [];
  const { socket, received, closed } = await opened();
  socket.write(get("/slow") + get("/a") + get("/slow") + get("/b"));
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.deepEqual(served, ["/slow"], "nothing behind the unfinished answer has started");
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(served, ["/slow", "/a", "/slow", "/b"]);
  assert.deepEqual(received().match(/\r\n\r\n[^H]*/g)?.length, 4);
  socket.destroy();
  await closed;
});

test("requests waiting behind an answer that never ends are never served once the connection goes", async () => {
  served = [];
  const { socket, closed } = await opened();
  socket.write(get("/hold") + get("/count") + get("/count"));
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  await closed;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(served, ["/hold"]);
});

test("past the hard bound, a request pipelined behind an unfinished answer is answered 503 in its place, unserved, and the connection then closes", async () => {
  served = [];
  const { socket, received, closed } = await opened();
  const extra = 10;
  socket.write(get("/slow") + get("/count").repeat(MAX_PARSED_WAITING + extra));
  const outcome = await Promise.race([
    closed.then(() => "closed"),
    new Promise((resolve) => setTimeout(() => resolve("open"), 5000)),
  ]);
  assert.equal(outcome, "closed");
  assert.equal(served.length, 1 + MAX_PARSED_WAITING, "the first ones are served, the rest not");
  const statuses = [...received().matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
  assert.deepEqual(statuses.slice(0, 1 + MAX_PARSED_WAITING), Array(1 + MAX_PARSED_WAITING).fill("200"));
  assert.equal(statuses[1 + MAX_PARSED_WAITING], "503", "then the refusal, after every answer before it");
});

test("a burst of more requests than may wait, behind a slow answer, is served in full and in order (the connection was closed at the 33rd)", async () => {
  served = [];
  const { socket, received, closed } = await opened();
  const count = 3 * MAX_WAITING_PER_CONNECTION;
  const paths = Array.from({ length: count }, (_, i) => `/n${i}`);
  socket.write(get("/slow") + paths.map(get).join(""));
  const deadline = Date.now() + 5_000;
  while (served.length < count + 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(served, ["/slow", ...paths]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(received().match(/HTTP\/1\.1 200/g)?.length, count + 1, "every answer reached the client");
  assert.equal(socket.destroyed, false);
  // The connection is read again: one more request is served on it.
  socket.write(get("/after"));
  const until = Date.now() + 2_000;
  while (!served.includes("/after") && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(served.at(-1), "/after");
  socket.destroy();
  await closed;
});
