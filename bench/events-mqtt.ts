/**
 * Issue 15 (MQTT half): change events published to MQTT (docs/events-mqtt.md). Distributed mode:
 * redis-server as shipped (AOF, appendfsync always), nats-server, mosquitto, one model-store and one
 * http-gateway as processes; a real mqtt.js subscriber on `events/#`. BENCH_WRITES value writes
 * (PATCH $value over plain HTTP, BENCH_CONCURRENCY at once) on one Property, twice: without MQTT
 * publishing and with it. Prints per round:
 * - writes/s over HTTP, and with publishing the events/s the subscriber received (until the last);
 * - lag from a write's HTTP answer to its event at the subscriber, p50/p99;
 * - CPU per write of each process (what publishing adds to the model-store, and mosquitto's share).
 *
 * Run: npm run bench -- events-mqtt
 *   BENCH_WRITES=2000 BENCH_CONCURRENCY=16
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectAsync } from "mqtt";
import { b64, createHttpClient } from "../tests/test-support/http-client.ts";
import { freePort, startMosquitto, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { cpuDuring, formatCpuPerRequest } from "./test-support/process-cpu.ts";

const writes = Number(process.env.BENCH_WRITES ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SUBMODEL = "urn:bench:mqtt";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function round(withMqtt: boolean): Promise<void> {
  const [redis, nats, broker] = await Promise.all([
    startRedis({ appendOnly: true }),
    startNats(),
    startMosquitto({ maxQueuedMessages: 1_000_000 }),
  ]);
  const dirs: string[] = [];
  const processes: TwinportProcess[] = [];
  const subscriber = await connectAsync(broker.url, { protocolVersion: 5 });
  try {
    const httpPort = await freePort();
    const config = JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: false }],
      persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
      messageBus: {
        "@class": "messagebus.nats.MessageBusNats",
        url: nats.url,
        ...(withMqtt ? { mqtt: { host: "127.0.0.1", port: broker.port } } : {}),
      },
    });
    for (const role of ["model-store", "http-gateway"] as const) {
      const cwd = mkdtempSync(join(tmpdir(), `bench-mqtt-${role}-`));
      dirs.push(cwd);
      writeFileSync(join(cwd, "config.json"), config);
      const args = ["-c", "config.json", ...(role === "model-store" ? ["--empty-model"] : [])];
      processes.push(await startTwinport({ role, cwd, args }));
    }
    const http = createHttpClient(`http://127.0.0.1:${httpPort}/api/v3.0`);
    const created = await http.request("POST", "/submodels", {
      body: JSON.stringify({
        modelType: "Submodel",
        id: SUBMODEL,
        submodelElements: [{ modelType: "Property", idShort: "V", valueType: "xs:int", value: "0" }],
      }),
    });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    const received = new Map<number, number>();
    subscriber.on("message", (_topic, payload) => {
      const body = JSON.parse(payload.toString());
      if (body["@type"] === "ValueChangeEvent") received.set(body.newValue.value, performance.now());
    });
    await subscriber.subscribeAsync("events/#", { qos: 1 });
    await new Promise((r) => setTimeout(r, 1000)); // the publisher holds its lease and is connected

    const answered = new Map<number, number>();
    let next = 1;
    const startedAt = performance.now();
    const pids = {
      "model-store": processes[0]!.child.pid!,
      "http-gateway": processes[1]!.child.pid!,
      mosquitto: broker.pid,
      redis: redis.pid,
      nats: nats.pid,
    };
    const { cpuMs } = await cpuDuring(pids, async () => {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next <= writes) {
            const value = next++;
            const response = await http.request("PATCH", `/submodels/${b64(SUBMODEL)}/submodel-elements/V/$value`, {
              body: JSON.stringify(String(value)),
            });
            if (response.status !== 204) throw new Error(`write ${value}: ${response.status} ${response.text}`);
            answered.set(value, performance.now());
          }
        }),
      );
      if (withMqtt) {
        const deadline = performance.now() + 60_000;
        while (received.size < writes && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      }
    });
    const writtenAt = Math.max(...answered.values());
    const line = [
      `${withMqtt ? "with MQTT   " : "without MQTT"}: ${Math.round((writes * 1000) / (writtenAt - startedAt))} writes/s`,
    ];
    if (withMqtt) {
      const lastEvent = Math.max(...received.values());
      const lags = [...answered].map(([value, at]) => (received.get(value) ?? Number.NaN) - at).sort((a, b) => a - b);
      line.push(
        `${Math.round((received.size * 1000) / (lastEvent - startedAt))} events/s received (${received.size}/${writes})`,
        `answer→event p50 ${percentile(lags, 0.5).toFixed(1)} ms, p99 ${percentile(lags, 0.99).toFixed(1)} ms`,
      );
    }
    console.log(line.join("; "));
    console.log(`  ${formatCpuPerRequest(cpuMs, writes)}`);
    http.close();
  } finally {
    await subscriber.endAsync(true);
    await Promise.all(processes.map((p) => p.stop()));
    await Promise.all([broker.stop(), nats.stop(), redis.stop()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`events-mqtt: ${writes} value writes, ${concurrency} at once, distributed mode`);
await round(false);
await round(true);
