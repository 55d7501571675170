/**
 * The heap settings of ADR 0043 (bin/heap-settings.js), seen from outside: a twinport process
 * serving OPC UA keeps its young generation at its initial size after the start-up build (V8's
 * defaults grow it to 2 × 64 MB there, which made every ~30th PATCH wait for a full GC), and an
 * operator's own heap sizing flag in NODE_OPTIONS wins. Read from the process's Prometheus metrics
 * (prom-client's nodejs_heap_space_size_total_bytes), as an operator would.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort } from "../tests/test-support/servers.ts";
import { EXAMPLE_MODEL, startTwinport } from "../tests/test-support/system.ts";
import { YOUNG_CAP_BYTES } from "./heap-settings.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts an embedded process (HTTP + OPC UA, or HTTP only; the example model), runs `load` against
 * its HTTP API if given, and returns its young generation's size in MB.
 */
async function newSpaceMb(
  nodeOptions?: string,
  options: { opcua?: boolean; load?: (api: string) => Promise<void> } = {},
): Promise<number> {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-heap-"));
  dirs.push(cwd);
  const httpPort = await freePort();
  const config = {
    core: { managementPort: 0 },
    endpoints: [
      { "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: false },
      ...(options.opcua === false
        ? []
        : [
            {
              "@class": "endpoint.opcua.OpcUaEndpoint",
              tcpPort: await freePort(),
              host: "127.0.0.1",
              hostname: "127.0.0.1",
            },
          ]),
    ],
  };
  writeFileSync(join(cwd, "config.json"), JSON.stringify(config));
  const env =
    nodeOptions === undefined ? undefined : { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${nodeOptions}` };
  const twinport = await startTwinport({
    cwd,
    args: ["-c", "config.json", "-m", EXAMPLE_MODEL],
    env,
    timeoutMs: 60_000,
  });
  try {
    await options.load?.(`http://127.0.0.1:${httpPort}/api/v3.0`);
    const metrics = await (await fetch(`${twinport.details.management as string}/metrics`)).text();
    const line = metrics
      .split("\n")
      .find((l) => l.startsWith("nodejs_heap_space_size_total_bytes{") && l.includes('space="new"'));
    assert.ok(line, `no new space size in /metrics:\n${metrics.slice(0, 2000)}`);
    return Number(line.split(" ").at(-1)) / 2 ** 20;
  } finally {
    await twinport.stop();
  }
}

test("a twinport process keeps a small young generation after building its address space", async () => {
  const mb = await newSpaceMb();
  // Initial semi-spaces of 1 MB, 2 MB in all, allowed to grow to the cap once ready (V8 alone grows it to 128 MB during the build).
  assert.ok(mb <= YOUNG_CAP_BYTES / 2 ** 20, `young generation ${mb} MB after start-up`);
});

test("an operator's own semi-space flag in NODE_OPTIONS replaces the shipped settings", async () => {
  const mb = await newSpaceMb("--max-semi-space-size=64");
  assert.ok(
    mb > YOUNG_CAP_BYTES / 2 ** 20,
    `young generation ${mb} MB: the operator's --max-semi-space-size=64 was not left to V8`,
  );
});

test("only the roles that serve OPC UA get the settings; the model-store and http-gateway keep V8's", async () => {
  const { applyHeapSettings, roleOfArguments } = await import("./heap-settings.js");
  // Refused before any flag is set, so asking changes nothing in this process.
  assert.equal(applyHeapSettings([], "", "model-store"), false);
  assert.equal(applyHeapSettings([], "", "http-gateway"), false);
  assert.equal(roleOfArguments([]), "embedded");
  assert.equal(roleOfArguments(["-c", "config.json"]), "embedded");
  assert.equal(roleOfArguments(["opcua-gateway", "-c", "x"]), "opcua-gateway");
  assert.equal(roleOfArguments(["model-store"]), "model-store");
  assert.equal(roleOfArguments(["http-gateway"]), "http-gateway");
  // A role named anywhere but first is the launcher's usage error, not a role.
  assert.equal(roleOfArguments(["-c", "model-store"]), "embedded");
});

/**
 * The load the bench of issue 12 measures (bench/embedded-patch.ts): 16 clients PATCH a Property's
 * $value as fast as they can for a few seconds; V8 grows a young generation that may grow under it.
 */
async function writes(api: string): Promise<void> {
  const path = `${api}/submodels/${Buffer.from("https://example.org/submodels/technical-data-1").toString("base64url")}/submodel-elements/MaxRotationSpeed/$value`;
  const until = Date.now() + 4000;
  let n = 0;
  const client = async () => {
    while (Date.now() < until) {
      const response = await fetch(path, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: String(n++ % 10_000),
      });
      assert.equal(response.status, 204);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, client));
}

test("an embedded process without an OPC UA endpoint gets V8's heap sizing once started; one with OPC UA keeps the cap under the same load", async () => {
  const httpOnly = await newSpaceMb(undefined, { opcua: false, load: writes });
  assert.ok(
    httpOnly > YOUNG_CAP_BYTES / 2 ** 20,
    `young generation ${httpOnly} MB after 4 s of PATCHes: still capped although no OPC UA is served`,
  );
  const withOpcUa = await newSpaceMb(undefined, { load: writes });
  assert.ok(withOpcUa <= YOUNG_CAP_BYTES / 2 ** 20, `young generation ${withOpcUa} MB with OPC UA served`);
});
