/**
 * Issue 12 target 4 benchmark: asset ingest over MQTT. A device process publishes values round-robin
 * to 1,000 topics on a real mosquitto; one MQTT asset connection with 1,000 subscription providers
 * takes them into 1,000 Properties (10 submodels × 100, xs:double). Measured per rate step:
 * - published vs committed values/s (distributed: `element.value-changed` events with origin
 *   "asset" counted on NATS; embedded has no NATS, so there committed is estimated from the OPC UA
 *   sample's notifications × 10) and the difference, which the connection coalesced (latest value
 *   wins while one is being written, docs/asset-connections.md "Messages → model"); mosquitto's queue is raised to 1M
 *   messages so the broker itself drops nothing;
 * - whether HTTP follows (GET $value of 50 Properties ends at the last value published to each) and
 *   OPC UA follows (a node-opcua client monitoring the Value nodes of 100 Properties, sampling
 *   interval 0, ends at the last value published to each);
 * - lag from the device's publish to the OPC UA notification, p50/p99 (each payload is its own send
 *   time on the wall clock, which all processes of this machine share), and in distributed mode
 *   from the publish to the committed event on NATS;
 * - CPU per committed value of every process (model-store, opcua-gateway, http-gateway,
 *   nats-server, redis-server, mosquitto; embedded: twinport, mosquitto) and of the device.
 * Distributed: redis-server as shipped (AOF, appendfsync always), nats-server, model-store,
 * http-gateway and opcua-gateway as processes, one config file for all. Then the same embedded.
 *
 * Run: npm run bench -- asset-ingest
 *   BENCH_RATES=1000,2500,5000,10000 BENCH_SECONDS=4 BENCH_MODES=distributed,embedded BENCH_QOS=1 BENCH_ROUNDS=1
 *   BENCH_PROFILE=1 (model-store / embedded process with --cpu-prof; the .cpuprofile is kept and named)
 *   BENCH_PROFILE_ROLE=opcua-gateway|http-gateway (distributed: profile that process instead of the model-store)
 *   BENCH_NODE_ARGS="--trace-gc …" (more node flags of the model-store / embedded process)
 *   BENCH_MAX_INFLIGHT=N (mosquitto's max_inflight_messages; default: mosquitto's, 20)
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect as connectNats } from "@nats-io/transport-node";
import {
  AttributeIds,
  type ClientMonitoredItemGroup,
  ClientSubscription,
  type DataValue,
  TimestampsToReturn,
} from "node-opcua";
import { b64 } from "../tests/test-support/http-client.ts";
import { connectOpcua, type OpcuaTestClient } from "../tests/test-support/opcua-client.ts";
import { elementNode } from "../tests/test-support/opcua-model.ts";
import { freePort, type RunningServer, startMosquitto, startNats, startRedis } from "../tests/test-support/servers.ts";
import { type Mode, startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";
import { processSyscalls } from "./test-support/process-io.ts";

const rates = (process.env.BENCH_RATES ?? "1000,2500,5000,10000").split(",").map(Number);
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const modes = (process.env.BENCH_MODES ?? "distributed,embedded").split(",") as Mode[];
const qos = Number(process.env.BENCH_QOS ?? 1) as 0 | 1;
/** Each rate this many times in a row (this machine's speed drifts: compare rounds, not runs). */
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const profile = process.env.BENCH_PROFILE === "1";
/** Which distributed process BENCH_PROFILE and BENCH_NODE_ARGS apply to. */
const profileRole = process.env.BENCH_PROFILE_ROLE ?? "model-store";
/** mosquitto's max_inflight_messages (QoS 1 messages to one client not yet acknowledged); unset: its default, 20. */
const maxInflight = process.env.BENCH_MAX_INFLIGHT === undefined ? undefined : Number(process.env.BENCH_MAX_INFLIGHT);
const SUBMODELS = 10;
const PER_SUBMODEL = 100;
const OPCUA_EVERY = 10; // 100 monitored Properties
const HTTP_EVERY = 20; // 50 Properties read back
const DRAIN_LIMIT_MS = 20_000;

interface Target {
  submodelId: string;
  idShort: string;
  topic: string;
}
const targets: Target[] = [];
for (let s = 0; s < SUBMODELS; s++)
  for (let p = 0; p < PER_SUBMODEL; p++)
    targets.push({ submodelId: `urn:bench:ingest:sm${s}`, idShort: `P${p}`, topic: `bench/sm${s}/p${p}` });
