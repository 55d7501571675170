/**
 * Issue 19 item 2: filtered lists answer from the filter index (docs/adr/0035), so a cold filtered
 * page costs O(page + log n): target ≤ 50 ms at 100,000 shells, any `limit`, both modes.
 *
 * One generated model: BENCH_SHELLS shells (idShort, globalAssetId, specificAssetIds `line` (10
 * values) and `serial` (unique)), as many submodels (idShort, semanticId of 10 values), a tenth as
 * many concept descriptions (isCaseOf of 100 values, IEC 61360 data specification on half).
 *
 * 1. Repository level, in this process, memory and Redis (AOF, appendfsync always, as shipped):
 *    each filter's first page through listFiltered as it was (a scan of every identifiable: before)
 *    and with the index (after), same results checked. Redis also: load time, and the time to build
 *    the index of a store written without one (the upgrade at model-store start).
 * 2. HTTP, cold (5 requests of filter values never asked before, after one unfiltered page of each
 *    list warmed the code: median and max) and warm (median of 20 repeats), distributed
 *    (redis, nats, model-store opened on the loaded Redis, http-gateway) and embedded (loading the
 *    model file takes a while), with CPU per request per process (10 ms ticks: 0.5 ms resolution).
 *
 * Run: npm run bench -- filter-scaling
 *      (BENCH_SHELLS=100000 BENCH_PARTS=repository,distributed,embedded BENCH_TRACE_GC=0)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  assetIdTerm,
  type Commit,
  createMemoryRepository,
  type IdentifiableKind,
  indexTerm,
  type Repository,
} from "@twinport/shared";
import { Redis } from "ioredis";
import { listFiltered } from "../libs/shared/src/engine/paging.ts";
import { redisLayout } from "../services/model-store/src/redis/redis-layout.ts";
import { createRedisRepository } from "../services/model-store/src/redis/redis-repository.ts";
import { ensureTermIndex } from "../services/model-store/src/redis/term-index-build.ts";
import { b64, createHttpClient, type HttpClient } from "../tests/test-support/http-client.ts";
import { startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { median, plainHttpConfig } from "./test-support/bench-setup.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";

const SHELLS = Number(process.env.BENCH_SHELLS ?? 100_000);
const CDS = Math.max(1, Math.floor(SHELLS / 10));
/** Which parts run: repository (memory and Redis, before/after), distributed, embedded; default all. */
const PARTS = process.env.BENCH_PARTS?.split(",") ?? ["repository", "distributed", "embedded"];
/** BENCH_TRACE_GC=1: the embedded process runs with --trace-gc; pauses over 20 ms are printed. */
const TRACE_GC = process.env.BENCH_TRACE_GC === "1";
const BATCH = 1000;
const REPEATS = 20;
const COLD = 5;

type Json = Record<string, any>;
const ref = (value: string) => ({ type: "ExternalReference", keys: [{ type: "GlobalReference", value }] });

const shell = (n: number): Json => ({
  modelType: "AssetAdministrationShell",
  id: `urn:bench:shell:${n}`,
  idShort: `Shell${n}`,
  assetInformation: {
    assetKind: "Instance",
    globalAssetId: `urn:bench:asset:${n}`,
    specificAssetIds: [
      { name: "line", value: `L${n % 10}` },
      { name: "serial", value: `SN-${n}` },
    ],
  },
});
const submodel = (n: number): Json => ({
  modelType: "Submodel",
  id: `urn:bench:sm:${n}`,
  idShort: `Data${n}`,
  semanticId: ref(`urn:bench:sem:${n % 10}`),
});
const conceptDescription = (n: number): Json => ({
  modelType: "ConceptDescription",
  id: `urn:bench:cd:${n}`,
  idShort: `Cd${n}`,
  isCaseOf: [ref(`urn:bench:case:${n % 100}`)],
  ...(n % 2 === 0
    ? {
        embeddedDataSpecifications: [
          {
            dataSpecification: ref("https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0"),
            dataSpecificationContent: {
              modelType: "DataSpecificationIec61360",
              preferredName: [{ language: "en", text: `cd ${n}` }],
              definition: [{ language: "en", text: `concept ${n}` }],
            },
          },
        ],
      }
    : {}),
});
const IEC61360 = "https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0";

const keyValues = (reference: Json | undefined) => (reference?.keys ?? []).map((k: Json) => k.value);
const hasLink = (s: Json, name: string, value: string) =>
  (name === "globalAssetId" && s.assetInformation.globalAssetId === value) ||
  s.assetInformation.specificAssetIds.some((l: Json) => l.name === name && l.value === value);

interface Filter {
  http: string;
  keep: (item: Json) => boolean;
  terms: string[];
}

