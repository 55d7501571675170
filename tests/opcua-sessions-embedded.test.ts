// OPC UA client sessions at once (the endpoint's maxSessions, ours): node-opcua's default of 10
// turned an eleventh client away; ours serves 100 by default and refuses the one past a configured bound.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { connectOpcua, type OpcuaTestClient } from "./test-support/opcua-client.ts";
import { freePort } from "./test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "./test-support/system.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(extra: Record<string, unknown>): Promise<{ twinport: TwinportProcess; url: string; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-opcua-sessions-"));
  dirs.push(cwd);
  const endpoint = { "@class": "endpoint.opcua.OpcUaEndpoint", tcpPort: await freePort(), host: "127.0.0.1" };
  writeFileSync(
    join(cwd, "config.json"),
    JSON.stringify({ core: { managementPort: -1 }, endpoints: [{ ...endpoint, secondsTillShutdown: 0, ...extra }] }),
  );
  const twinport = await startTwinport({ cwd, args: ["-c", "config.json"] });
  return { twinport, url: (twinport.details.opcua as string[])[0]!, cwd };
}

test("embedded: twelve clients hold sessions at once by default (node-opcua alone takes ten)", async () => {
  const { twinport, url, cwd } = await start({});
  const clients: OpcuaTestClient[] = [];
  try {
    for (let i = 0; i < 12; i++) clients.push(await connectOpcua(url, cwd));
    assert.equal(clients.length, 12);
  } finally {
    for (const client of clients) await client.close();
    await twinport.stop();
  }
});

test("embedded: with maxSessions 2 the third client is refused, and served once one leaves", async () => {
  const { twinport, url, cwd } = await start({ maxSessions: 2 });
  const clients: OpcuaTestClient[] = [];
  try {
    clients.push(await connectOpcua(url, cwd), await connectOpcua(url, cwd));
    await assert.rejects(connectOpcua(url, cwd));
    await clients.shift()!.close();
    clients.push(await connectOpcua(url, cwd));
  } finally {
    for (const client of clients) await client.close();
    await twinport.stop();
  }
});