const opcuaSample = targets.filter((_, i) => i % OPCUA_EVERY === 3);
const httpSample = targets.filter((_, i) => i % HTTP_EVERY === 7);
const topics = targets.map((t) => t.topic);

const model = {
  submodels: Array.from({ length: SUBMODELS }, (_, s) => ({
    modelType: "Submodel",
    id: `urn:bench:ingest:sm${s}`,
    idShort: `Ingest${s}`,
    submodelElements: Array.from({ length: PER_SUBMODEL }, (_, p) => ({
      modelType: "Property",
      idShort: `P${p}`,
      valueType: "xs:double",
      value: "0",
    })),
  })),
};

const epochMs = Math.floor(performance.timeOrigin + performance.now());
const now = () => performance.timeOrigin + performance.now();
const sinceEpoch = () => now() - epochMs;
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PublisherResult {
  published: number;
  /** The broker acknowledged every message within 15 s of the last publish. */
  acked: boolean;
  /** The first and the last publish, in ms since epochMs. */
  startedMs: number;
  endedMs: number;
  /** How long ending the session took (waiting for the last acknowledgements). */
  closeMs: number;
  seconds: number;
  cpuMs: number;
  last: Record<string, number>;
}

/** Runs the device; `onStart` is called when its "publishing" line arrives (after its own start-up). */
function publish(brokerUrl: string, rate: number, duration: number, onStart: () => void): Promise<PublisherResult> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      new URL("./test-support/mqtt-publisher.ts", import.meta.url).pathname,
      brokerUrl,
      JSON.stringify({ topics, rate, seconds: duration, qos, epochMs }),
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  let started = false;
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    if (!started && out.includes("publishing\n")) {
      started = true;
      onStart();
    }
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), (duration + 60) * 1000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the publisher exited with ${code}: ${out}`));
      resolve(JSON.parse(out.trim().split("\n").at(-1)!) as PublisherResult);
    });
  });
}

/** What the bench sees of the system while a step runs. */
class Observer {
  committed = 0;
  lastCommitAt = 0;
  lastNotificationAt = 0;
  commitLags: number[] = [];
  opcuaLags: number[] = [];
  notifications = 0;
  /** Last value notified per monitored topic. */
  readonly opcuaLast = new Map<string, number>();

  reset(): void {
    this.committed = 0;
    this.lastCommitAt = 0;
    this.lastNotificationAt = 0;
    this.commitLags = [];
    this.opcuaLags = [];
    this.notifications = 0;
  }
}

const ASSET_ORIGIN = Buffer.from('"origin":"asset"');
/** The publish → NATS lag is taken from every this many committed events. */
const COMMIT_LAG_EVERY = 10;

async function watchNats(url: string, observer: Observer): Promise<NatsConnection> {
  const connection = await connectNats({ servers: url, name: "bench-asset-ingest" });
  connection.subscribe("twinport.v1.evt.element.value-changed", {
    callback: (error, msg) => {
      if (error) return;
      // Counted without decoding (a byte search), and one event in COMMIT_LAG_EVERY decoded for the
      // lag: decoding all of them cost this process ~30 µs per value on the cores the system uses.
      const data = Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength);
      if (data.indexOf(ASSET_ORIGIN) < 0) return;
      observer.committed++;
      observer.lastCommitAt = now();
      if (observer.committed % COMMIT_LAG_EVERY !== 0) return;
      const event = JSON.parse(data.toString("utf8")) as { origin?: string; payload?: { value?: string } };
      const value = Number(event.payload?.value);
      if (event.origin === "asset" && Number.isFinite(value) && value > 0)
        observer.commitLags.push(sinceEpoch() - value);
    },
  });
  await connection.flush();
  return connection;
}

async function monitorOpcua(client: OpcuaTestClient, observer: Observer): Promise<ClientSubscription> {
  const subscription = ClientSubscription.create(client.session, {
    requestedPublishingInterval: 10,
    requestedMaxKeepAliveCount: 100,
    requestedLifetimeCount: 1000,
    maxNotificationsPerPublish: 0,
    publishingEnabled: true,
  });
  const group: ClientMonitoredItemGroup = await subscription.monitorItems(
    opcuaSample.map((t) => ({
      nodeId: client.nodeId(elementNode(t.submodelId, t.idShort, "Value")),
      attributeId: AttributeIds.Value,
    })),
    { samplingInterval: 0, discardOldest: true, queueSize: 1000 },
    TimestampsToReturn.Both,
  );
  let initial = opcuaSample.length;
  group.on("changed", (_item: unknown, dataValue: DataValue, index: number) => {
    const at = sinceEpoch();
    const value = Number(dataValue.value.value);
    observer.opcuaLast.set(opcuaSample[index]!.topic, value);
    // The first notification of each item is the value it had when monitoring began.
    if (initial > 0 && value === 0) {
      initial--;
      return;
    }
    observer.notifications++;
    observer.lastNotificationAt = now();
    if (value > 0) observer.opcuaLags.push(at - value);
  });
  return subscription;
}

async function httpFollows(base: string, last: Record<string, number>): Promise<number> {
  let matching = 0;
  for (const t of httpSample) {
    const response = await fetch(`${base}/submodels/${b64(t.submodelId)}/submodel-elements/${t.idShort}/$value`);
    const body = (await response.json()) as Record<string, unknown>;
    if (Number(body[t.idShort]) === last[t.topic]) matching++;
  }
  return matching;
}

const opcuaFollows = (observer: Observer, last: Record<string, number>) =>
  opcuaSample.filter((t) => observer.opcuaLast.get(t.topic) === last[t.topic]).length;

interface StepResult {
  mode: Mode;
  rate: number;
  published: number;
  publishSeconds: number;
  committed: number;
  committedEstimated: boolean;
  /** From the first publish to the last commit (or the last publish when that came later). */
  ingestSeconds: number;
  drainMs: number;
  httpOk: number;
  opcuaOk: number;
  opcuaLag: [number, number, number];
  commitLag: [number, number, number];
  cpuUs: Record<string, number>;
  /** Read + write system calls per committed value, and per published message, of every process. */
  syscallsPerValue: Record<string, number>;
  syscallsPerMessage: Record<string, number>;
  deviceUs: number;
  /** This process: the OPC UA client, the NATS event counter, the HTTP reads. */
  observerUs: number;
}

interface System {
  mode: Mode;
  base: string;
  opcuaUrl: string;
  natsUrl?: string;
  pids: Record<string, number>;
  profileDir?: string;
  stop(): Promise<void>;
}

async function startSystem(mode: Mode, brokerUrl: string, mosquittoPid: number): Promise<System> {
  const dirs: string[] = [];
  const processes: TwinportProcess[] = [];
  const servers: RunningServer[] = [];
  const dir = (name: string) => {
    const d = mkdtempSync(join(tmpdir(), `twinport-bench-ingest-${name}-`));
    dirs.push(d);
    return d;
  };
  const stop = async () => {
    for (const p of processes.reverse()) await p.stop();
    for (const s of servers) await s.stop();
    if (process.env.BENCH_KEEP === "1") console.log(`kept: ${dirs.join(" ")}`);
    else for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    const httpPort = await freePort();
    const opcuaPort = await freePort();
    const connection = {
      "@class": "de.fraunhofer.iosb.ilt.faaast.service.assetconnection.mqtt.MqttAssetConnection",
      serverUri: brokerUrl.replace(/^mqtt:/, "tcp:"),
      clientId: `twinport-bench-${mode}`,
      subscriptionProviders: Object.fromEntries(
        targets.map((t) => [`(Submodel)${t.submodelId}, (Property)${t.idShort}`, { format: "JSON", topic: t.topic }]),
      ),
    };
    const endpoints = [
      { "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: false },
      {
        "@class": "endpoint.opcua.OpcUaEndpoint",
        tcpPort: opcuaPort,
        host: "127.0.0.1",
        hostname: "127.0.0.1",
        secondsTillShutdown: 0,
      },
    ];
    const profileDir = profile ? mkdtempSync(join(tmpdir(), `twinport-bench-ingest-profile-${mode}-`)) : undefined;
    const nodeArgs = [
      ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
      ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
    ];
    const writeConfig = (cwd: string, config: unknown) => {
      writeFileSync(join(cwd, "config.json"), JSON.stringify(config));
      writeFileSync(join(cwd, "model.json"), JSON.stringify(model));
    };
    const base = `http://127.0.0.1:${httpPort}/api/v3.0`;
    if (mode === "embedded") {
      const cwd = dir("embedded");
      writeConfig(cwd, { endpoints, assetConnections: [connection] });
      const twinport = await startTwinport({
        role: "embedded",
        cwd,
        args: ["-c", "config.json", "-m", "model.json"],
        nodeArgs,
        timeoutMs: 60_000,
      });
      processes.push(twinport);
      return {
        mode,
        base,
        opcuaUrl: (twinport.details.opcua as string[])[0]!,
        pids: { twinport: twinport.child.pid!, mosquitto: mosquittoPid },
        profileDir,
        stop,
      };
    }
    const redis = await startRedis({ appendOnly: true });
    servers.push(redis);
    const nats = await startNats();
    servers.push(nats);
    const config = {
      persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
      messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url },
      endpoints,
      assetConnections: [connection],
    };
    const start = async (
      role: "model-store" | "http-gateway" | "opcua-gateway",
      args: string[],
      extra: string[] = [],
    ) => {
      const cwd = dir(role);
      writeConfig(cwd, config);
      const p = await startTwinport({
        role,
        cwd,
        args: ["-c", "config.json", ...args],
        nodeArgs: extra,
        timeoutMs: 60_000,
      });
      processes.push(p);
      return p;
    };
    const argsOf = (role: string) => (role === profileRole ? nodeArgs : []);
    const store = await start("model-store", ["-m", "model.json"], argsOf("model-store"));
    const [http, opcua] = await Promise.all([
      start("http-gateway", [], argsOf("http-gateway")),
      start("opcua-gateway", [], argsOf("opcua-gateway")),
    ]);
    return {
      mode,
      base,
      opcuaUrl: (opcua.details.opcua as string[])[0]!,
      natsUrl: nats.url,
      pids: {
        "model-store": store.child.pid!,
        "opcua-gateway": opcua.child.pid!,
        "http-gateway": http.child.pid!,
        "nats-server": nats.pid,
        "redis-server": redis.pid,
        mosquitto: mosquittoPid,
      },
      profileDir,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function runStep(
  system: System,
  brokerUrl: string,
  observer: Observer,
  rate: number,
  duration: number,
): Promise<StepResult> {
  observer.reset();
  // CPU from the device's first publish (its process start-up is not the system's work).
  let cpuBefore: Record<string, number> = {};
  let callsBefore: Record<string, number> = {};
  let observerBefore = 0;
  const snapshot = () => {
    cpuBefore = Object.fromEntries(Object.entries(system.pids).map(([name, pid]) => [name, processCpuMs(pid)]));
    callsBefore = Object.fromEntries(Object.entries(system.pids).map(([name, pid]) => [name, processSyscalls(pid)]));
    observerBefore = processCpuMs(process.pid);
  };
  // hrtime (µs, monotonic, what a .cpuprofile's timestamps use) and wall clock at one moment.
  const hrAt = process.hrtime.bigint() / 1000n;
  const wallAt = now();
  const toHr = (wall: number) => hrAt + BigInt(Math.round((wall - wallAt) * 1000));
  const result = await publish(brokerUrl, rate, duration, snapshot);
  const startedAt = epochMs + result.startedMs;
  const publishedAt = now();
  if (!result.acked)
    console.log(
      `    (${system.mode} ${rate}/s: the broker had not acknowledged every message 15 s after the last publish)`,
    );
  const lastPublishAt = epochMs + result.endedMs;
  // Drain: until the monitored nodes show the last values (and, distributed, no commit for 500 ms).
  const sampleDone = () => opcuaFollows(observer, result.last) === opcuaSample.length;
  let lastSeen = observer.notifications;
  let quietSince = now();
  while (now() - publishedAt < DRAIN_LIMIT_MS) {
    if (observer.notifications !== lastSeen || (system.natsUrl && now() - observer.lastCommitAt < 500)) {
      lastSeen = observer.notifications;
      quietSince = now();
    }
    if (sampleDone() && now() - quietSince >= 500) break;
    if (!sampleDone() && now() - quietSince >= 5000) break; // nothing moves any more
    await sleep(50);
  }
  // Committed values/s over the time from the first publish to the last commit (embedded: the last
  // notification of the OPC UA sample) or the last publish, whichever is later.
  const lastActivity = Math.max(system.natsUrl ? observer.lastCommitAt : observer.lastNotificationAt, lastPublishAt);
  const drainMs = lastActivity - lastPublishAt;
  if (system.profileDir)
    console.log(
      `    profile window, first publish to last commit (PROFILE_FROM_US/PROFILE_TO_US of bench/test-support/cpuprofile-summary.ts): ${toHr(startedAt)} ${toHr(lastActivity)}`,
    );
  if (process.env.BENCH_VERBOSE === "1")
    console.log(`    device: ending its session took ${Math.round(result.closeMs)} ms`);
  const httpOk = await httpFollows(system.base, result.last);
  const cpuMs = Object.fromEntries(
    Object.entries(system.pids).map(([name, pid]) => [name, processCpuMs(pid) - cpuBefore[name]!]),
  );
  const observerMs = processCpuMs(process.pid) - observerBefore;
  const calls = Object.fromEntries(
    Object.entries(system.pids).map(([name, pid]) => [name, processSyscalls(pid) - callsBefore[name]!]),
  );
  const committedEstimated = !system.natsUrl;
  const committed = committedEstimated ? observer.notifications * OPCUA_EVERY : observer.committed;
  const lags = (values: number[]): [number, number, number] => {
    const sorted = [...values].sort((a, b) => a - b);
    return [percentile(sorted, 50), percentile(sorted, 99), sorted.at(-1) ?? Number.NaN];
  };
  const perValue = (ms: number) => (ms * 1000) / Math.max(committed, 1);
  return {
    mode: system.mode,
    rate,
    published: result.published,
    publishSeconds: result.seconds,
    committed,
    committedEstimated,
    ingestSeconds: (lastActivity - startedAt) / 1000,
    drainMs,
    httpOk,
    opcuaOk: opcuaFollows(observer, result.last),
    opcuaLag: lags(observer.opcuaLags),
    commitLag: lags(observer.commitLags),
    cpuUs: Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, perValue(ms)])),
    syscallsPerValue: Object.fromEntries(Object.entries(calls).map(([name, n]) => [name, n / Math.max(committed, 1)])),
    syscallsPerMessage: Object.fromEntries(
      Object.entries(calls).map(([name, n]) => [name, n / Math.max(result.published, 1)]),
    ),
    deviceUs: perValue(result.cpuMs),
    observerUs: perValue(observerMs),
  };
}

