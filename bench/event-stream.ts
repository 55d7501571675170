/**
 * Issue 15 benchmark: the Server-Sent Events stream (GET /api/v3.0/events) in distributed mode.
 *
 * redis-server (AOF, appendfsync always, as docker-compose.yml ships it), nats-server, a
 * model-store and two http-gateways. 100 SSE clients (half on each gateway, plain HTTP readers in
 * this process) follow every change while a fixed-rate writer PATCHes `$value`s through the
 * gateways. Reported: events/s delivered in total, commit → client latency (the event's `time` is
 * the commit's; same clock) p50/p99/max, and CPU per event per process. The same write rate is
 * first run with no stream open, so the streams' own CPU shows as the difference.
 *
 * Run: npm run bench -- event-stream   (BENCH_SECONDS=10 BENCH_RATE=200 BENCH_CLIENTS=100)
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { b64 } from "../tests/test-support/http-client.ts";
import { startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { plainHttpConfig } from "./test-support/bench-setup.ts";
import { generatedSubmodel } from "./test-support/generated-model.ts";
import { cpuDuring } from "./test-support/process-cpu.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rate = Number(process.env.BENCH_RATE ?? 200);
const clientCount = Number(process.env.BENCH_CLIENTS ?? 100);

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-events-"));
const SUBMODEL = "urn:bench:events:sm";
const modelFile = join(dir, "model.json");
writeFileSync(modelFile, JSON.stringify({ submodels: [generatedSubmodel(SUBMODEL, 100)] }));
const valuePath = (i: number) => `/api/v3.0/submodels/${b64(SUBMODEL)}/submodel-elements/P${i}/$value`;

interface Client {
  received: number;
  latencies: number[];
  seqs: number[];
  close(): void;
}

/** A stream reader that parses only what it measures: the seq and the commit time. */
function openClient(base: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client: Client = { received: 0, latencies: [], seqs: [], close: () => req.destroy() };
    let buffer = "";
    const req = request(`${base}/api/v3.0/events?kinds=element`, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /events answered ${res.statusCode}`));
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        const now = Date.now();
        buffer += chunk;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.indexOf("\ndata: ");
          if (data >= 0) {
            const event = JSON.parse(block.slice(data + 7)) as { seq: number; time: string };
            client.received++;
            client.seqs.push(event.seq);
            client.latencies.push(now - Date.parse(event.time));
          }
          end = buffer.indexOf("\n\n");
        }
      });
      resolve(client);
    });
    req.once("error", reject);
    req.end();
  });
}

/** PATCHes at a fixed rate (spread over the gateways, a few in flight), for `ms`. */
async function writeAtRate(bases: string[], ms: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const patch = (base: string, i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        `${base}${valuePath(i % 100)}`,
        { method: "PATCH", agent, headers: { "content-type": "application/json" } },
        (res) => {
          res.resume();
          res.once("end", () => (res.statusCode === 204 ? resolve() : reject(new Error(`PATCH ${res.statusCode}`))));
        },
      );
      req.once("error", reject);
      req.end(JSON.stringify(String(i)));
    });
  const started = Date.now();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  while (Date.now() - started < ms) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (sent < due) {
      const write = patch(bases[sent % bases.length]!, sent).finally(() => inFlight.delete(write));
      inFlight.add(write);
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return sent;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const micros = (cpuMs: Record<string, number>, count: number) =>
  Object.entries(cpuMs)
    .map(([name, ms]) => `${name} ${Math.round((ms * 1000) / Math.max(count, 1))} µs`)
    .join(", ");

const processes: TwinportProcess[] = [];
const redis = await startRedis({ appendOnly: true });
const nats = await startNats();
try {
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  processes.push(await startTwinport({ role: "model-store", cwd: dir, args: ["-m", modelFile], env }));
  const bases: string[] = [];
  for (let i = 0; i < 2; i++) {
    const { file, port } = await plainHttpConfig(dir);
    processes.push(await startTwinport({ role: "http-gateway", cwd: dir, args: ["-c", file], env }));
    bases.push(`http://127.0.0.1:${port}`);
  }
  const pids: Record<string, number> = {
    "model-store": processes[0]!.child.pid!,
    "gateway 1": processes[1]!.child.pid!,
    "gateway 2": processes[2]!.child.pid!,
    redis: redis.pid!,
    nats: nats.pid!,
  };
  const [store, gateway1, gateway2] = processes;
  if (!store || !gateway1 || !gateway2) throw new Error("not started");
  console.log(
    `distributed (2 http-gateways), ${clientCount} SSE clients, ${rate} PATCH/s for ${seconds} s; ${execFileSync("uptime").toString().trim()}`,
  );

  await writeAtRate(bases, 1000); // warm-up
  const quiet = await cpuDuring(pids, () => writeAtRate(bases, seconds * 1000));
  console.log(`no stream open:  ${quiet.result} writes; CPU per write: ${micros(quiet.cpuMs, quiet.result)}`);

  const clients = await Promise.all(
    Array.from({ length: clientCount }, (_, i) => openClient(bases[i % bases.length]!)),
  );
  await writeAtRate(bases, 1000); // warm-up with the streams
  await new Promise((resolve) => setTimeout(resolve, 1000)); // its last events arrive before counting starts
  for (const client of clients) {
    client.received = 0;
    client.latencies.length = 0;
    client.seqs.length = 0;
  }
  const started = Date.now();
  const ownCpu = process.cpuUsage();
  const loaded = await cpuDuring(pids, async () => {
    const writes = await writeAtRate(bases, seconds * 1000);
    // The last events are on their way: give them a moment (their latency is measured anyway).
    await new Promise((resolve) => setTimeout(resolve, 500));
    return writes;
  });
  const elapsed = (Date.now() - started) / 1000;
  const own = process.cpuUsage(ownCpu);
  // This process (the 100 readers and the writer) competes for the same 2 cores: its CPU is shown too.
  const benchMs = (own.user + own.system) / 1000;
  const delivered = clients.reduce((sum, client) => sum + client.received, 0);
  const latencies = clients.flatMap((client) => client.latencies).sort((a, b) => a - b);
  // Every client must see the same consecutive seqs: no gap, no duplicate, under load.
  const broken = clients.filter((client) => client.seqs.some((seq, i) => i > 0 && seq !== client.seqs[i - 1]! + 1));
  const extra = Object.fromEntries(
    Object.entries(loaded.cpuMs).map(([name, ms]) => [name, Math.max(0, ms - (quiet.cpuMs[name] ?? 0))]),
  );
  console.log(
    `with ${clientCount} streams: ${loaded.result} writes, ${delivered} events delivered = ${Math.round(delivered / elapsed)} events/s ` +
      `(${(delivered / Math.max(loaded.result, 1)).toFixed(1)} per write; clients with a gap or duplicate: ${broken.length})`,
  );
  console.log(
    `commit → client latency: p50 ${percentile(latencies, 0.5)} ms, p99 ${percentile(latencies, 0.99)} ms, max ${latencies.at(-1)} ms`,
  );
  console.log(
    `CPU per write: ${micros(loaded.cpuMs, loaded.result)}; the bench's own clients and writer ${Math.round((benchMs * 1000) / Math.max(delivered, 1))} µs per delivered event`,
  );
  console.log(`CPU per delivered event, above the run without streams: ${micros(extra, delivered)}`);
  for (const client of clients) client.close();
} finally {
  await Promise.all(processes.map((process) => process.stop()));
  await redis.stop();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}
