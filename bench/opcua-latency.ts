/**
 * Issue 5 benchmark: latency from an HTTP `PATCH …/$value` to the OPC UA data-change notification
 * of a subscriber (publishing interval 5 ms), in embedded mode and in distributed mode (redis,
 * nats, model-store, http-gateway, opcua-gateway as real processes). One PATCH at a time; the clock
 * runs from sending the request to receiving the notification with the new value.
 * Target: p99 ≤ 20 ms in distributed mode.
 *
 * Run: npm run bench -- opcua-latency     (options: BENCH_SAMPLES=500 BENCH_ROUNDS=3 BENCH_MODES=embedded,distributed)
 */
import { b64 } from "../tests/support/http-client.ts";
import { elementNode } from "../tests/support/opcua-model.ts";
import { startOpcuaSystem } from "../tests/opcua/opcua-system.ts";
import type { Mode } from "../tests/support/system.ts";

const samples = Number(process.env.BENCH_SAMPLES ?? 500);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const modes = (process.env.BENCH_MODES ?? "embedded,distributed").split(",") as Mode[];
const SUBMODEL = "urn:bench:opcua:latency";
const model = {
  submodels: [
    {
      modelType: "Submodel",
      id: SUBMODEL,
      idShort: "Latency",
      submodelElements: Array.from({ length: 100 }, (_, i) => ({ modelType: "Property", idShort: `P${i}`, valueType: "xs:int", value: "0" })),
    },
  ],
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

for (const mode of modes) {
  const system = await startOpcuaSystem(mode, { model });
  try {
    const [opcua] = system.opcua;
    const monitor = await opcua.monitor(elementNode(SUBMODEL, "P50", "Value"));
    await monitor.waitFor(() => true, 5000, "the initial value");
    const url = `/submodels/${b64(SUBMODEL)}/submodel-elements/P50/$value`;
    const roundP99s: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const latencies: number[] = [];
      const answers: number[] = [];
      const applied: number[] = [];
      for (let i = 1; i <= samples + 20; i++) {
        const value = round * 100_000 + i;
        const startedAt = Date.now();
        const started = performance.now();
        const received = monitor.waitFor((v) => v.value.value === value, 5000, `value ${value}`);
        const response = await system.http.request("PATCH", url, { body: String(value) });
        const answered = performance.now() - started;
        if (response.status !== 204) throw new Error(`PATCH answered ${response.status}: ${response.text}`);
        const notification = await received;
        // The first 20 of a round warm up the JIT, connections and caches.
        if (i > 20) {
          latencies.push(performance.now() - started);
          answers.push(answered);
          // The gateway stamps the node when it applies the event (same machine, same clock; ms).
          applied.push((notification.sourceTimestamp?.getTime() ?? Number.NaN) - startedAt);
        }
      }
      latencies.sort((a, b) => a - b);
      answers.sort((a, b) => a - b);
      applied.sort((a, b) => a - b);
      const mean = latencies.reduce((sum, v) => sum + v, 0) / latencies.length;
      const p99 = percentile(latencies, 99);
      roundP99s.push(p99);
      console.log(
        `${mode.padEnd(11)} round ${round}: HTTP PATCH $value → OPC UA notification, ${latencies.length} samples: ` +
          `p50 ${percentile(latencies, 50).toFixed(1)} ms, p90 ${percentile(latencies, 90).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
          `max ${latencies.at(-1)!.toFixed(1)} ms, mean ${mean.toFixed(1)} ms`,
      );
      // For reading the figure above, same samples: the PATCH's own HTTP round trip (the commit path),
      // and when the gateway applied the event to the node (its source timestamp, 1 ms resolution).
      console.log(
        `${"".padEnd(11)} PATCH answered: p50 ${percentile(answers, 50).toFixed(1)} ms, p99 ${percentile(answers, 99).toFixed(1)} ms; ` +
          `node updated in the gateway: p50 ${percentile(applied, 50).toFixed(0)} ms, p99 ${percentile(applied, 99).toFixed(0)} ms`,
      );
    }
    await monitor.stop();
    // This machine's speed drifts within minutes: each round is its own p99; the median is the figure.
    const medianP99 = [...roundP99s].sort((a, b) => a - b)[Math.floor(roundP99s.length / 2)]!;
    console.log(
      `${mode.padEnd(11)} p99 per round ${roundP99s.map((p) => p.toFixed(1)).join(" / ")} ms, median ${medianP99.toFixed(1)} ms` +
        (mode === "distributed" ? (medianP99 <= 20 ? "  (≤ 20 ms: ok)" : "  (> 20 ms: misses the target)") : ""),
    );
  } finally {
    await system.stop();
  }
}