function printStep(r: StepResult): void {
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 100 ? 1 : 0) : "–");
  const coalesced = r.published - r.committed;
  console.log(
    `${r.mode} ${r.rate}/s: published ${r.published} (${Math.round(r.published / r.publishSeconds)}/s), committed ${r.committed}${r.committedEstimated ? " (est.)" : ""} ` +
      `(${Math.round(r.committed / r.ingestSeconds)}/s), coalesced ${coalesced} (${((100 * coalesced) / Math.max(r.published, 1)).toFixed(1)}%), drained ${Math.round(r.drainMs)} ms after the last publish; ` +
      `HTTP ${r.httpOk}/${httpSample.length} and OPC UA ${r.opcuaOk}/${opcuaSample.length} at the last value`,
  );
  console.log(
    `    lag publish → OPC UA notification p50 ${ms(r.opcuaLag[0])} ms, p99 ${ms(r.opcuaLag[1])} ms, max ${ms(r.opcuaLag[2])} ms` +
      (r.mode === "distributed"
        ? `; publish → event on NATS (every ${COMMIT_LAG_EVERY}th) p50 ${ms(r.commitLag[0])} ms, p99 ${ms(r.commitLag[1])} ms`
        : ""),
  );
  const total = Object.values(r.cpuUs).reduce((a, b) => a + b, 0);
  console.log(
    `    CPU per committed value: ${Object.entries(r.cpuUs)
      .map(([name, us]) => `${name} ${Math.round(us)} µs`)
      .join(
        ", ",
      )}; total ${Math.round(total)} µs (besides: device ${Math.round(r.deviceUs)} µs, bench ${Math.round(r.observerUs)} µs)`,
  );
  console.log(
    `    read+write system calls per published message: ${Object.entries(r.syscallsPerMessage)
      .map(([name, n]) => `${name} ${n.toFixed(2)}`)
      .join(", ")}; per committed value: ${Object.entries(r.syscallsPerValue)
      .map(([name, n]) => `${name} ${n.toFixed(2)}`)
      .join(", ")}`,
  );
}

