/**
 * A secured http-gateway in front of a model-store without a security section (one role's
 * configuration forgotten, or a rollout half done). The gateway authenticates and stamps every
 * command with the caller's principal, but only the engine decides: a store with no rules would run
 * every command, anonymous writes included, while the gateway looks secured (no "OPEN" warning).
 * The store must refuse commands that carry a caller's principal it cannot check (503, fail closed).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { freePort, startNats, startRedis, type RunningServer } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, startTwinport, type TwinportProcess } from "./test-support/system.ts";

let redis: RunningServer;
let nats: RunningServer;
const processes: TwinportProcess[] = [];
const dirs: string[] = [];
let http: HttpClient;

before(async () => {
  [redis, nats] = await Promise.all([startRedis(), startNats()]);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url, TWINPORT_CORE_MANAGEMENTPORT: "0" };
  const storeDir = mkdtempSync(join(tmpdir(), "twinport-mismatch-store-"));
  const gatewayDir = mkdtempSync(join(tmpdir(), "twinport-mismatch-gateway-"));
  dirs.push(storeDir, gatewayDir);
  // The store: no security section.
  processes.push(await startTwinport({ role: "model-store", cwd: storeDir, args: ["-m", EXAMPLE_MODEL], env }));
  const port = await freePort();
  const security = { rules: [{ subjects: [{ anonymous: true }], rights: ["READ"], objects: [{ submodels: "https://example.org/submodels/technical-data-*" }] }] };
  writeFileSync(join(gatewayDir, "config.json"), JSON.stringify({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }], security }));
  processes.push(await startTwinport({ role: "http-gateway", cwd: gatewayDir, args: ["-c", "config.json"], env }));
  http = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
});

after(async () => {
  http?.close();
  await Promise.all(processes.map((p) => p.stop()));
  await redis?.stop();
  await nats?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("a model-store without security refuses a secured gateway's commands (503) instead of running them unchecked", async () => {
  const write = await http.request("POST", "/submodels", { body: JSON.stringify({ modelType: "Submodel", id: "urn:mismatch:anonymous-write", idShort: "Sneaked" }) });
  assert.equal(write.status, 503, write.text);
  assert.match(write.json().messages[0].text, /security section/);
  // Reads the rules would grant are refused too: the store cannot tell what they would allow.
  assert.equal((await http.get("/submodels")).status, 503);
});
