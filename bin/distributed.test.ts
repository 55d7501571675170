import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ChangeEvent, connectNats, createNatsEventBus, encodeBase64Url } from "@twinport/shared";
import { freePort, type RunningServer, startNats, startRedis } from "../tests/test-support/servers.ts";
import { spawnTwinport, type TwinportProcess } from "./test-support/spawn-twinport.ts";

// The three services as real processes on real Redis and NATS, wired only by configuration.
const EXAMPLE_MODEL = new URL("../examples/model.json", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "twinport-distributed-"));
let redis: RunningServer;
let nats: RunningServer;
const processes: TwinportProcess[] = [];

before(async () => {
  [redis, nats] = await Promise.all([startRedis(), startNats()]);
});

after(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all([redis?.stop(), nats?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]): TwinportProcess {
  const started = spawnTwinport(args, {
    cwd: dir,
    env: { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url },
  });
  processes.push(started);
  return started;
}

function getJson(url: string, method = "GET"): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, rejectUnauthorized: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve(text === "" ? res.statusCode : JSON.parse(text)));
    });
    req.on("error", reject);
    req.end();
  });
}

test("model-store, http-gateway and opcua-gateway start from one configuration and stop with exit 0", async () => {
  const [httpPort, opcuaPort] = [await freePort(), await freePort()];
  const modelStore = start(["model-store", "-m", EXAMPLE_MODEL]);
  const httpGateway = start([
    "http-gateway",
    "--endpoint",
    "http",
    `endpoints[0].port=${httpPort}`,
    "endpoints[0].host=127.0.0.1",
  ]);
  const opcuaGateway = start([
    "opcua-gateway",
    "--endpoint",
    "opcua",
    `endpoints[0].tcpPort=${opcuaPort}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].hostname=127.0.0.1",
    "endpoints[0].secondsTillShutdown=0",
  ]);

  assert.deepEqual(await modelStore.ready, {
    redis: redis.url,
    keyPrefix: "tp",
    nats: nats.url,
    model: { files: [EXAMPLE_MODEL], shells: 3, submodels: 6, conceptDescriptions: 2 },
  });
  assert.deepEqual(await httpGateway.ready, { http: [`https://127.0.0.1:${httpPort}/api/v3.0`] });
  assert.deepEqual(await opcuaGateway.ready, { opcua: [`opc.tcp://127.0.0.1:${opcuaPort}`] });

  const shells = await getJson(`https://127.0.0.1:${httpPort}/api/v3.0/shells`);
  assert.equal(shells.result.length, 3);

  // Exactly one line on stdout each: the ready line (node-opcua's chatter goes to stderr).
  for (const p of [modelStore, httpGateway, opcuaGateway])
    assert.equal(p.stdout().trimEnd().split("\n").length, 1, p.stdout());
  assert.deepEqual(await Promise.all([opcuaGateway.stop(), httpGateway.stop(), modelStore.stop()]), [0, 0, 0]);
});

test("a restarted model-store does not load its model over live data", async () => {
  const modelStore = start(["model-store", "-m", EXAMPLE_MODEL]);
  assert.equal((await modelStore.ready).model, "kept (store not empty)");
  assert.match(modelStore.stderr(), /the store already holds data; the model files were not loaded/);
  assert.equal(await modelStore.stop(), 0);
});

test("a model-store whose fileStorage.path cannot be made exits 2 within seconds naming the setting", async () => {
  const started = Date.now();
  writeFileSync(join(dir, "a-file"), "");
  const modelStore = start([
    "model-store",
    "--empty-model",
    `fileStorage={"@class":"filestorage.filesystem.FileStorageFilesystem","path":"${join(dir, "a-file", "files")}"}`,
  ]);
  // A start that hangs is ended here, so the test fails instead of waiting for the test timeout.
  // The bound is generous: in a full run on a fresh machine (CI) the process runs the sources
  // through tsx with a cold cache beside other suites, and once (of many runs) it printed its
  // refusal and took longer than 15 s to be gone; a start that waits for the folder forever still fails.
  const timer = setTimeout(() => modelStore.child.kill("SIGKILL"), 45_000);
  const code = await modelStore.exited;
  clearTimeout(timer);
  assert.equal(code, 2, `${modelStore.stderr()} (after ${Date.now() - started} ms)`);
  assert.ok(Date.now() - started < 45_000);
  assert.match(
    modelStore.stderr(),
    /^twinport: fileStorage\.path '.*\/a-file\/files' cannot be used: cannot create the folder '.*\/a-file': EEXIST/m,
  );
  // Under /proc, where Node's recursive mkdir would loop: refused with the configuration.
  const proc = start([
    "model-store",
    "--empty-model",
    'fileStorage={"@class":"filestorage.filesystem.FileStorageFilesystem","path":"/proc/1/x"}',
  ]);
  assert.equal(await proc.exited, 2, proc.stderr());
  assert.match(proc.stderr(), /^twinport: Invalid value at 'fileStorage\.path': '\/proc\/1\/x' is under \/proc/m);
});

test("gateways refuse -m", async () => {
  const gateway = start(["http-gateway", "-m", EXAMPLE_MODEL]);
  assert.equal(await gateway.exited, 2);
  assert.equal(
    gateway.stderr(),
    "twinport: -m/--model, --empty-model and --no-validation apply to embedded mode and the model-store only.\n",
  );
});

test("embedded mode on Redis and NATS: the outbox relay publishes each write to NATS", async () => {
  const port = await freePort();
  const connection = await connectNats({ url: nats.url, name: "embedded-test", onChange: () => {} });
  const bus = createNatsEventBus({ connection });
  const events: ChangeEvent[] = [];
  const subscription = await bus.subscribe({ onEvent: (event) => events.push(event) });
  try {
    const embedded = start([
      "-m",
      EXAMPLE_MODEL,
      "--endpoint",
      "http",
      `endpoints[0].port=${port}`,
      "endpoints[0].host=127.0.0.1",
      // Environment variables resolve against the class the file (or a TWINPORT_*_CLASS variable)
      // names; the command line picks the classes here, so it carries the URLs too.
      `persistence={"@class":"persistence.redis.PersistenceRedis","keyPrefix":"embedded","url":"${redis.url}"}`,
      `messageBus={"@class":"messagebus.nats.MessageBusNats","url":"${nats.url}"}`,
    ]);
    assert.deepEqual(await embedded.ready, {
      http: [`https://127.0.0.1:${port}/api/v3.0`],
      opcua: [],
      nats: nats.url,
      redis: redis.url,
    });
    const id = "https://example.org/aas/test-1";
    assert.equal(await getJson(`https://127.0.0.1:${port}/api/v3.0/shells/${encodeBase64Url(id)}`, "DELETE"), 204);
    const deadline = Date.now() + 5000;
    while (!events.some((e) => e.kind === "shell.deleted") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const deletedEvents = events.filter((e) => e.kind === "shell.deleted");
    assert.equal(deletedEvents.length, 1, "published once (by the relay, not also by the engine)");
    assert.equal(deletedEvents[0]!.id, id);
    assert.equal(await embedded.stop(), 0);
  } finally {
    await subscription.unsubscribe();
    await bus.close();
    await connection.close();
  }
});