const results: StepResult[] = [];
const broker = await startMosquitto({
  maxQueuedMessages: 1_000_000,
  ...(maxInflight !== undefined ? { maxInflightMessages: maxInflight } : {}),
});
try {
  for (const mode of modes) {
    const system = await startSystem(mode, broker.url, broker.pid);
    let nats: NatsConnection | undefined;
    let opcua: OpcuaTestClient | undefined;
    try {
      const observer = new Observer();
      if (system.natsUrl) nats = await watchNats(system.natsUrl, observer);
      opcua = await connectOpcua(system.opcuaUrl, mkdtempSync(join(tmpdir(), "twinport-bench-ingest-client-")));
      await monitorOpcua(opcua, observer);
      // Warm-up: until every subscription is in place (values published before it are lost) and the
      // JIT has seen the path: every topic gets values until HTTP and OPC UA show the last ones.
      let ready = false;
      for (let attempt = 1; attempt <= 8 && !ready; attempt++) {
        const warm = await runStep(system, broker.url, observer, 1000, 2);
        ready = warm.httpOk === httpSample.length && warm.opcuaOk === opcuaSample.length;
        console.log(
          `${mode}: warm-up ${attempt}: HTTP ${warm.httpOk}/${httpSample.length}, OPC UA ${warm.opcuaOk}/${opcuaSample.length} at the last value`,
        );
      }
      if (!ready) throw new Error(`${mode}: the system does not follow the device even at 1,000 values/s`);
      for (const rate of rates) {
        for (let round = 1; round <= rounds; round++) {
          const r = await runStep(system, broker.url, observer, rate, seconds);
          results.push(r);
          printStep(r);
        }
      }
    } finally {
      await opcua?.close().catch(() => undefined);
      await nats?.close().catch(() => undefined);
      await system.stop();
      if (system.profileDir) {
        const kept = mkdtempSync(join(tmpdir(), `asset-ingest-${mode}-cpuprofile-`));
        for (const f of readdirSync(system.profileDir)) cpSync(join(system.profileDir, f), join(kept, f));
        rmSync(system.profileDir, { recursive: true, force: true });
        console.log(`${mode}: CPU profile(s) in ${kept}`);
      }
    }
  }
} finally {
  await broker.stop();
}