interface Query {
  name: string;
  kind: IdentifiableKind;
  limit: number;
  expected: number;
  /** The filter asked the `v`-th time: each v names values no earlier request asked for. */
  filter: (v: number) => Filter;
}

const last = SHELLS - 1;
const link = (name: string, value: string) => b64(JSON.stringify({ name, value }));
const byIdShort = (path: string, value: string, limit: number): Filter => ({
  http: `${path}?idShort=${value}&limit=${limit}`,
  keep: (item) => item.idShort === value,
  terms: [indexTerm("idShort", value)],
});
const byAssetIds = (path: string, links: [string, string][], limit: number): Filter => ({
  http: `${path}?${links.map(([name, value]) => `assetIds=${link(name, value)}`).join("&")}&limit=${limit}`,
  keep: (s) => links.every(([name, value]) => hasLink(s, name, value)),
  terms: links.map(([name, value]) => assetIdTerm(name, value)),
});
const lastCd = (v: number) => (CDS - 1 - 2 * v) & ~1;
const QUERIES: Query[] = [
  {
    name: "shells idShort (one of the last), limit=1",
    kind: "shell",
    limit: 1,
    expected: 1,
    filter: (v) => byIdShort("/shells", `Shell${last - v}`, 1),
  },
  {
    name: "shells idShort=NoSuch, limit=1",
    kind: "shell",
    limit: 1,
    expected: 0,
    filter: (v) => byIdShort("/shells", `NoSuch${v}`, 1),
  },
  {
    name: "shells assetIds serial (one match), limit=100",
    kind: "shell",
    limit: 100,
    expected: 1,
    filter: (v) => byAssetIds("/shells", [["serial", `SN-${(last >> 1) + v}`]], 100),
  },
  {
    name: "shells assetIds line + globalAssetId, limit=10",
    kind: "shell",
    limit: 10,
    expected: 1,
    filter: (v) =>
      byAssetIds(
        "/shells",
        [
          ["line", `L${(last - v) % 10}`],
          ["globalAssetId", `urn:bench:asset:${last - v}`],
        ],
        10,
      ),
  },
  {
    name: "shells assetIds line (a tenth match), limit=100",
    kind: "shell",
    limit: 100,
    expected: Math.min(100, Math.floor(SHELLS / 10)),
    filter: (v) => byAssetIds("/shells", [["line", `L${v % 10}`]], 100),
  },
  {
    name: "lookup/shells globalAssetId (one of the last)",
    kind: "shell",
    limit: 100,
    expected: 1,
    filter: (v) => byAssetIds("/lookup/shells", [["globalAssetId", `urn:bench:asset:${last - v}`]], 100),
  },
  {
    name: "submodels idShort (one of the last)",
    kind: "submodel",
    limit: 100,
    expected: 1,
    filter: (v) => byIdShort("/submodels", `Data${last - v}`, 100),
  },
  {
    name: "submodels semanticId (a tenth match), limit=100",
    kind: "submodel",
    limit: 100,
    expected: Math.min(100, Math.floor(SHELLS / 10)),
    filter: (v) => ({
      http: `/submodels?semanticId=${b64(`urn:bench:sem:${v % 10}`)}&limit=100`,
      keep: (s) => keyValues(s.semanticId).includes(`urn:bench:sem:${v % 10}`),
      terms: [indexTerm("semanticId", `urn:bench:sem:${v % 10}`)],
    }),
  },
  {
    name: "concept-descriptions isCaseOf (1 in 100), limit=100",
    kind: "concept-description",
    limit: 100,
    expected: Math.min(100, Math.floor(CDS / 100)),
    filter: (v) => ({
      http: `/concept-descriptions?isCaseOf=${b64(`urn:bench:case:${v % 100}`)}&limit=100`,
      keep: (c) => c.isCaseOf.some((r: Json) => keyValues(r).includes(`urn:bench:case:${v % 100}`)),
      terms: [indexTerm("isCaseOf", `urn:bench:case:${v % 100}`)],
    }),
  },
  {
    name: "concept-descriptions dataSpecificationRef + idShort",
    kind: "concept-description",
    limit: 100,
    expected: 1,
    filter: (v) => ({
      http: `/concept-descriptions?dataSpecificationRef=${b64(IEC61360)}&idShort=Cd${lastCd(v)}`,
      keep: (c) =>
        c.idShort === `Cd${lastCd(v)}` &&
        (c.embeddedDataSpecifications ?? []).some((e: Json) => keyValues(e.dataSpecification).includes(IEC61360)),
      terms: [indexTerm("dataSpecificationRef", IEC61360), indexTerm("idShort", `Cd${lastCd(v)}`)],
    }),
  },
];

