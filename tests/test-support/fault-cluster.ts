/**
 * A distributed Twinport as real processes for the scale-out and fault tests: one Redis, one NATS,
 * N model-stores, N http-gateways (plain HTTP, to spare the 2 cores TLS), N opcua-gateways, each
 * restartable on the same ports and directories. Plus a bounded write load that records which
 * writes were acknowledged, and convergence checks over every HTTP and OPC UA endpoint.
 *
 * `secured: true` runs the same cluster with a security section in every process (bearer tokens
 * from a real oidc-provider on loopback, rules granting the writers only what the load needs): the
 * faults must then not turn into 401/403, and the gateways' own reads (OPC UA mirror snapshot and
 * gap fills, read cache) must keep working.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeBase64Url } from "@twinport/shared";
import { createHttpClient, type HttpClient, type HttpResponse } from "./http-client.ts";
import { connectOpcua, type OpcuaTestClient } from "./opcua-client.ts";
import { type OpenIdProvider, signingKeys, startOpenIdProvider, TWINPORT_AUDIENCE } from "./openid-provider.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./servers.ts";
import { EXAMPLE_MODEL, startTwinport, type TwinportProcess } from "./system.ts";

/** The submodels the fault and scale-out tests write into (and invoke in): the secured cluster's writers may change these only. */
const LOAD_SUBMODELS = "urn:twinport:*";
const EXAMPLE_SUBMODEL = "https://example.org/submodels/technical-data-1";

export interface ClusterOptions {
  stores?: number;
  gateways?: number;
  opcuaGateways?: number;
  /** Redis with AOF and appendfsync always (the Redis restart test). */
  appendOnly?: boolean;
  /** messageBus.requestTimeoutMs of every process. */
  requestTimeoutMs?: number;
  /** A security section in every process; the load, its setup and the convergence reads carry a writer's bearer token. */
  secured?: boolean;
}

export interface GatewayNode {
  proc: TwinportProcess;
  client: HttpClient;
  port: number;
  dir: string;
}

export interface OpcuaNode {
  proc: TwinportProcess;
  url: string;
  port: number;
  dir: string;
}

