/**
 * Issue 4 benchmark: start-up load time and peak RSS for an AASX package with 100,000 submodel
 * elements (and a 1 MiB attachment), against the same model as JSON and an empty start, all in one
 * run: embedded mode (memory store) and the model-store (Redis, files in Redis).
 *
 * Load time = time to the ready line minus that of an --empty-model start, so process and
 * module start-up are not counted. Peak RSS = the process's VmHWM (Linux) once it is ready.
 *
 * Run: npm run bench -- aasx-load      (options: BENCH_ELEMENTS=100000 BENCH_ROUNDS=2)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeAasx } from "@twinport/shared";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport } from "../tests/test-support/system.ts";

const ELEMENTS = Number(process.env.BENCH_ELEMENTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PER_COLLECTION = 9;
const SUBMODELS = 10;

/** ELEMENTS elements in SUBMODELS submodels: collections of PER_COLLECTION typed properties each. */
function environment(): Record<string, unknown> {
  const perSubmodel = Math.floor(ELEMENTS / SUBMODELS);
  const collections = Math.floor(perSubmodel / (PER_COLLECTION + 1));
  const submodels = Array.from({ length: SUBMODELS }, (_, s) => ({
    modelType: "Submodel",
    id: `urn:bench:sm:${s}`,
    idShort: `Data${s}`,
    submodelElements: [
      ...(s === 0
        ? [{ modelType: "File", idShort: "Manual", contentType: "application/pdf", value: "/aasx/files/manual.pdf" }]
        : []),
      ...Array.from({ length: collections }, (_, c) => ({
        modelType: "SubmodelElementCollection",
        idShort: `Group${c}`,
        value: Array.from({ length: PER_COLLECTION }, (_, p) => ({
          modelType: "Property",
          idShort: `Value${p}`,
          valueType: p % 2 === 0 ? "xs:double" : "xs:string",
          value: p % 2 === 0 ? String(c * 0.5 + p) : `text ${c}-${p}`,
          semanticId: {
            type: "ExternalReference",
            keys: [{ type: "GlobalReference", value: `urn:bench:concept:${p}` }],
          },
        })),
      })),
    ],
  }));
  return {
    assetAdministrationShells: [
      {
        modelType: "AssetAdministrationShell",
        id: "urn:bench:aas",
        idShort: "Bench",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:bench:asset" },
        submodels: submodels.map((sm) => ({ type: "ModelReference", keys: [{ type: "Submodel", value: sm.id }] })),
      },
    ],
    submodels,
  };
}

function countElements(env: Record<string, unknown>): number {
  let n = 0;
  const visit = (list: unknown) => {
    for (const e of (list ?? []) as Record<string, unknown>[]) {
      n++;
      visit(e.value && Array.isArray(e.value) ? e.value : undefined);
    }
  };
  for (const sm of env.submodels as Record<string, unknown>[]) visit(sm.submodelElements);
  return n;
}

/** Peak resident set of a process, in MiB (Linux /proc). */
function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmHWM:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? NaN) / 1024;
}

interface Sample {
  seconds: number;
  peakMiB: number;
}

async function startOnce(
  args: string[],
  role: "embedded" | "model-store",
  env: Record<string, string>,
  cwd: string,
): Promise<Sample> {
  const t0 = performance.now();
  const proc = await startTwinport({ role, cwd, args, env, timeoutMs: 600_000 });
  const seconds = (performance.now() - t0) / 1000;
  const peakMiB = peakRssMiB(proc.child.pid!);
  await proc.stop();
  return { seconds, peakMiB };
}

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-aasx-"));
const env = environment();
const elements = countElements(env);
const aasxFile = join(dir, "bench.aasx");
const jsonFile = join(dir, "bench.json");
const t0 = performance.now();
writeFileSync(
  aasxFile,
  writeAasx({
    environment: env,
    files: [{ path: "/aasx/files/manual.pdf", contentType: "application/pdf", bytes: randomBytes(1024 * 1024) }],
  }),
);
writeFileSync(jsonFile, JSON.stringify(env));
console.log(
  `generated ${elements} elements: AASX ${(statSync(aasxFile).size / 2 ** 20).toFixed(1)} MiB (XML inside, written in ${((performance.now() - t0) / 1000).toFixed(1)} s), JSON ${(statSync(jsonFile).size / 2 ** 20).toFixed(1)} MiB`,
);

const results = new Map<string, Sample[]>();
const record = (label: string, sample: Sample) => {
  (results.get(label) ?? results.set(label, []).get(label)!).push(sample);
  console.log(
    `${label.padEnd(34)} ready after ${sample.seconds.toFixed(2)} s, peak RSS ${sample.peakMiB.toFixed(0)} MiB`,
  );
};
const best = (label: string): Sample => {
  const samples = results.get(label)!;
  return { seconds: Math.min(...samples.map((s) => s.seconds)), peakMiB: Math.min(...samples.map((s) => s.peakMiB)) };
};

const redis = await startRedis();
const nats = await startNats();
try {
  const embeddedArgs = [
    "--endpoint",
    "http",
    `endpoints[0].port=${await freePort()}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].sslEnabled=false",
  ];
  for (let round = 0; round < ROUNDS; round++) {
    record("embedded, empty", await startOnce([...embeddedArgs, "--empty-model"], "embedded", {}, dir));
    record("embedded, JSON", await startOnce([...embeddedArgs, "-m", jsonFile], "embedded", {}, dir));
    record("embedded, AASX", await startOnce([...embeddedArgs, "-m", aasxFile], "embedded", {}, dir));
    for (const [index, [label, args]] of (
      [
        ["model-store, empty", ["--empty-model"]],
        ["model-store, AASX (files in Redis)", ["-m", aasxFile]],
      ] as const
    ).entries()) {
      // A fresh key prefix per start: the model-store seeds only an empty store.
      const storeEnv = {
        TWINPORT_PERSISTENCE_URL: redis.url,
        TWINPORT_PERSISTENCE_KEYPREFIX: `bench-${round}-${index}`,
        TWINPORT_MESSAGEBUS_URL: nats.url,
      };
      record(label, await startOnce([...args], "model-store", storeEnv, dir));
    }
  }
  const load = (label: string, empty: string) => best(label).seconds - best(empty).seconds;
  const aasx = load("embedded, AASX", "embedded, empty");
  const json = load("embedded, JSON", "embedded, empty");
  const store = load("model-store, AASX (files in Redis)", "model-store, empty");
  console.log(`\n${elements} elements, best of ${ROUNDS}:`);
  console.log(
    `  embedded    AASX load ${aasx.toFixed(2)} s (${Math.round(elements / aasx)} elements/s), peak RSS ${best("embedded, AASX").peakMiB.toFixed(0)} MiB (empty start ${best("embedded, empty").peakMiB.toFixed(0)} MiB)`,
  );
  console.log(
    `  embedded    JSON load ${json.toFixed(2)} s, peak RSS ${best("embedded, JSON").peakMiB.toFixed(0)} MiB`,
  );
  console.log(
    `  model-store AASX load ${store.toFixed(2)} s, peak RSS ${best("model-store, AASX (files in Redis)").peakMiB.toFixed(0)} MiB`,
  );
  console.log(
    `  ratio AASX/JSON load time (embedded): ${(aasx / json).toFixed(2)}×; model-store/embedded AASX: ${(store / aasx).toFixed(2)}×`,
  );
} finally {
  await redis.stop();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}
