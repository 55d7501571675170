/**
 * The system the console's browser tests run against, as real processes through the twinport CLI,
 * serving HTTPS and OPC UA on the example model:
 * - embedded: one process with both endpoints;
 * - distributed: redis-server + nats-server + model-store + two http-gateways + one opcua-gateway,
 *   so a test can load the console from one gateway and check through the other.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHttpClient, type HttpClient } from "../test-support/http-client.ts";
import { connectOpcua, type OpcuaTestClient } from "../test-support/opcua-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "../test-support/servers.ts";
import {
  EXAMPLE_MODEL,
  findCertificate,
  type Mode,
  startTwinport,
  type TwinportProcess,
} from "../test-support/system.ts";

/**
 * A process serving OPC UA creates its server certificate (an RSA key) on its first start: on a
 * loaded shared machine that alone took more than the default 30 s.
 */
const START_TIMEOUT_MS = 120_000;

export interface ConsoleSystem {
  mode: Mode;
  /** https://127.0.0.1:<port> of each HTTP endpoint (embedded: one; distributed: two gateways). */
  origins: string[];
  /** An API client per HTTP endpoint, in the order of `origins`. */
  clients: HttpClient[];
  opcua: OpcuaTestClient;
  stop(): Promise<void>;
}

export interface ConsoleSystemOptions {
  /** Extra settings of every HTTP endpoint (e.g. consoleEnabled). */
  httpEndpoint?: Record<string, unknown>;
}

export async function startConsoleSystem(mode: Mode, options: ConsoleSystemOptions = {}): Promise<ConsoleSystem> {
  const dirs: string[] = [];
  const processes: TwinportProcess[] = [];
  const clients: HttpClient[] = [];
  const origins: string[] = [];
  let opcua: OpcuaTestClient | undefined;
  let redis: RunningServer | undefined;
  let nats: RunningServer | undefined;
  const tempDir = (role: string) => {
    const dir = mkdtempSync(join(tmpdir(), `twinport-console-${role}-`));
    dirs.push(dir);
    return dir;
  };
  const httpEndpoint = (port: number) => ({
    "@class": "endpoint.http.HttpEndpoint",
    port,
    host: "127.0.0.1",
    sslEnabled: true,
    ...options.httpEndpoint,
  });
  const opcuaEndpoint = (tcpPort: number) => ({
    "@class": "endpoint.opcua.OpcUaEndpoint",
    tcpPort,
    host: "127.0.0.1",
    hostname: "127.0.0.1",
    secondsTillShutdown: 0,
  });
  const addHttp = (port: number, dir: string) => {
    origins.push(`https://127.0.0.1:${port}`);
    clients.push(createHttpClient(`https://127.0.0.1:${port}/api/v3.0`, { ca: findCertificate(dir) }));
  };
  const stop = async () => {
    await opcua?.close().catch(() => undefined);
    for (const client of clients) client.close();
    await Promise.all(processes.map((process) => process.stop()));
    await redis?.stop();
    await nats?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    let opcuaUrl: string;
    if (mode === "embedded") {
      const cwd = tempDir("embedded");
      const [httpPort, opcuaPort] = [await freePort(), await freePort()];
      writeFileSync(
        join(cwd, "config.json"),
        JSON.stringify({ endpoints: [httpEndpoint(httpPort), opcuaEndpoint(opcuaPort)] }),
      );
      const process = await startTwinport({
        role: "embedded",
        cwd,
        args: ["-c", "config.json", "-m", EXAMPLE_MODEL],
        timeoutMs: START_TIMEOUT_MS,
      });
      processes.push(process);
      addHttp(httpPort, cwd);
      opcuaUrl = (process.details.opcua as string[])[0]!;
    } else {
      [redis, nats] = await Promise.all([startRedis(), startNats()]);
      const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
      const storeDir = tempDir("model-store");
      processes.push(await startTwinport({ role: "model-store", cwd: storeDir, args: ["-m", EXAMPLE_MODEL], env }));
      const started: Promise<TwinportProcess>[] = [];
      const httpDirs: [number, string][] = [];
      for (let i = 0; i < 2; i++) {
        const dir = tempDir("http-gateway");
        const port = await freePort();
        writeFileSync(join(dir, "config.json"), JSON.stringify({ endpoints: [httpEndpoint(port)] }));
        httpDirs.push([port, dir]);
        started.push(startTwinport({ role: "http-gateway", cwd: dir, args: ["-c", "config.json"], env }));
      }
      const opcuaDir = tempDir("opcua-gateway");
      writeFileSync(join(opcuaDir, "config.json"), JSON.stringify({ endpoints: [opcuaEndpoint(await freePort())] }));
      started.push(
        startTwinport({
          role: "opcua-gateway",
          cwd: opcuaDir,
          args: ["-c", "config.json"],
          env,
          timeoutMs: START_TIMEOUT_MS,
        }),
      );
      const results = await Promise.allSettled(started);
      for (const result of results) if (result.status === "fulfilled") processes.push(result.value);
      const failed = results.find((result) => result.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      for (const [port, dir] of httpDirs) addHttp(port, dir);
      opcuaUrl = (processes.find((p) => p.role === "opcua-gateway")!.details.opcua as string[])[0]!;
    }
    opcua = await connectOpcua(opcuaUrl, tempDir("opcua-client"));
    return { mode, origins, clients, opcua, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