function* commits(): Generator<Commit> {
  const groups: [IdentifiableKind, number, (n: number) => Json][] = [
    ["shell", SHELLS, shell],
    ["submodel", SHELLS, submodel],
    ["concept-description", CDS, conceptDescription],
  ];
  for (const [kind, count, make] of groups) {
    for (let start = 0; start < count; start += BATCH) {
      const ops: Commit["ops"] = [];
      for (let n = start; n < Math.min(count, start + BATCH); n++) {
        const json = make(n);
        ops.push({ op: "put-identifiable", kind, id: json.id, json: JSON.stringify(json) });
      }
      yield {
        preconditions: [],
        ops,
        event: { kind: `${kind}.created` as never, id: "bench", time: new Date().toISOString() },
      };
    }
  }
}

async function load(repo: Repository): Promise<number> {
  const t = performance.now();
  for (const commit of commits()) {
    const [result] = await repo.commitBatch([commit]);
    if (!result?.ok) throw new Error("load commit failed");
  }
  return performance.now() - t;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

async function repositoryLevel(label: string, repo: Repository): Promise<void> {
  console.log(`\n${label}: first page of each filter through listFiltered (before: scan, after: index)`);
  for (const q of QUERIES) {
    const { keep, terms } = q.filter(0);
    const page = { limit: q.limit };
    let t = performance.now();
    const after = await listFiltered(repo, q.kind, page, keep, undefined, false, terms);
    const indexed = performance.now() - t;
    t = performance.now();
    const before = await listFiltered(repo, q.kind, page, keep);
    const scanned = performance.now() - t;
    // Items must be equal. The cursor may not: a scan whose page ends at the last match still has
    // identifiables after it (a cursor to an empty page); the index knows no match follows.
    if (JSON.stringify(before.items) !== JSON.stringify(after.items))
      throw new Error(`${q.name}: index and scan disagree`);
    if (after.items.length !== q.expected)
      throw new Error(`${q.name}: ${after.items.length} items, expected ${q.expected}`);
    console.log(`  ${q.name.padEnd(56)} before ${ms(scanned).padStart(10)}   after ${ms(indexed).padStart(8)}`);
  }
}

async function httpLevel(label: string, client: HttpClient, pids: Record<string, number>): Promise<void> {
  console.log(
    `\n${label}: HTTP; cold = ${COLD} requests of values never asked before (median, max); warm = median of ${REPEATS} repeats of one; CPU ms per warm request`,
  );
  // The process's code is warmed by one unfiltered page of each list first: "cold" is about the
  // data (nothing of the filter read before), not about a process that has not yet run a list.
  for (const path of ["/shells", "/lookup/shells", "/submodels", "/concept-descriptions"]) {
    const res = await client.get(`${path}?limit=1`);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  }
  const timed = async (path: string): Promise<number> => {
    const t = performance.now();
    const res = await client.get(path);
    const elapsed = performance.now() - t;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return elapsed;
  };
  for (const q of QUERIES) {
    const cold: number[] = [];
    for (let v = 0; v < COLD; v++) {
      const { http } = q.filter(v);
      cold.push(await timed(http));
      const count = (await client.get(http)).json().result.length;
      if (count !== q.expected) throw new Error(`${q.name}: ${count} items over HTTP, expected ${q.expected}`);
    }
    const warm: number[] = [];
    const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
    for (let i = 0; i < REPEATS; i++) warm.push(await timed(q.filter(0).http));
    const cpu = Object.entries(pids)
      .map(([name, pid]) => `${name} ${((processCpuMs(pid) - cpuBefore[name]!) / REPEATS).toFixed(2)}`)
      .join(", ");
    console.log(
      `  ${q.name.padEnd(56)} cold ${ms(median(cold)).padStart(8)} (max ${ms(Math.max(...cold)).padStart(8)})   warm ${ms(median(warm)).padStart(7)}   CPU: ${cpu}`,
    );
  }
}

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-filters-"));
const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  console.log(`${SHELLS} shells, ${SHELLS} submodels, ${CDS} concept descriptions`);
  if (PARTS.includes("repository")) {
    const memory = createMemoryRepository();
    console.log(`memory: loaded in ${ms(await load(memory))}`);
    await repositoryLevel("memory repository", memory);
    await memory.close();
  }

  if (PARTS.includes("repository") || PARTS.includes("distributed")) await redisParts();

  if (PARTS.includes("embedded")) await embeddedPart();
} finally {
  for (const p of processes.reverse()) await p.stop();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function redisParts(): Promise<void> {
  const redisServer = await startRedis({ appendOnly: true });
  servers.push(redisServer);
  const repo = await createRedisRepository({ url: redisServer.url });
  console.log(`\nredis: loaded in ${ms(await load(repo))}`);
  // The upgrade: the same store without its index, built again as a model-store start would.
  const admin = new Redis(redisServer.url);
  const usedMemory = async () => Number((await admin.info("memory")).match(/used_memory:(\d+)/)?.[1]);
  const withIndex = await usedMemory();
  const layout = redisLayout();
  for (const kind of ["shell", "submodel", "concept-description"] as const) {
    const { terms, index } = layout.termIndex(kind);
    await admin.del(terms, index);
  }
  await admin.del(layout.termIndexVersion);
  const withoutIndex = await usedMemory();
  console.log(
    `redis: used_memory ${(withIndex / 1e6).toFixed(0)} MB, of which the index ${((withIndex - withoutIndex) / 1e6).toFixed(1)} MB (${Math.round((withIndex - withoutIndex) / (2 * SHELLS + CDS))} bytes per identifiable)`,
  );
  let t = performance.now();
  const indexed = await ensureTermIndex(admin, layout);
  console.log(`redis: index of a store without one built in ${ms(performance.now() - t)} (${indexed} identifiables)`);
  if (PARTS.includes("repository")) await repositoryLevel("redis repository", repo);
  await repo.close();
  if (!PARTS.includes("distributed")) {
    admin.disconnect();
    return;
  }

  const nats = await startNats();
  servers.push(nats);
  const env = { TWINPORT_PERSISTENCE_URL: redisServer.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  t = performance.now();
  const store = await startTwinport({
    role: "model-store",
    cwd: mkdtempSync(join(dir, "store-")),
    args: ["--empty-model"],
    env,
    timeoutMs: 600_000,
  });
  processes.push(store);
  const gatewayHttp = await plainHttpConfig(dir);
  const gateway = await startTwinport({
    role: "http-gateway",
    cwd: mkdtempSync(join(dir, "gw-")),
    args: ["-c", gatewayHttp.file],
    env,
  });
  processes.push(gateway);
  console.log(`\ndistributed: model-store and http-gateway up in ${ms(performance.now() - t)}`);
  const distributed = createHttpClient(`http://127.0.0.1:${gatewayHttp.port}/api/v3.0`);
  await httpLevel("distributed", distributed, {
    gateway: gateway.child.pid!,
    "model-store": store.child.pid!,
    redis: redisServer.pid,
  });
  distributed.close();
  admin.disconnect();
  for (const p of processes.splice(0).reverse()) await p.stop();
}

async function embeddedPart(): Promise<void> {
  {
    const modelFile = join(dir, "model.json");
    const parts: string[] = ['{"assetAdministrationShells":['];
    for (let n = 0; n < SHELLS; n++) parts.push((n > 0 ? "," : "") + JSON.stringify(shell(n)));
    parts.push('],"submodels":[');
    for (let n = 0; n < SHELLS; n++) parts.push((n > 0 ? "," : "") + JSON.stringify(submodel(n)));
    parts.push('],"conceptDescriptions":[');
    for (let n = 0; n < CDS; n++) parts.push((n > 0 ? "," : "") + JSON.stringify(conceptDescription(n)));
    parts.push("]}");
    writeFileSync(modelFile, parts.join(""));
    const embeddedHttp = await plainHttpConfig(dir);
    const t = performance.now();
    const cwd = mkdtempSync(join(dir, "embedded-"));
    const embedded = await startTwinport({
      cwd,
      args: ["-c", embeddedHttp.file, "-m", modelFile, "--endpoint", "http"],
      timeoutMs: 1_200_000,
      nodeArgs: TRACE_GC ? ["--trace-gc"] : [],
    });
    processes.push(embedded);
    console.log(`\nembedded: loaded and up in ${ms(performance.now() - t)}`);
    const client = createHttpClient(`http://127.0.0.1:${embeddedHttp.port}/api/v3.0`);
    const ready = Math.round(performance.now() - t);
    await httpLevel("embedded", client, { embedded: embedded.child.pid! });
    client.close();
    if (TRACE_GC) {
      // `[pid:…]   51234 ms: Mark-Compact 800.1 (850.2) -> 700.0 (760.3) MB, pooled: 0 MB, 120.50 / 0.00 ms …`
      const pauses = readFileSync(join(cwd, "embedded.out"), "utf8")
        .split("\n")
        .map((line) => /(\d+) ms: (\S+).*?, ([\d.]+) \/ [\d.]+ ms/.exec(line))
        .filter((m): m is RegExpExecArray => m !== null && Number(m[3]) > 20);
      console.log(`embedded: GC pauses over 20 ms (process ready at about ${ready} ms):`);
      for (const m of pauses) console.log(`  at ${m[1]} ms: ${m[2]} ${m[3]} ms`);
    }
  }
}
