/**
 * Issue 13 benchmark: what checking a bearer token costs per request, on GET $value, driven by wrk
 * with CPU per request per process beside every rate. Target: ≤ 10% (rate with a token ≥ 0.9× the
 * rate without one, on the same server).
 *
 * The tokens come from a real OpenID provider (oidc-provider on loopback, client-credentials grant),
 * one signed RS256 and one ES256. Twinport runs with a security section whose rules let both the
 * token's role and anonymous callers read everything, so the variants differ only in authentication:
 * "anonymous" (no Authorization header), "RS256 token", "ES256 token"; the issuer's keys are cached
 * after the first request (the cost measured is the signature and claim checks of every request).
 * Embedded and distributed (model-store + http-gateway over NATS and Redis). Plain HTTP, so TLS
 * cost does not blur the comparison. Ratios are taken within each round and their median reported.
 *
 * Run: npm run bench -- token-validation    (BENCH_SECONDS=3 BENCH_ROUNDS=3 BENCH_CONNECTIONS=16 BENCH_ONLY=embedded)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { b64, createHttpClient } from "../tests/test-support/http-client.ts";
import { signingKeys, startOpenIdProvider, TWINPORT_AUDIENCE } from "../tests/test-support/openid-provider.ts";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { median } from "./test-support/bench-setup.ts";
import { generatedSubmodel } from "./test-support/generated-model.ts";
import { cpuPerRequest, runWrk, type WrkResult } from "./test-support/wrk.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const only = process.env.BENCH_ONLY?.split(",");

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-token-"));
const SUBMODEL = "urn:bench:token:sm";
const modelFile = join(dir, "model.json");
writeFileSync(modelFile, JSON.stringify({ submodels: [generatedSubmodel(SUBMODEL, 10)] }));
const valuePath = `/submodels/${b64(SUBMODEL)}/submodel-elements/P5/$value`;

/** A configuration with one plain-HTTP endpoint and the security section (same file for every role). */
async function securedConfig(issuer: string): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `config-${port}.json`);
  const security = {
    authentication: { bearer: { issuer, audience: TWINPORT_AUDIENCE } },
    rules: [{ subjects: [{ role: "bench-reader" }, { anonymous: true }], rights: ["READ"], objects: [{ all: true }] }],
  };
  writeFileSync(
    file,
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
      security,
    }),
  );
  return { file, port };
}

interface Setup {
  name: string;
  base: string;
  pids: Record<string, number>;
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  const provider = await startOpenIdProvider({
    keys: await signingKeys("bench"),
    clients: [
      { id: "bench-rs", alg: "RS256", claims: { roles: ["bench-reader"] } },
      { id: "bench-es", alg: "ES256", claims: { roles: ["bench-reader"] } },
    ],
  });
  servers.push(provider);
  const tokens = { "RS256 token": await provider.token("bench-rs"), "ES256 token": await provider.token("bench-es") };

  const setups: Setup[] = [];
  if (!only || only.includes("embedded")) {
    const config = await securedConfig(provider.issuer);
    const embedded = await startTwinport({
      cwd: mkdtempSync(join(dir, "embedded-")),
      args: ["-c", config.file, "-m", modelFile, "--endpoint", "http"],
    });
    processes.push(embedded);
    setups.push({
      name: "embedded",
      base: `http://127.0.0.1:${config.port}/api/v3.0`,
      pids: { twinport: embedded.child.pid! },
    });
  }
  if (!only || only.includes("distributed")) {
    const redis = await startRedis();
    const nats = await startNats();
    servers.push(redis, nats);
    const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
    const config = await securedConfig(provider.issuer);
    const store = await startTwinport({
      role: "model-store",
      cwd: mkdtempSync(join(dir, "store-")),
      args: ["-c", config.file, "-m", modelFile],
      env,
    });
    processes.push(store);
    const gateway = await startTwinport({
      role: "http-gateway",
      cwd: mkdtempSync(join(dir, "gw-")),
      args: ["-c", config.file],
      env,
    });
    processes.push(gateway);
    setups.push({
      name: "distributed",
      base: `http://127.0.0.1:${config.port}/api/v3.0`,
      pids: {
        "http-gateway": gateway.child.pid!,
        "model-store": store.child.pid!,
        "nats-server": nats.pid,
        "redis-server": redis.pid,
      },
    });
  }

  const variants: { name: string; headers: Record<string, string> }[] = [
    { name: "anonymous", headers: {} },
    ...Object.entries(tokens).map(([name, token]) => ({ name, headers: { Authorization: `Bearer ${token}` } })),
  ];
  for (const setup of setups) {
    // Every variant answers 200 before it is measured (a run of 401s would flatter the token), and
    // the first token request fetches the issuer's keys, which stay cached from then on.
    const client = createHttpClient(setup.base);
    for (const variant of variants) {
      const response = await client.get(valuePath, variant.headers);
      if (response.status !== 200)
        throw new Error(`${setup.name} ${variant.name}: ${response.status} ${response.text}`);
    }
    client.close();
    await runWrk({ base: setup.base, paths: [valuePath], seconds: 1, connections, dir }, {});
  }

  const results = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const setup of setups) {
      for (const variant of variants) {
        const r = await runWrk(
          { base: setup.base, paths: [valuePath], seconds, connections, dir, headers: variant.headers },
          setup.pids,
        );
        const key = `${setup.name}|${variant.name}`;
        (results.get(key) ?? results.set(key, []).get(key)!).push(r);
        console.log(
          `round ${round} ${`${setup.name}: GET $value, ${variant.name}`.padEnd(48)} ${String(Math.round(r.rate)).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms${r.errors ? `  ${r.errors} ERRORS` : ""}`,
        );
        console.log(`        ${cpuPerRequest(r.cpuMs, r.requests).line}`);
      }
    }
  }

  console.log(
    `\nwrk -t1 -c${connections} -d${seconds}s; median of ${rounds} rounds; ratios to "anonymous" on the same server, taken per round (target ≥ 0.90×):`,
  );
  for (const setup of setups) {
    const base = results.get(`${setup.name}|anonymous`)!;
    for (const variant of variants) {
      const mine = results.get(`${setup.name}|${variant.name}`)!;
      const ratio = median(mine.map((r, i) => r.rate / base[i]!.rate));
      const perProcess = Object.keys(mine[0]!.cpuMs)
        .filter((name) => name !== "wrk")
        .map(
          (name) => `${name} ${Math.round(median(mine.map((r) => (r.cpuMs[name]! * 1000) / Math.max(r.requests, 1))))}`,
        )
        .join(", ");
      const server = median(mine.map((r) => cpuPerRequest(r.cpuMs, r.requests).serverUs));
      const errors = mine.reduce((n, r) => n + r.errors, 0);
      console.log(
        `  ${`${setup.name}, ${variant.name}`.padEnd(28)} ${ratio.toFixed(2)}×  ${String(Math.round(median(mine.map((r) => r.rate)))).padStart(6)} req/s  p50 ${median(mine.map((r) => r.p50Ms)).toFixed(2)} ms  CPU µs/request: ${perProcess}; server total ${Math.round(server)}${errors ? `  ${errors} ERRORS: not valid` : ""}`,
      );
    }
  }
} finally {
  for (const p of processes.reverse()) await p.stop();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