console.log(
  `\nasset ingest, ${SUBMODELS}×${PER_SUBMODEL} Properties over MQTT (QoS ${qos}, mosquitto max_inflight_messages ${maxInflight ?? "20 (default)"}), ${seconds} s per step; CPU µs per committed value`,
);
const names = [...new Set(results.flatMap((r) => Object.keys(r.cpuUs)))];
console.log(
  [
    "mode",
    "target/s",
    "published/s",
    "committed/s",
    "coalesced",
    "drain ms",
    "HTTP",
    "OPC UA",
    "lag p50",
    "lag p99",
    ...names,
    "total",
    "device",
    "bench",
  ].join(" | "),
);
for (const r of results) {
  console.log(
    [
      r.mode,
      r.rate,
      Math.round(r.published / r.publishSeconds),
      `${Math.round(r.committed / r.ingestSeconds)}${r.committedEstimated ? "*" : ""}`,
      `${((100 * (r.published - r.committed)) / Math.max(r.published, 1)).toFixed(1)}%`,
      Math.round(r.drainMs),
      `${r.httpOk}/${httpSample.length}`,
      `${r.opcuaOk}/${opcuaSample.length}`,
      r.opcuaLag[0].toFixed(1),
      r.opcuaLag[1].toFixed(1),
      ...names.map((n) => (r.cpuUs[n] === undefined ? "–" : Math.round(r.cpuUs[n]!))),
      Math.round(Object.values(r.cpuUs).reduce((a, b) => a + b, 0)),
      Math.round(r.deviceUs),
      Math.round(r.observerUs),
    ].join(" | "),
  );
}
console.log(
  "* embedded: committed estimated from the OPC UA sample (notifications × 10); target (issue 12): ≥ 5,000 committed values/s distributed",
);
