/**
 * Where a distributed write's CPU goes: the write-path bench's distributed variant with
 * `--cpu-prof` on the model-store and the http-gateway, then the top functions of each profile by
 * self time. A tool for the write-path work (issue 12), not a benchmark: it prints no ratios.
 *
 * Run: node --import tsx bench/profile-write.ts [one|spread]   (PROFILE_SECONDS=5)
 * The processes it profiles run the compiled dist/ (npm run build first); `source
 * scripts/source-mode.sh` before it profiles the TypeScript sources through tsx instead (ADR 0021).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { b64 } from "../tests/test-support/http-client.ts";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport } from "../tests/test-support/system.ts";
import { generatedSubmodel } from "./test-support/generated-model.ts";
import { cpuPerRequest, runWrk } from "./test-support/wrk.ts";

const seconds = Number(process.env.PROFILE_SECONDS ?? 5);
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 16);
const spread = process.argv[2] === "spread";
const dir = mkdtempSync(join(tmpdir(), "twinport-profile-"));
const SMS = Array.from({ length: 10 }, (_, i) => `urn:profile:sm${i}`);
const modelFile = join(dir, "model.json");
writeFileSync(modelFile, JSON.stringify({ submodels: SMS.map((id) => generatedSubmodel(id, 10)) }));
const paths = spread
  ? SMS.flatMap((sm) => Array.from({ length: 10 }, (_, i) => `/submodels/${b64(sm)}/submodel-elements/P${i}/$value`))
  : [`/submodels/${b64(SMS[0]!)}/submodel-elements/P5/$value`];

const redis = await startRedis({ appendOnly: true });
const nats = await startNats();
const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
const profDir = join(dir, "prof");
const store = await startTwinport({
  role: "model-store",
  cwd: mkdtempSync(join(dir, "s-")),
  args: ["-m", modelFile],
  env,
  nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profDir}/store`],
});
const port = await freePort();
const config = join(dir, "http.json");
writeFileSync(
  config,
  JSON.stringify({
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
  }),
);
const gateway = await startTwinport({
  role: "http-gateway",
  cwd: mkdtempSync(join(dir, "g-")),
  args: ["-c", config],
  env,
  nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profDir}/gateway`],
});
try {
  const base = `http://127.0.0.1:${port}/api/v3.0`;
  await runWrk({ base, paths, method: "PATCH", seconds: 1, connections, dir }, {});
  const r = await runWrk(
    { base, paths, method: "PATCH", seconds, connections, dir },
    {
      "http-gateway": gateway.child.pid!,
      "model-store": store.child.pid!,
      "nats-server": nats.pid,
      "redis-server": redis.pid,
    },
  );
  console.log(
    `${Math.round(r.rate)} req/s, p50 ${r.p50Ms} ms, ${r.errors} errors; ${cpuPerRequest(r.cpuMs, r.requests).line}`,
  );
} finally {
  await gateway.stop();
  await store.stop();
  await nats.stop();
  await redis.stop();
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
for (const role of ["store", "gateway"]) {
  const folder = join(profDir, role);
  const file = readdirSync(folder).find((f) => f.endsWith(".cpuprofile"));
  if (!file) continue;
  const profile = JSON.parse(readFileSync(join(folder, file), "utf8")) as { nodes: Node[]; samples: number[] };
  const self = new Map<string, number>();
  const total = profile.samples.length;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const id of profile.samples) {
    const n = byId.get(id)!;
    const name = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(libs|services)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + 1);
  }
  console.log(`\n== ${role}: top self time (${total} samples)`);
  for (const [name, count] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`${((count * 100) / total).toFixed(1).padStart(5)}%  ${name}`);
  console.log(`profile: ${join(folder, file)}`);
}