export interface Cluster {
  redis: RunningServer;
  nats: RunningServer;
  stores: TwinportProcess[];
  gateways: GatewayNode[];
  opcua: OpcuaNode[];
  requestTimeoutMs: number;
  /** Headers every request of the load and the checks carries: a bearer token when secured, else none. */
  authHeaders: Record<string, string>;
  restartGateway(index: number): Promise<void>;
  restartOpcua(index: number): Promise<void>;
  /** SIGKILL, then wait until the process is gone. */
  kill(proc: TwinportProcess | RunningServer): Promise<void>;
  /** Kill -9 Redis and start it again on the same port and directory (AOF survives). */
  restartRedis(downMs?: number): Promise<void>;
  /**
   * Kill -9 Redis, delete its data (what a pod restarted without its volume starts with) and start
   * it again on the same port: the store comes back empty while every Twinport process runs on.
   */
  wipeRedis(downMs?: number): Promise<void>;
  /** Start model-store `index` again as its orchestrator would (after it exited or was killed), same directory and arguments. */
  restartStore(index: number): Promise<void>;
  /** Stop NATS and start it again on the same port after `downMs`. */
  restartNats(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const requestTimeoutMs = options.requestTimeoutMs ?? 2000;
  const dirs: string[] = [];
  const dir = (name: string) => {
    const made = mkdtempSync(join(tmpdir(), `twinport-cluster-${name}-`));
    dirs.push(made);
    return made;
  };
  // Servers are restarted into the same directory; stop() of the first instance would delete it,
  // so the cluster keeps every instance and removes directories itself at the end.
  const servers: RunningServer[] = [];
  const storeDirs: string[] = [];
  let [redis, nats] = await Promise.all([startRedis({ appendOnly: options.appendOnly }), startNats()]);
  servers.push(redis, nats);
  let provider: OpenIdProvider | undefined;
  let security: Record<string, unknown> | undefined;
  let authHeaders: Record<string, string> = {};
  if (options.secured) {
    provider = await startOpenIdProvider({
      clients: [{ id: "fault-writer", alg: "ES256", claims: { roles: ["writer"] } }],
      keys: await signingKeys("fault"),
    });
    security = {
      authentication: { bearer: { issuer: provider.issuer, audience: TWINPORT_AUDIENCE } },
      rules: [
        { subjects: [{ role: "writer" }], rights: ["READ"], objects: [{ all: true }] },
        {
          subjects: [{ role: "writer" }],
          rights: ["CREATE", "UPDATE", "EXECUTE"],
          objects: [{ submodels: LOAD_SUBMODELS }, { submodels: EXAMPLE_SUBMODEL }],
        },
        // The convergence checks browse the OPC UA mirrors anonymously: reading what the load writes is all they may.
        {
          subjects: [{ anonymous: true }],
          rights: ["READ"],
          objects: [{ submodels: LOAD_SUBMODELS }, { submodels: EXAMPLE_SUBMODEL }],
        },
      ],
    };
    authHeaders = { authorization: `Bearer ${await provider.token("fault-writer")}` };
  }
  /** The process's config.json in `where` (its security section, if any, and `extra`); the args that load it. */
  const configArgs = (where: string, extra: Record<string, unknown> = {}): string[] => {
    const config = { ...(security ? { security } : {}), ...extra };
    if (Object.keys(config).length === 0) return [];
    writeFileSync(join(where, "config.json"), JSON.stringify(config));
    return ["-c", "config.json"];
  };
  const env = () => ({
    TWINPORT_PERSISTENCE_URL: redis.url,
    TWINPORT_MESSAGEBUS_URL: nats.url,
    TWINPORT_MESSAGEBUS_REQUESTTIMEOUTMS: String(requestTimeoutMs),
    TWINPORT_CORE_MANAGEMENTPORT: "0",
  });
  const cluster: Cluster = {
    redis,
    nats,
    stores: [],
    gateways: [],
    opcua: [],
    requestTimeoutMs,
    authHeaders,
    async restartGateway(index) {
      const node = cluster.gateways[index]!;
      await node.proc.stop("SIGKILL");
      node.proc = await startTwinport({ role: "http-gateway", cwd: node.dir, args: ["-c", "config.json"], env: env() });
    },
    async restartOpcua(index) {
      const node = cluster.opcua[index]!;
      await node.proc.stop("SIGKILL");
      node.proc = await startTwinport({
        role: "opcua-gateway",
        cwd: node.dir,
        args: [...configArgs(node.dir), ...opcuaArgs(node.port)],
        env: env(),
        timeoutMs: 60_000,
      });
    },
    async kill(target) {
      const pid = "child" in target ? target.child.pid! : target.pid;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        return;
      }
      while (alive(pid)) await sleep(10);
    },
    async restartRedis(downMs = 500) {
      await cluster.kill(redis);
      await sleep(downMs);
      redis = await startRedis({ appendOnly: options.appendOnly, port: redis.port, dir: redis.dir });
      servers.push(redis);
      cluster.redis = redis;
    },
    async wipeRedis(downMs = 500) {
      await cluster.kill(redis);
      // Everything but its log: the AOF directory and any RDB file go, as with a lost volume.
      for (const entry of readdirSync(redis.dir))
        if (entry !== "redis.log") rmSync(join(redis.dir, entry), { recursive: true, force: true });
      await sleep(downMs);
      redis = await startRedis({ appendOnly: options.appendOnly, port: redis.port, dir: redis.dir });
      servers.push(redis);
      cluster.redis = redis;
    },
    async restartStore(index) {
      const where = storeDirs[index]!;
      await cluster.stores[index]!.stop("SIGKILL");
      cluster.stores[index] = await startTwinport({
        role: "model-store",
        cwd: where,
        args: [...configArgs(where), "-m", EXAMPLE_MODEL],
        env: env(),
      });
    },
    async restartNats(downMs = 500) {
      await cluster.kill(nats);
      await sleep(downMs);
      nats = await startNats({ port: nats.port, dir: nats.dir });
      servers.push(nats);
      cluster.nats = nats;
    },
    async stop() {
      for (const gateway of cluster.gateways) gateway.client.close();
      await Promise.all(
        [...cluster.stores, ...cluster.gateways.map((g) => g.proc), ...cluster.opcua.map((o) => o.proc)].map((p) =>
          p.stop("SIGKILL"),
        ),
      );
      for (const server of servers.reverse()) await cluster.kill(server);
      for (const server of servers) await server.stop();
      await provider?.stop();
      for (const made of dirs) rmSync(made, { recursive: true, force: true });
    },
  };
  try {
    // Two replicas seeding together load the model once (seed lock); start them in parallel.
    cluster.stores = await Promise.all(
      Array.from({ length: options.stores ?? 1 }, (_, i) => {
        const where = dir(`store${i}`);
        storeDirs[i] = where;
        return startTwinport({
          role: "model-store",
          cwd: where,
          args: [...configArgs(where), "-m", EXAMPLE_MODEL],
          env: env(),
        });
      }),
    );
    const gatewayNodes = Array.from({ length: options.gateways ?? 1 }, async (_, i): Promise<GatewayNode> => {
      const port = await freePort();
      const where = dir(`http${i}`);
      const args = configArgs(where, {
        endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
      });
      const proc = await startTwinport({ role: "http-gateway", cwd: where, args, env: env() });
      return { proc, port, dir: where, client: createHttpClient(`http://127.0.0.1:${port}/api/v3.0`) };
    });
    const opcuaNodes = Array.from({ length: options.opcuaGateways ?? 0 }, async (_, i): Promise<OpcuaNode> => {
      const port = await freePort();
      const where = dir(`opcua${i}`);
      const proc = await startTwinport({
        role: "opcua-gateway",
        cwd: where,
        args: [...configArgs(where), ...opcuaArgs(port)],
        env: env(),
        timeoutMs: 60_000,
      });
      return { proc, port, dir: where, url: `opc.tcp://127.0.0.1:${port}` };
    });
    cluster.gateways = await Promise.all(gatewayNodes);
    cluster.opcua = await Promise.all(opcuaNodes);
    if (options.secured) await assertSecured(cluster);
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/** A secured cluster that would accept an anonymous write would make its suite prove nothing. */
async function assertSecured(cluster: Cluster): Promise<void> {
  const body = JSON.stringify({ modelType: "Submodel", id: "urn:twinport:fault:anonymous", idShort: "Anonymous" });
  for (const gateway of cluster.gateways) {
    const anonymous = await gateway.client.request("POST", "/submodels", { body });
    if (anonymous.status !== 401)
      throw new Error(`security is not in force: an anonymous write answered ${anonymous.status}: ${anonymous.text}`);
  }
}

function opcuaArgs(port: number): string[] {
  return [
    "--endpoint",
    "opcua",
    `endpoints[0].tcpPort=${port}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].hostname=127.0.0.1",
    "endpoints[0].secondsTillShutdown=0",
  ];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- the write load

/** An empty submodel the load writes into: each write posts one new Property. */
export async function createLoadSubmodel(
  client: HttpClient,
  id: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const response = await client.request("POST", "/submodels", {
    body: JSON.stringify({ modelType: "Submodel", id, idShort: "Load" }),
    headers,
  });
  if (response.status !== 201) throw new Error(`POST /submodels answered ${response.status}: ${response.text}`);
}

export interface LoadReport {
  /** idShorts whose POST answered 201: they must exist afterwards. */
  acknowledged: Set<string>;
  /** Sent but not answered with 201 or a definite refusal (timeouts, 5xx, broken connections). */
  unknown: Set<string>;
  statuses: Map<string, number>;
  /** The slowest answer of any request, in ms (a hang shows here). */
  slowestMs: number;
  /** Failures with their status, body and time. */
  failures: { status: number | string; ms: number; body: string }[];
  attempts: number;
}

export interface LoadOptions {
  /** One writer per entry: the gateway index it writes through. */
  writers: number[];
  submodelId: string;
  /** Bounds: total writes per writer and wall time. */
  maxWritesPerWriter: number;
  maxMs: number;
  /** Pause between a writer's writes. */
  pauseMs?: number;
}

export interface RunningLoad {
  /** Ends the load (also ends on its own at its bounds) and reports. */
  stop(): Promise<LoadReport>;
  /** Acknowledged writes so far. */
  acknowledgedCount(): number;
}

/** Writers posting new Properties through their gateways until stopped or bounded. */
export function startWriteLoad(cluster: Cluster, options: LoadOptions): RunningLoad {
  const report: LoadReport = {
    acknowledged: new Set(),
    unknown: new Set(),
    statuses: new Map(),
    slowestMs: 0,
    failures: [],
    attempts: 0,
  };
  const path = `/submodels/${encodeBase64Url(options.submodelId)}/submodel-elements`;
  const until = Date.now() + options.maxMs;
  let stopped = false;
  const writers = options.writers.map(async (gatewayIndex, writer) => {
    for (let n = 0; n < options.maxWritesPerWriter && !stopped && Date.now() < until; n++) {
      const idShort = `w${writer}_${n}`;
      const body = JSON.stringify({ modelType: "Property", idShort, valueType: "xs:int", value: String(n) });
      const started = Date.now();
      report.attempts++;
      let status: number | string;
      let text = "";
      try {
        // The gateway may have been replaced by a restart: always take the current client.
        const response: HttpResponse = await cluster.gateways[gatewayIndex]!.client.request("POST", path, {
          body,
          headers: cluster.authHeaders,
        });
        status = response.status;
        text = response.text;
      } catch (error) {
        status = (error as NodeJS.ErrnoException).code ?? "error";
      }
      const ms = Date.now() - started;
      report.slowestMs = Math.max(report.slowestMs, ms);
      report.statuses.set(String(status), (report.statuses.get(String(status)) ?? 0) + 1);
      if (status === 201) report.acknowledged.add(idShort);
      else {
        report.unknown.add(idShort);
        report.failures.push({ status, ms, body: text.slice(0, 2000) });
        // A refused connection answers at once: don't spin on a dead gateway.
        await sleep(50);
      }
      await sleep(options.pauseMs ?? 5);
    }
  });
  const done = Promise.all(writers).then(() => report);
  return {
    async stop() {
      stopped = true;
      return done;
    },
    acknowledgedCount: () => report.acknowledged.size,
  };
}

/** idShorts of the submodel's elements as one gateway serves them. */
export async function elementsVia(
  client: HttpClient,
  submodelId: string,
  headers: Record<string, string> = {},
): Promise<{ idShorts: Set<string>; etag: string | undefined }> {
  const response = await client.get(`/submodels/${encodeBase64Url(submodelId)}`, headers);
  if (response.status !== 200) throw new Error(`GET submodel answered ${response.status}: ${response.text}`);
  const submodel = response.json() as { submodelElements?: { idShort: string }[] };
  return {
    idShorts: new Set((submodel.submodelElements ?? []).map((e) => e.idShort)),
    etag: response.headers.etag as string | undefined,
  };
}

/** idShorts of the submodel's elements in an OPC UA gateway's mirror. */
export async function elementsInMirror(client: OpcuaTestClient, submodelId: string): Promise<Set<string>> {
  const children = await client.children(`${submodelId}|`);
  return new Set([...children.keys()].filter((name) => /^w\d+_\d+$/.test(name)));
}

export interface Convergence {
  ms: number;
  /** What every endpoint shows once converged. */
  idShorts: Set<string>;
  etag: string | undefined;
}

/**
 * Waits until every HTTP gateway serves the same elements and ETag and every OPC UA mirror shows
 * the same elements, all containing every acknowledged write; throws with the differences if that
 * does not happen within `timeoutMs`.
 */
export async function waitForConvergence(
  cluster: Cluster,
  submodelId: string,
  acknowledged: Set<string>,
  timeoutMs = 20_000,
): Promise<Convergence> {
  const started = Date.now();
  const opcuaClients: OpcuaTestClient[] = [];
  let last = "";
  try {
    for (const node of cluster.opcua)
      opcuaClients.push(await connectOpcua(node.url, mkdtempSync(join(tmpdir(), "twinport-cluster-client-"))));
    while (true) {
      const views = await Promise.all(
        cluster.gateways.map((g) =>
          elementsVia(g.client, submodelId, cluster.authHeaders).catch((error: Error) => ({
            idShorts: new Set<string>(),
            etag: `error: ${error.message}`,
          })),
        ),
      );
      const mirrors = await Promise.all(
        opcuaClients.map((c) => elementsInMirror(c, submodelId).catch(() => new Set<string>())),
      );
      const reference = views[0]!;
      const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
      const missing = [...acknowledged].filter((x) => !reference.idShorts.has(x));
      const converged =
        missing.length === 0 &&
        views.every((v) => same(v.idShorts, reference.idShorts) && v.etag === reference.etag) &&
        mirrors.every((m) => same(m, reference.idShorts));
      if (converged) return { ms: Date.now() - started, idShorts: reference.idShorts, etag: reference.etag };
      last = `acknowledged but missing: ${missing.slice(0, 10).join(",")} (${missing.length}); gateways: ${views.map((v) => `${v.idShorts.size}@${v.etag}`).join(" ")}; mirrors: ${mirrors.map((m) => m.size).join(" ")}`;
      if (Date.now() - started > timeoutMs) throw new Error(`no convergence within ${timeoutMs} ms: ${last}`);
      await sleep(200);
    }
  } finally {
    for (const client of opcuaClients) await client.close().catch(() => undefined);
  }
}

/** One line of figures for t.diagnostic. */
export function describeLoad(report: LoadReport, found: number, convergenceMs: number): string {
  const statuses = [...report.statuses].map(([status, count]) => `${status}×${count}`).join(" ");
  return `attempted ${report.attempts}, acknowledged ${report.acknowledged.size}, found afterwards ${found}, unacknowledged ${report.unknown.size}; statuses ${statuses}; slowest answer ${report.slowestMs} ms; converged after ${convergenceMs} ms`;
}
