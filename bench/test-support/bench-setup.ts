import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../tests/test-support/servers.ts";

/**
 * How this machine's idle cores wait, printed beside the figures: it decides what a wake-up costs.
 * A guest whose idle vCPU halts at once (cpuidle haltpoll with `guest_halt_poll_ns` 0, as on the
 * machines these benches ran on) makes every message or answer to a sleeping process an
 * inter-processor interrupt and a VM exit; with halt polling the same PATCH cost ~30 % less CPU
 * (docs/benchmarks.md, "What a wake-up costs"). Figures from machines that idle differently do
 * not compare.
 */
export function idleLine(): string {
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8").trim();
    } catch {
      return undefined;
    }
  };
  const driver = read("/sys/devices/system/cpu/cpuidle/current_driver") ?? "unknown";
  const pollNs = read("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
  return `cpuidle ${driver}${pollNs === undefined ? "" : `, guest_halt_poll_ns ${pollNs}`}`;
}

/** An OPC UA endpoint on a free loopback port, for `plainHttpConfig`'s further endpoints. */
export async function loopbackOpcUaEndpoint(): Promise<Record<string, unknown>> {
  return {
    "@class": "endpoint.opcua.OpcUaEndpoint",
    tcpPort: await freePort(),
    host: "127.0.0.1",
    hostname: "127.0.0.1",
  };
}

/** Median of a sample (the benches report medians over rounds: this machine's speed drifts). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A configuration file with one plain-HTTP endpoint on a free loopback port (TLS would blur ratios).
 * `sections`: further top-level configuration (e.g. security); `endpoints`: further endpoints beside HTTP.
 */
export async function plainHttpConfig(
  dir: string,
  sections: Record<string, unknown> = {},
  endpoints: Record<string, unknown>[] = [],
): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `http-${port}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      ...sections,
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }, ...endpoints],
    }),
  );
  return { file, port };
}

/** The bare Hono baseline (support/bare-hono-server.ts) in a process of its own, answering these bytes. */
export async function startBareHono(
  dir: string,
  valueBody: string,
  submodelBody: string,
): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  writeFileSync(join(dir, "value.json"), valueBody);
  writeFileSync(join(dir, "submodel.json"), submodelBody);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      new URL("./bare-hono-server.ts", import.meta.url).pathname,
      String(port),
      join(dir, "value.json"),
      join(dir, "submodel.json"),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`bare hono server exited with ${code}`)));
  });
  return {
    base: `http://127.0.0.1:${port}/api/v3.0`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
