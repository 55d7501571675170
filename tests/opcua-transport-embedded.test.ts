// Hostile bytes at the OPC UA port, embedded mode, where the OPC UA server shares its process with the
// HTTP endpoint and the in-memory model: a Hello and, in the same TCP write, a chunk header past the
// buffer size the Hello just set killed the whole process (node-opcua's replaced packet assembler
// threw an unhandled "error"; transport/replaced-assembler-guard.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { type OpcuaSystem, startOpcuaSystem } from "./opcua/opcua-system.ts";
import { b64 } from "./test-support/http-client.ts";
import { EXAMPLE_MODEL } from "./test-support/system.ts";

let system: OpcuaSystem;
before(async () => {
  system = await startOpcuaSystem("embedded", { model: JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8")) });
});
after(async () => {
  await system?.stop();
});

/** One write: a Hello asking for 64 KiB buffers, then the header of a chunk larger than the server allows. */
function helloThenOversizedChunk(url: string): Buffer {
  const endpoint = Buffer.from(url, "utf8");
  const body = Buffer.alloc(20 + 4);
  [0, 65536, 65536, 0, 0].forEach((value, i) => body.writeUInt32LE(value, i * 4));
  body.writeInt32LE(endpoint.length, 20);
  const hello = Buffer.concat([Buffer.from("HELF"), Buffer.alloc(4), body, endpoint]);
  hello.writeUInt32LE(hello.length, 4);
  const chunk = Buffer.concat([Buffer.from("OPNF"), Buffer.alloc(4), Buffer.alloc(32, 0xff)]);
  chunk.writeUInt32LE(1_000_000, 4);
  return Buffer.concat([hello, chunk]);
}

function send(url: string, bytes: Buffer): Promise<void> {
  const { hostname, port } = new URL(url.replace(/^opc\.tcp:/, "http:"));
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(bytes));
    socket.on("data", () => undefined);
    socket.on("error", () => resolve());
    socket.on("close", () => resolve());
    setTimeout(() => {
      socket.destroy();
      resolve();
    }, 1_000);
  });
}

test("embedded: a Hello with an oversized chunk behind it in one TCP write leaves the process serving HTTP and OPC UA", async () => {
  const url = system.opcuaUrls[0]!;
  for (let i = 0; i < 3; i++) await send(url, helloThenOversizedChunk(url));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const shells = await system.http.get("/shells");
  assert.equal(shells.status, 200, "the HTTP endpoint (same process) still answers");
  const sm = "https://example.org/submodels/technical-data-1";
  const value = await system.http.get(`/submodels/${b64(sm)}/submodel-elements/MaxRotationSpeed/$value`);
  assert.deepEqual(value.json(), { MaxRotationSpeed: 5000 }, "the in-memory model is still there");
  const read = await system.opcua[0]!.read(`${sm}|MaxRotationSpeed/Value`);
  assert.ok(read.statusCode.isGood(), `the OPC UA client already connected still reads: ${read.statusCode}`);
});
