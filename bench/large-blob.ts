/**
 * A Blob of tens of megabytes written over HTTPS, as a firmware or CAD upload would be (ADR 0061):
 * POST, PUT and PATCH `$value` of one Blob, in embedded and distributed mode (redis-server as shipped:
 * AOF, `appendfsync always`). For each write: its status and time, the longest wait of a small GET
 * sent every 10 ms beside it (what every other client saw meanwhile), and the CPU each server
 * process spent on it. Not a rate: one write at a time, so no ratio.
 *
 * Run: npm run bench -- large-blob   (BENCH_MB=30 BENCH_MODES=embedded,distributed BENCH_ROUNDS=2)
 */
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";
import { blobElementJson } from "../tests/test-support/blob-element.ts";
import { b64, createHttpClient } from "../tests/test-support/http-client.ts";
import { findCertificate, type Mode, startSystem } from "../tests/test-support/system.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";

const MB = Number(process.env.BENCH_MB ?? 30);
const MODES = (process.env.BENCH_MODES ?? "embedded,distributed").split(",") as Mode[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SUBMODEL = "https://example.org/submodels/identification-1";
const elements = `/submodels/${b64(SUBMODEL)}/submodel-elements`;
const json = { "content-type": "application/json" };

for (const mode of MODES) {
  const sut = await startSystem(mode, { gateways: 1, redisAppendOnly: true });
  const [writer] = sut.clients;
  // A client of its own for the small GETs: they must not queue behind the write on a socket.
  const gateway = sut.processes.find((p) => p.role !== "model-store")!;
  const prober = createHttpClient(writer!.baseUrl, { ca: findCertificate(dirname(gateway.logFile)) });
  const pids = Object.fromEntries(sut.processes.map((p) => [p.role, p.child.pid!]));
  if (sut.redis) pids["redis-server"] = sut.redis.pid;
  if (sut.nats) pids["nats-server"] = sut.nats.pid;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const blob = (bytes: Buffer) => blobElementJson("LargeImage", bytes);
      const writes: [string, string, string][] = [
        ["POST", elements, blob(randomBytes(MB * 1024 * 1024))],
        ["PUT", `${elements}/LargeImage`, blob(randomBytes(MB * 1024 * 1024))],
        [
          "PATCH $value",
          `${elements}/LargeImage/$value`,
          JSON.stringify({
            contentType: "application/x-image",
            value: randomBytes(MB * 1024 * 1024).toString("base64"),
          }),
        ],
      ];
      for (const [label, path, body] of writes) {
        let probing = true;
        let longestWait = 0;
        let probes = 0;
        const probe = (async () => {
          while (probing) {
            const started = performance.now();
            await prober.get(`${elements}?limit=1`);
            longestWait = Math.max(longestWait, performance.now() - started);
            probes++;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        })();
        const cpuBefore = Object.fromEntries(Object.entries(pids).map(([role, pid]) => [role, processCpuMs(pid)]));
        const started = performance.now();
        const res = await writer!.request(label.split(" ")[0]!, path, { body, headers: json });
        const ms = performance.now() - started;
        probing = false;
        await probe;
        const cpu = Object.entries(pids)
          .map(([role, pid]) => `${role} ${Math.round(processCpuMs(pid) - cpuBefore[role]!)} ms`)
          .join(", ");
        console.log(
          `${mode} round ${round}: ${label} of a ${MB} MB Blob (${(body.length / 1e6).toFixed(1)} MB JSON): ` +
            `${res.status} in ${Math.round(ms)} ms; longest GET beside it ${Math.round(longestWait)} ms (${probes} GETs); CPU ${cpu}`,
        );
      }
      await writer!.request("DELETE", `${elements}/LargeImage`);
    }
  } finally {
    prober.close();
    writer!.close();
    await sut.stop();
  }
}
