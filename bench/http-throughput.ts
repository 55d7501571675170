/**
 * Issue 3 benchmark: Twinport's HTTP API against a bare Hono handler answering the same bytes, with
 * the same load tool in the same run (only ratios between variants mean anything on this machine).
 *
 * Requests: GET $value of one Property, GET a whole 1,000-element submodel, PATCH $value.
 * Variants: bare hono (@hono/node-server, handler returns the captured response body), Twinport
 * embedded (one process), Twinport distributed (redis-server, nats-server, one model-store, one
 * http-gateway as processes), and the same with the gateway's read cache off (ADR 0014). Plain
 * HTTP everywhere, so TLS cost does not blur the comparison. All run side by side; the variants of
 * a request kind are measured back to back in each round, and ratios are medians over the rounds.
 *
 * Run: npm run bench -- http-throughput    (BENCH_SECONDS=3 BENCH_ROUNDS=3 BENCH_CONCURRENCY=16)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { b64, createHttpClient } from "../tests/test-support/http-client.ts";
import { startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { median, plainHttpConfig, startBareHono } from "./test-support/bench-setup.ts";
import { generatedSubmodel as submodel } from "./test-support/generated-model.ts";
import { type LoadOptions, runLoad } from "./test-support/load.ts";
import { cpuDuring, formatCpuPerRequest } from "./test-support/process-cpu.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const SMALL = "urn:bench:http:small";
const LARGE = "urn:bench:http:large";

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-http-"));
const modelFile = join(dir, "model.json");
writeFileSync(modelFile, JSON.stringify({ submodels: [submodel(SMALL, 10), submodel(LARGE, 1000)] }));
const paths = {
  value: `/submodels/${b64(SMALL)}/submodel-elements/P5/$value`,
  submodel: `/submodels/${b64(LARGE)}`,
};

interface Variant {
  name: string;
  base: string;
  /** Processes whose CPU counts for this variant (the load tool is added). */
  pids: Record<string, number>;
}

interface Sample {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU of all the variant's processes and the load tool, per request (µs). */
  cpuUs: number;
  cpuLine: string;
}

const kinds = [
  { name: "GET $value", path: paths.value },
  { name: "GET submodel (1,000 elements)", path: paths.submodel },
  { name: "PATCH $value", path: paths.value, patch: true },
];

async function sample(variant: Variant, kind: (typeof kinds)[number]): Promise<Sample> {
  const options: LoadOptions = kind.patch
    ? {
        label: kind.name,
        url: variant.base + kind.path,
        method: "PATCH",
        body: (i) => String(i % 1000),
        expectStatus: 204,
        durationMs: seconds * 1000,
        concurrency,
      }
    : { label: kind.name, url: variant.base + kind.path, durationMs: seconds * 1000, concurrency };
  const { result, cpuMs } = await cpuDuring({ ...variant.pids, "load tool": process.pid }, () => runLoad(options));
  const cpuUs = (Object.values(cpuMs).reduce((a, b) => a + b, 0) * 1000) / Math.max(result.requests, 1);
  return {
    rate: result.rate,
    p50: result.p50,
    p99: result.p99,
    errors: result.errors,
    cpuUs,
    cpuLine: formatCpuPerRequest(cpuMs, result.requests),
  };
}

/**
 * Rounds × kinds × variants, the variants of one kind measured back to back: this machine's speed
 * drifts by tens of percent within minutes, so each ratio is taken within a round and the median
 * of the rounds' ratios is reported.
 */
