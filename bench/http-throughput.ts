/**
 * Issue 3 benchmark: Twinport's HTTP API against a bare Hono handler answering the same bytes, with
 * the same load tool in the same run (only ratios between variants mean anything on this machine).
 *
 * Requests: GET $value of one Property, GET a whole 1,000-element submodel, PATCH $value.
 * Variants: bare hono (@hono/node-server, handler returns the captured response body), Twinport
 * embedded (one process), Twinport distributed (redis-server, nats-server, one model-store, one
 * http-gateway as processes). Plain HTTP everywhere, so TLS cost does not blur the comparison.
 *
 * Run: npm run bench -- http-throughput    (BENCH_SECONDS=4 BENCH_CONCURRENCY=16)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { b64, createHttpClient } from "../tests/support/http-client.ts";
import { freePort, startNats, startRedis } from "../tests/support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/support/system.ts";
import { formatResult, runLoad, type LoadResult, type LoadOptions } from "./support/load.ts";
import { cpuDuring, formatCpuPerRequest } from "./support/process-cpu.ts";
import { generatedSubmodel as submodel } from "./support/generated-model.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SMALL = "urn:bench:http:small";
const LARGE = "urn:bench:http:large";


const dir = mkdtempSync(join(tmpdir(), "twinport-bench-http-"));
const modelFile = join(dir, "model.json");
writeFileSync(modelFile, JSON.stringify({ submodels: [submodel(SMALL, 10), submodel(LARGE, 1000)] }));
const paths = {
  value: `/submodels/${b64(SMALL)}/submodel-elements/P5/$value`,
  submodel: `/submodels/${b64(LARGE)}`,
};

async function httpConfig(): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `http-${port}.json`);
  writeFileSync(file, JSON.stringify({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }] }));
  return { file, port };
}

/** Each request kind under load, with the CPU every process of the variant spent per request. */
async function measure(label: string, base: string, pids: Record<string, number>): Promise<(LoadResult & { cpuUs: number })[]> {
  const results: (LoadResult & { cpuUs: number })[] = [];
  const cpuLines: string[] = [];
  const run = async (options: LoadOptions) => {
    const { result, cpuMs } = await cpuDuring({ ...pids, "load tool": process.pid }, () => runLoad(options));
    results.push({ ...result, cpuUs: (Object.values(cpuMs).reduce((a, b) => a + b, 0) * 1000) / Math.max(result.requests, 1) });
    cpuLines.push(`${result.label}: ${formatCpuPerRequest(cpuMs, result.requests)}`);
  };
  await runLoad({ label: "warm-up", url: base + paths.value, durationMs: 1000, concurrency });
  await run({ label: `${label}: GET $value`, url: base + paths.value, durationMs: seconds * 1000, concurrency });
  await run({ label: `${label}: GET submodel (1,000 elements)`, url: base + paths.submodel, durationMs: seconds * 1000, concurrency });
  await run({ label: `${label}: PATCH $value`, url: base + paths.value, method: "PATCH", body: (i) => String(i % 1000), expectStatus: 204, durationMs: seconds * 1000, concurrency });
  for (const r of results) console.log(formatResult(r));
  for (const line of cpuLines) console.log(`  ${line}`);
  return results;
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  // Twinport embedded first: it also provides the exact bytes the bare handler will answer with.
  const embeddedHttp = await httpConfig();
  processes.push(await startTwinport({ cwd: dir, args: ["-c", embeddedHttp.file, "-m", modelFile, "--endpoint", "http"] }));
  const embeddedBase = `http://127.0.0.1:${embeddedHttp.port}/api/v3.0`;
  const client = createHttpClient(embeddedBase);
  const valueBody = (await client.get(paths.value)).text;
  const submodelBody = (await client.get(paths.submodel)).text;
  client.close();

  writeFileSync(join(dir, "value.json"), valueBody);
  writeFileSync(join(dir, "submodel.json"), submodelBody);
  const barePort = await freePort();
  const bareChild = spawn(process.execPath, ["--import", "tsx", new URL("./support/bare-hono-server.ts", import.meta.url).pathname, String(barePort), join(dir, "value.json"), join(dir, "submodel.json")], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    bareChild.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    bareChild.once("exit", (code) => reject(new Error(`bare hono server exited with ${code}`)));
  });
  servers.push({ stop: () => new Promise<void>((resolve) => { bareChild.once("exit", () => resolve()); bareChild.kill("SIGTERM"); }) });

  const bareResults = await measure("bare hono", `http://127.0.0.1:${barePort}/api/v3.0`, { "bare hono": bareChild.pid! });
  const embeddedResults = await measure("embedded", embeddedBase, { twinport: processes[0]!.child.pid! });
  await processes.pop()!.stop();

  const redis = await startRedis();
  const nats = await startNats();
  servers.push(redis, nats);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  processes.push(await startTwinport({ role: "model-store", cwd: dir, args: ["-m", modelFile], env }));
  const gatewayHttp = await httpConfig();
  processes.push(await startTwinport({ role: "http-gateway", cwd: dir, args: ["-c", gatewayHttp.file], env }));
  const distributedPids = { "http-gateway": processes[1]!.child.pid!, "model-store": processes[0]!.child.pid!, "nats-server": nats.pid, "redis-server": redis.pid };
  const distributedResults = await measure("distributed", `http://127.0.0.1:${gatewayHttp.port}/api/v3.0`, distributedPids);

  console.log("\nthroughput as a ratio of the bare hono handler (same load tool, same run):");
  for (let i = 0; i < bareResults.length; i++) {
    const name = bareResults[i].label.replace("bare hono: ", "");
    const e = embeddedResults[i].rate / bareResults[i].rate;
    const d = distributedResults[i].rate / bareResults[i].rate;
    console.log(`${name.padEnd(34)} embedded ${e.toFixed(2)}×   distributed ${d.toFixed(2)}×`);
  }
  // Rates swing with whatever else runs on the machine; CPU per request (all processes of a variant,
  // load tool included) does much less, and on a CPU-bound machine its ratio predicts the rates' ratio.
  console.log("\nCPU per request of the bare handler (load tool included) as a ratio of each variant's:");
  for (let i = 0; i < bareResults.length; i++) {
    const name = bareResults[i].label.replace("bare hono: ", "");
    const e = bareResults[i].cpuUs / embeddedResults[i].cpuUs;
    const d = bareResults[i].cpuUs / distributedResults[i].cpuUs;
    console.log(`${name.padEnd(34)} embedded ${e.toFixed(2)}×   distributed ${d.toFixed(2)}×`);
  }
  console.log("targets (issue 3): GET $value embedded ≥ 0.7×, distributed ≥ 0.3×");
  const errors = [...bareResults, ...embeddedResults, ...distributedResults].reduce((n, r) => n + r.errors, 0);
  if (errors > 0) console.log(`${errors} requests failed: the figures above are not valid`);
} finally {
  for (const p of processes) await p.stop();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
