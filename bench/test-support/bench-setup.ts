import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../tests/test-support/servers.ts";

/** Median of a sample (the benches report medians over rounds: this machine's speed drifts). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A configuration file with one plain-HTTP endpoint on a free loopback port (TLS would blur ratios). */
/** `sections`: further top-level configuration (e.g. security). */
export async function plainHttpConfig(
  dir: string,
  sections: Record<string, unknown> = {},
): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `http-${port}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      ...sections,
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
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
