/**
 * A closed-loop HTTP load generator: `concurrency` keep-alive connections each sending the next
 * request as soon as the previous one answered, for `durationMs`. The same tool measures every
 * variant of a benchmark in one run, so only ratios between them are compared.
 */
import http from "node:http";
import https from "node:https";

export interface LoadResult {
  label: string;
  requests: number;
  errors: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  label: string;
  url: string;
  method?: string;
  /** A body per request (index → body), for writes that should differ. */
  body?: (i: number) => string;
  concurrency?: number;
  durationMs?: number;
  expectStatus?: number;
  ca?: string;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const secure = url.protocol === "https:";
  const concurrency = options.concurrency ?? 16;
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: concurrency, ca: options.ca, rejectUnauthorized: false })
    : new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  let count = 0;
  const start = performance.now();
  const until = start + (options.durationMs ?? 3000);
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const body = options.body?.(i);
      const t0 = performance.now();
      const req = (secure ? https : http).request(
        url,
        {
          method: options.method ?? "GET",
          agent,
          headers: body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {},
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            latencies.push(performance.now() - t0);
            if (res.statusCode !== (options.expectStatus ?? 200)) errors++;
            resolve();
          });
        },
      );
      req.on("error", () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) await one(count++);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return {
    label: options.label,
    requests: latencies.length,
    errors,
    seconds,
    rate: latencies.length / seconds,
    p50: pct(50),
    p99: pct(99),
  };
}

export function formatResult(r: LoadResult): string {
  return `${r.label.padEnd(44)} ${r.rate.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms  (${r.requests} requests, ${r.errors} errors)`;
}