async function measureAll(variants: Variant[]): Promise<void> {
  const samples = new Map<string, Sample[]>();
  const at = (kind: string, variant: string) =>
    samples.get(`${kind}|${variant}`) ?? (samples.set(`${kind}|${variant}`, []), samples.get(`${kind}|${variant}`)!);
  for (const variant of variants)
    await runLoad({ label: "warm-up", url: variant.base + paths.value, durationMs: 1000, concurrency });
  for (let round = 1; round <= rounds; round++) {
    for (const kind of kinds) {
      for (const variant of variants) {
        const s = await sample(variant, kind);
        at(kind.name, variant.name).push(s);
        console.log(
          `round ${round} ${`${variant.name}: ${kind.name}`.padEnd(58)} ${String(Math.round(s.rate)).padStart(6)} req/s  p50 ${s.p50.toFixed(2).padStart(6)} ms  p99 ${s.p99.toFixed(2).padStart(7)} ms${s.errors ? `  ${s.errors} errors` : ""}`,
        );
        console.log(`        ${s.cpuLine}`);
      }
    }
  }
  const [bare, ...others] = variants;
  console.log(`\nmedian of ${rounds} rounds (rate, latency) and of the per-round ratios to the bare hono handler:`);
  for (const kind of kinds) {
    const base = at(kind.name, bare!.name);
    console.log(
      `${kind.name}: bare hono ${Math.round(median(base.map((s) => s.rate)))} req/s, p50 ${median(base.map((s) => s.p50)).toFixed(2)} ms, p99 ${median(base.map((s) => s.p99)).toFixed(2)} ms`,
    );
    for (const variant of others) {
      const mine = at(kind.name, variant.name);
      const ratio = median(mine.map((s, i) => s.rate / base[i]!.rate));
      const cpuRatio = median(mine.map((s, i) => base[i]!.cpuUs / s.cpuUs));
      console.log(
        `  ${variant.name.padEnd(36)} ${ratio.toFixed(2)}×  (CPU ratio ${cpuRatio.toFixed(2)}×)  ${Math.round(median(mine.map((s) => s.rate)))} req/s, p50 ${median(mine.map((s) => s.p50)).toFixed(2)} ms, p99 ${median(mine.map((s) => s.p99)).toFixed(2)} ms`,
      );
    }
  }
  console.log("targets (issue 3): GET $value embedded ≥ 0.7×, distributed ≥ 0.3×");
  const errors = [...samples.values()].flat().reduce((n, s) => n + s.errors, 0);
  if (errors > 0) console.log(`${errors} requests failed: the figures above are not valid`);
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  // Twinport embedded first: it also provides the exact bytes the bare handler will answer with.
  const embeddedHttp = await plainHttpConfig(dir);
  processes.push(
    await startTwinport({ cwd: dir, args: ["-c", embeddedHttp.file, "-m", modelFile, "--endpoint", "http"] }),
  );
  const embeddedBase = `http://127.0.0.1:${embeddedHttp.port}/api/v3.0`;
  const client = createHttpClient(embeddedBase);
  const valueBody = (await client.get(paths.value)).text;
  const submodelBody = (await client.get(paths.submodel)).text;
  client.close();

  const bareHono = await startBareHono(dir, valueBody, submodelBody);
  servers.push(bareHono);

  const bare: Variant = { name: "bare hono", base: bareHono.base, pids: { "bare hono": bareHono.pid } };
  const embedded: Variant = { name: "embedded", base: embeddedBase, pids: { twinport: processes[0]!.child.pid! } };

  const redis = await startRedis();
  const nats = await startNats();
  servers.push(redis, nats);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  const modelStore = await startTwinport({ role: "model-store", cwd: dir, args: ["-m", modelFile], env });
  processes.push(modelStore);
  const gatewayHttp = await plainHttpConfig(dir);
  const gateway = await startTwinport({ role: "http-gateway", cwd: dir, args: ["-c", gatewayHttp.file], env });
  processes.push(gateway);
  // The same gateway without its read cache (docs/adr/0014): every read crosses NATS, the
  // model-store and Redis.
  const uncachedHttp = await plainHttpConfig(dir);
  const uncached = await startTwinport({
    role: "http-gateway",
    cwd: mkdtempSync(join(dir, "uncached-")),
    args: ["-c", uncachedHttp.file],
    env: { ...env, TWINPORT_MESSAGEBUS_READCACHEMAXAGEMS: "0" },
  });
  processes.push(uncached);
  const backend = { "model-store": modelStore.child.pid!, "nats-server": nats.pid, "redis-server": redis.pid };
  await measureAll([
    bare,
    embedded,
    {
      name: "distributed",
      base: `http://127.0.0.1:${gatewayHttp.port}/api/v3.0`,
      pids: { "http-gateway": gateway.child.pid!, ...backend },
    },
    {
      name: "distributed, read cache off",
      base: `http://127.0.0.1:${uncachedHttp.port}/api/v3.0`,
      pids: { "http-gateway": uncached.child.pid!, ...backend },
    },
  ]);
} finally {
  for (const p of processes) await p.stop();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
