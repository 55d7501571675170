/**
 * Issue 2 benchmark: GET and PATCH of one Property's $value on a submodel with 100,000 elements vs.
 * the same request on a 10-element submodel, in distributed mode (redis-server, nats-server,
 * model-store and one http-gateway as real processes). The Redis layout stores one record per
 * element, so the big submodel should run at ≥ 0.8× the small one's rate.
 *
 * Run: npm run bench -- value-access-scaling     (options: BENCH_SECONDS=3 BENCH_ROUNDS=3)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { b64 } from "../tests/test-support/http-client.ts";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport } from "../tests/test-support/system.ts";
import { generatedSubmodel as submodel } from "./test-support/generated-model.ts";
import { formatResult, type LoadResult, runLoad } from "./test-support/load.ts";

const BIG = Number(process.env.BENCH_BIG ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-"));
const modelFile = join(dir, "model.json");
writeFileSync(
  modelFile,
  JSON.stringify({ submodels: [submodel("urn:bench:small", 10), submodel("urn:bench:big", BIG)] }),
);
const redis = await startRedis();
const nats = await startNats();
const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
const t0 = performance.now();
const store = await startTwinport({ role: "model-store", cwd: dir, args: ["-m", modelFile], env, timeoutMs: 300_000 });
console.log(`model-store loaded ${BIG + 10} elements in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const port = await freePort();
writeFileSync(
  join(dir, "gw.json"),
  JSON.stringify({
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
  }),
);
const gateway = await startTwinport({ role: "http-gateway", cwd: dir, args: ["-c", "gw.json"], env });
const base = `http://127.0.0.1:${port}/api/v3.0/submodels`;
// The property in the middle of the big submodel, so nothing benefits from being first.
const target = {
  small: `${base}/${b64("urn:bench:small")}/submodel-elements/P5/$value`,
  big: `${base}/${b64("urn:bench:big")}/submodel-elements/P${Math.floor(BIG / 2)}/$value`,
};

const results: Record<string, LoadResult[]> = {};
const record = (r: LoadResult) => {
  (results[r.label] ??= []).push(r);
  console.log(formatResult(r));
};
try {
  // Warm-up, then alternate small/big in rounds so drift on a noisy machine hits both alike.
  await runLoad({ label: "warm-up", url: target.small, durationMs: 1000 });
  await runLoad({ label: "warm-up", url: target.big, durationMs: 1000 });
  for (let round = 0; round < rounds; round++) {
    for (const size of ["small", "big"] as const) {
      record(await runLoad({ label: `GET $value (${size})`, url: target[size], durationMs: seconds * 1000 }));
      record(
        await runLoad({
          label: `PATCH $value (${size})`,
          url: target[size],
          method: "PATCH",
          body: (i) => String(i % 1000),
          expectStatus: 204,
          durationMs: seconds * 1000,
        }),
      );
    }
  }
  const median = (label: string) => {
    const rates = results[label].map((r) => r.rate).sort((a, b) => a - b);
    return rates[Math.floor(rates.length / 2)];
  };
  console.log("\nmedian over rounds, big (100,000 elements) vs small (10 elements):");
  for (const op of ["GET", "PATCH"]) {
    const small = median(`${op} $value (small)`);
    const big = median(`${op} $value (big)`);
    const ratio = big / small;
    const errors = [...results[`${op} $value (small)`], ...results[`${op} $value (big)`]].reduce(
      (n, r) => n + r.errors,
      0,
    );
    if (errors > 0) console.log(`${op}: ${errors} requests failed — the rates below are not valid`);
    console.log(
      `${op.padEnd(6)} small ${small.toFixed(0)} req/s, big ${big.toFixed(0)} req/s, ratio ${ratio.toFixed(2)} ${ratio >= 0.8 ? "(≥ 0.8: ok)" : "(< 0.8: FAILS the target)"}`,
    );
  }
} finally {
  await gateway.stop();
  await store.stop();
  await nats.stop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
