import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { cutStalledConnections } from "./stalled-connections.ts";

/** Real sockets on loopback; short limits stand in for the minute the endpoint uses. */
const BIG = Buffer.alloc(32 * 1024 * 1024, 120);
let server: Server;
let port: number;
let stop: () => void;
/** The server's side of each connection, by the client's port: a paused client never sees the cut. */
const serverSide = new Map<number, Socket>();
before(async () => {
  server = createServer((request, response) => {
    if (request.url === "/slow") {
      // Computing for longer than the stall limit: not a stall, nothing waits for the client.
      setTimeout(() => response.end("done"), 1200);
      return;
    }
    if (request.url === "/big") {
      response.setHeader("Content-Length", BIG.length);
      response.end(BIG);
      return;
    }
    response.end("ok");
  });
  const stalls = cutStalledConnections(server, { firstRequestMs: 400, writeStallMs: 500, sweepMs: 100 });
  server.on("connection", (socket: Socket) => {
    serverSide.set(socket.remotePort!, socket);
    stalls.watch(socket);
  });
  stop = stalls.stop;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A client socket; `port` is its local port (a closed socket no longer tells it). */
const open = () =>
  new Promise<Socket & { port: number }>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(Object.assign(socket, { port: socket.localPort! })));
    socket.once("error", reject);
  });
const until = async (done: () => boolean, withinMs: number): Promise<boolean> => {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > withinMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
};
/** Whether the server closed its side of the client's connection within the time. */
const closed = (client: { port: number }, withinMs: number) =>
  until(() => serverSide.get(client.port)?.destroyed === true, withinMs);
const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

test("a connection that never sends a request is cut; one that did stays for keep-alive", async () => {
  const silent = await open();
  const asked = await open();
  asked.write(request("/"));
  assert.equal(await closed(silent, 2000), true, "the silent connection was cut");
  assert.equal(serverSide.get(asked.port)?.destroyed, false, "the one that sent a request is still open");
  asked.destroy();
});

test("an answer whose client does not read is cut; a computed one and a read one are not", async () => {
  const stalled = await open();
  stalled.pause(); // never reads: the 32 MB answer fills the socket buffers and waits
  stalled.write(request("/big"));
  const slow = await open();
  let slowAnswer = "";
  slow.on("data", (chunk: Buffer) => (slowAnswer += chunk.toString()));
  slow.write(request("/slow"));
  const reader = await open();
  let read = 0;
  reader.on("data", (chunk: Buffer) => (read += chunk.length));
  reader.write(request("/big"));
  assert.equal(await closed(stalled, 3000), true, "the non-reading client's connection was cut");
  assert.ok(await until(() => slowAnswer.endsWith("done"), 3000), "the answer computed past the stall limit arrived");
  assert.ok(await until(() => read > BIG.length, 3000), "the reading client got the whole answer");
  assert.equal(serverSide.get(reader.port)?.destroyed, false);
  slow.destroy();
  reader.destroy();
});
