/**
 * Roles whose security sections disagree (one role's configuration forgotten, or a rollout half
 * done) must fail closed, not open:
 * - a secured http-gateway in front of a model-store without the section: the gateway stamps every
 *   command with the caller's principal, but only the engine decides, and a store without rules
 *   would run everything, anonymous writes included, while the gateway looks secured;
 * - an opcua-gateway without the section in front of a secured model-store: its mirror is built
 *   with SYSTEM reads and would show every value to every session.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { createHttpClient } from "./test-support/http-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, type StartOptions, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const SECURITY = {
  rules: [
    {
      subjects: [{ anonymous: true }],
      rights: ["READ"],
      objects: [{ submodels: "https://example.org/submodels/technical-data-*" }],
    },
  ],
};

/** The model-store's warn lines about commands it refused (command-refusals.ts), from its log file. */
function refusalLines(store: TwinportProcess): { reason: string; commands: Record<string, number> }[] {
  return readFileSync(store.logFile, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes('"component":"command-responder"'))
    .map((line) => JSON.parse(line));
}

/** Refusals are gathered for a second before their line is written (ADR 0017). */
const REFUSALS_LOGGED_MS = 1_500;

let redis: RunningServer;
let nats: RunningServer;
let processes: TwinportProcess[] = [];
const dirs: string[] = [];

/** A role with `config` (if any) as its configuration file, on this file's Redis and NATS. */
async function role(
  name: NonNullable<StartOptions["role"]>,
  config: Record<string, unknown> | undefined,
  args: string[] = [],
): Promise<TwinportProcess> {
  const cwd = mkdtempSync(join(tmpdir(), `twinport-mismatch-${name}-`));
  dirs.push(cwd);
  if (config) writeFileSync(join(cwd, "config.json"), JSON.stringify(config));
  const env = {
    TWINPORT_PERSISTENCE_URL: redis.url,
    TWINPORT_MESSAGEBUS_URL: nats.url,
    TWINPORT_CORE_MANAGEMENTPORT: "0",
  };
  const started = await startTwinport({
    role: name,
    cwd,
    args: [...(config ? ["-c", "config.json"] : []), ...args],
    env,
    timeoutMs: 60_000,
  });
  processes.push(started);
  return started;
}

before(async () => {
  [redis, nats] = await Promise.all([startRedis(), startNats()]);
});

afterEach(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  processes = [];
});

after(async () => {
  await redis?.stop();
  await nats?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("a model-store without security refuses a secured gateway's commands (503) instead of running them unchecked, and says so in its log", async () => {
  const store = await role("model-store", undefined, ["-m", EXAMPLE_MODEL]);
  const port = await freePort();
  await role("http-gateway", {
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
    security: SECURITY,
  });
  const http = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  try {
    const write = await http.request("POST", "/submodels", {
      body: JSON.stringify({ modelType: "Submodel", id: "urn:mismatch:anonymous-write", idShort: "Sneaked" }),
    });
    assert.equal(write.status, 503, write.text);
    assert.match(write.json().messages[0].text, /no security section/);
    // Reads the rules would grant are refused too: the store cannot tell what they would allow.
    assert.equal((await http.get("/submodels")).status, 503);
    // The operator learns why from the store's log: a real mismatch, warned of.
    await new Promise((resolve) => setTimeout(resolve, REFUSALS_LOGGED_MS));
    const lines = refusalLines(store);
    assert.ok(
      lines.some((line) => /give every role the same security section/.test(line.reason)),
      JSON.stringify(lines),
    );
  } finally {
    http.close();
  }
});

test("an open deployment (no role has a security section) starts clean: the gateways' access-stance probes are not logged as a mismatch", async () => {
  const store = await role("model-store", undefined, ["-m", EXAMPLE_MODEL]);
  // An opcua-gateway asks at start-up, an http-gateway at its first event stream (storeAccessStance).
  const opcuaPort = await freePort();
  await role("opcua-gateway", undefined, [
    "--endpoint",
    "opcua",
    `endpoints[0].tcpPort=${opcuaPort}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].hostname=127.0.0.1",
    "endpoints[0].secondsTillShutdown=0",
  ]);
  const port = await freePort();
  await role("http-gateway", {
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
  });
  const controller = new AbortController();
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/v3.0/events?after=0`, { signal: controller.signal });
    assert.equal(response.status, 200);
  } finally {
    controller.abort();
  }
  await new Promise((resolve) => setTimeout(resolve, REFUSALS_LOGGED_MS));
  assert.deepEqual(refusalLines(store), []);
});

test("an opcua-gateway without security does not serve a mirror of a secured model-store: it stops at start-up and says why", async () => {
  await role("model-store", { security: SECURITY }, ["-m", EXAMPLE_MODEL]);
  const port = await freePort();
  const args = [
    "--endpoint",
    "opcua",
    `endpoints[0].tcpPort=${port}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].hostname=127.0.0.1",
    "endpoints[0].secondsTillShutdown=0",
  ];
  await assert.rejects(
    role("opcua-gateway", undefined, args),
    /exited with .* before ready[\s\S]*enforces access rules, but this opcua-gateway has no security section/,
  );
});

test("an opcua-gateway without security still serves a model-store without security (the open default)", async () => {
  await role("model-store", undefined, ["-m", EXAMPLE_MODEL]);
  const port = await freePort();
  const gateway = await role("opcua-gateway", undefined, [
    "--endpoint",
    "opcua",
    `endpoints[0].tcpPort=${port}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].hostname=127.0.0.1",
    "endpoints[0].secondsTillShutdown=0",
  ]);
  assert.deepEqual(gateway.details.opcua, [`opc.tcp://127.0.0.1:${port}`]);
});

test("an http-gateway without security in front of a secured model-store refuses the event stream (403); REST stays anonymous", async () => {
  await role("model-store", { security: SECURITY }, ["-m", EXAMPLE_MODEL]);
  const port = await freePort();
  await role("http-gateway", {
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
  });
  const http = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  try {
    // It would otherwise replay every event of every submodel, the secured ones included.
    const events = await http.get("/events?after=0");
    assert.equal(events.status, 403, events.text);
    assert.match(events.json().messages[0].text, /no security section/);
    // Requests are anonymous and the store's rules decide, as before.
    const identification = Buffer.from("https://example.org/submodels/identification-1").toString("base64url");
    const technical = Buffer.from("https://example.org/submodels/technical-data-1").toString("base64url");
    assert.equal((await http.get(`/submodels/${identification}`)).status, 403);
    assert.equal((await http.get(`/submodels/${technical}`)).status, 200);
  } finally {
    http.close();
  }
});

test("an http-gateway without security in front of a model-store without security streams events (the open default)", async () => {
  await role("model-store", undefined, ["-m", EXAMPLE_MODEL]);
  const port = await freePort();
  await role("http-gateway", {
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
  });
  const controller = new AbortController();
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/v3.0/events?after=0`, { signal: controller.signal });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  } finally {
    controller.abort();
  }
});

test("an opcua-gateway started before any model-store waits for one (as compose and Kubernetes start them), then serves", async () => {
  const port = await freePort();
  const args = [
    "--endpoint",
    "opcua",
    `endpoints[0].tcpPort=${port}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].hostname=127.0.0.1",
    "endpoints[0].secondsTillShutdown=0",
  ];
  // It exited at once with "no model-store serves GetEvents" before.
  const gateway = role("opcua-gateway", undefined, args);
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  await role("model-store", undefined, ["-m", EXAMPLE_MODEL]);
  const started = await gateway;
  assert.deepEqual(started.details.opcua, [`opc.tcp://127.0.0.1:${port}`]);
});
