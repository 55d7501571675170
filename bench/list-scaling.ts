/**
 * Issue 12 target 5: inserting or deleting one item of a SubmodelElementList costs O(log n), not a
 * rewrite of the items after it (docs/adr/0020). `DELETE L[0]` and `POST L` on a list of 200,000
 * Properties, embedded (HTTP only) and distributed (redis-server with AOF and `appendfsync always`
 * as docker-compose.yml ships it, nats-server, model-store, http-gateway), against the same
 * requests on a 10-item list in the same run. Prints ms per request (target ≤ 50 ms) and, for
 * distributed mode, the longest Redis command (a commit script) seen by SLOWLOG while they ran
 * (target ≤ 50 ms), and how long the load of the big list held Redis.
 *
 * BENCH_OPCUA=1 adds embedded mode with an OPC UA endpoint too: its mirror rebuilds a list from the
 * store when an item comes or goes (change-applier.ts), in the same process.
 *
 * Run: npm run bench -- list-scaling     (BENCH_ITEMS=200000 BENCH_OPS=20 BENCH_OPCUA=0)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { b64, createHttpClient, type HttpClient } from "../tests/test-support/http-client.ts";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";

const ITEMS = Number(process.env.BENCH_ITEMS ?? 200_000);
/** Which variants run: embedded, opcua (only with BENCH_OPCUA=1), distributed; default all. */
const MODES = process.env.BENCH_MODES?.split(",") ?? ["embedded", "opcua", "distributed"];
const OPS = Number(process.env.BENCH_OPS ?? 20);

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-lists-"));
const listSubmodel = (id: string, count: number) => ({
  modelType: "Submodel",
  id,
  idShort: id.split(":").at(-1),
  submodelElements: [
    {
      modelType: "SubmodelElementList",
      idShort: "L",
      typeValueListElement: "Property",
      valueTypeListElement: "xs:int",
      value: Array.from({ length: count }, (_, i) => ({
        modelType: "Property",
        valueType: "xs:int",
        value: String(i),
      })),
    },
  ],
});
const SMALL = "urn:bench:lists:small";
const BIG = "urn:bench:lists:big";
const modelFile = join(dir, "model.json");
writeFileSync(modelFile, JSON.stringify({ submodels: [listSubmodel(SMALL, 10), listSubmodel(BIG, ITEMS)] }));

async function httpConfig(): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `http-${port}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
    }),
  );
  return { file, port };
}

const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`;
};

/** OPS × (DELETE L[0], POST L) on one submodel: ms per request, each answer checked. */
async function measure(
  client: HttpClient,
  submodelId: string,
  size: number,
): Promise<{ del: number[]; post: number[] }> {
  const list = `/submodels/${b64(submodelId)}/submodel-elements/L`;
  const del: number[] = [];
  const post: number[] = [];
  // The POSTs first: what a DELETE leaves to do after its answer (an OPC UA mirror rebuilding the
  // list) then shows in the next DELETE only.
  for (let i = 0; i < OPS; i++) {
    const t = performance.now();
    const created = await client.request("POST", list, {
      body: JSON.stringify({ modelType: "Property", valueType: "xs:int", value: String(-i) }),
    });
    post.push(performance.now() - t);
    if (created.status !== 201) throw new Error(`POST L: ${created.status} ${created.text}`);
  }
  for (let i = 0; i < OPS; i++) {
    const t = performance.now();
    const deleted = await client.request("DELETE", `${list}%5B0%5D`);
    del.push(performance.now() - t);
    if (deleted.status !== 204) throw new Error(`DELETE L[0]: ${deleted.status} ${deleted.text}`);
  }
  // Item 0 is what was item OPS before (or, on a list no longer than OPS, one of the posted items).
  const first = await client.get(`${list}%5B0%5D`);
  const expected = OPS < size ? String(OPS) : String(size - OPS);
  if (first.json().value !== expected) throw new Error(`L[0] is ${first.text}, expected the value ${expected}`);
  const last = await client.get(`${list}%5B${size - 1}%5D`);
  if (last.json().value !== String(1 - OPS))
    throw new Error(`L[${size - 1}] is ${last.text}, expected the value ${1 - OPS}`);
  return { del, post };
}

async function report(mode: string, client: HttpClient): Promise<void> {
  const small = await measure(client, SMALL, 10);
  const big = await measure(client, BIG, ITEMS);
  console.log(
    `${mode}: DELETE L[0]  10 items: ${stats(small.del)};  ${ITEMS} items: ${stats(big.del)}   (target ≤ 50 ms)`,
  );
  console.log(
    `${mode}: POST L       10 items: ${stats(small.post)};  ${ITEMS} items: ${stats(big.post)}   (target ≤ 50 ms)`,
  );
}

/** The longest command SLOWLOG kept (≥ 1 ms), in ms, with its name. */
async function longestCommand(redis: Redis): Promise<string> {
  const all = (await redis.call("SLOWLOG", "GET", "10000")) as [number, number, number, string[]][];
  const entries = all.filter((entry) => !["SLOWLOG", "CONFIG", "INFO"].includes(String(entry[3][0]).toUpperCase()));
  if (entries.length === 0) return "none ≥ 1 ms";
  const worst = entries.reduce((a, b) => (b[2] > a[2] ? b : a));
  return `${(worst[2] / 1000).toFixed(1)} ms (${worst[3][0]}), ${entries.length} commands ≥ 1 ms`;
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  let t0 = performance.now();
  if (MODES.includes("embedded")) {
    const embeddedHttp = await httpConfig();
    processes.push(
      await startTwinport({
        cwd: dir,
        args: ["-c", embeddedHttp.file, "-m", modelFile, "--endpoint", "http"],
        timeoutMs: 600_000,
      }),
    );
    console.log(`embedded: loaded ${ITEMS} items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const embedded = createHttpClient(`http://127.0.0.1:${embeddedHttp.port}/api/v3.0`);
    await report("embedded", embedded);
    embedded.close();
    await processes.pop()!.stop();
  }

  if (process.env.BENCH_OPCUA === "1" && MODES.includes("opcua")) {
    const port = await freePort();
    const file = join(dir, "opcua.json");
    writeFileSync(
      file,
      JSON.stringify({
        endpoints: [
          { "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false },
          {
            "@class": "endpoint.opcua.OpcUaEndpoint",
            tcpPort: await freePort(),
            host: "127.0.0.1",
            hostname: "127.0.0.1",
            secondsTillShutdown: 0,
          },
        ],
      }),
    );
    t0 = performance.now();
    const nodeArgs = process.env.BENCH_PROFILE_DIR
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
      : [];
    processes.push(
      await startTwinport({
        cwd: mkdtempSync(join(dir, "opcua-")),
        args: ["-c", file, "-m", modelFile],
        timeoutMs: 900_000,
        nodeArgs,
      }),
    );
    console.log(`embedded with OPC UA: loaded ${ITEMS} items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
    await report("embedded with OPC UA", client);
    client.close();
    await processes.pop()!.stop();
  }

  if (MODES.includes("distributed")) {
    const redisServer = await startRedis({ appendOnly: true });
    const nats = await startNats();
    servers.push(redisServer, nats);
    const redis = new Redis(redisServer.url);
    await redis.call("CONFIG", "SET", "slowlog-log-slower-than", "1000");
    await redis.call("CONFIG", "SET", "slowlog-max-len", "10000");
    await redis.call("SLOWLOG", "RESET");
    const env = { TWINPORT_PERSISTENCE_URL: redisServer.url, TWINPORT_MESSAGEBUS_URL: nats.url };
    t0 = performance.now();
    processes.push(
      await startTwinport({
        role: "model-store",
        cwd: mkdtempSync(join(dir, "store-")),
        args: ["-m", modelFile],
        env,
        timeoutMs: 600_000,
      }),
    );
    console.log(
      `distributed: loaded ${ITEMS} items in ${((performance.now() - t0) / 1000).toFixed(1)} s; longest Redis command while loading: ${await longestCommand(redis)}`,
    );
    const gatewayHttp = await httpConfig();
    processes.push(
      await startTwinport({
        role: "http-gateway",
        cwd: mkdtempSync(join(dir, "gw-")),
        args: ["-c", gatewayHttp.file],
        env,
      }),
    );
    const distributed = createHttpClient(`http://127.0.0.1:${gatewayHttp.port}/api/v3.0`);
    await redis.call("SLOWLOG", "RESET");
    await report("distributed", distributed);
    console.log(
      `distributed: longest Redis command during the deletes and posts: ${await longestCommand(redis)}   (target ≤ 50 ms)`,
    );
    distributed.close();
    redis.disconnect();
  }
} finally {
  for (const p of processes.reverse()) await p.stop();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
