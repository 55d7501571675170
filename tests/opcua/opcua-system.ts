/**
 * The system under test for the OPC UA black-box suites, as real processes through the twinport CLI:
 * - embedded: one process serving HTTPS and OPC UA (memory repository, in-process bus);
 * - distributed: redis-server + nats-server + model-store + http-gateway + N opcua-gateways.
 * Every process gets its own temp dir (PKI folders default below it) and loads the OPC UA test model.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHttpClient, type HttpClient } from "../test-support/http-client.ts";
import { connectOpcua, type OpcuaTestClient } from "../test-support/opcua-client.ts";
import { opcuaTestEnvironment } from "../test-support/opcua-model.ts";
import { freePort, type RedisOptions, type RunningServer, startNats, startRedis } from "../test-support/servers.ts";
import { findCertificate, type Mode, startTwinport, type TwinportProcess } from "../test-support/system.ts";

export interface OpcuaSystem {
  mode: Mode;
  http: HttpClient;
  /** One connected client per OPC UA endpoint (embedded: one; distributed: one per opcua-gateway). */
  opcua: OpcuaTestClient[];
  opcuaUrls: string[];
  /** The log file of each process serving OPC UA, in the order of `opcua`. */
  opcuaLogs: string[];
  /** The management URL (/metrics) of each process serving OPC UA, in the order of `opcua`. */
  management: string[];
  stop(): Promise<void>;
}

const httpEndpoint = (port: number) => ({
  "@class": "endpoint.http.HttpEndpoint",
  port,
  host: "127.0.0.1",
  sslEnabled: true,
});
const opcuaEndpoint = (tcpPort: number) => ({
  "@class": "endpoint.opcua.OpcUaEndpoint",
  tcpPort,
  host: "127.0.0.1",
  hostname: "127.0.0.1",
  secondsTillShutdown: 0,
});

export interface OpcuaSystemOptions {
  opcuaGateways?: number;
  model?: unknown;
  /** Top-level configuration sections (e.g. security) given to every process. */
  config?: Record<string, unknown>;
  /** Extra settings of the OPC UA endpoint(s), e.g. supportedAuthentications and userMap. */
  opcuaEndpoint?: Record<string, unknown>;
  /** Called with the working folder of each process serving OPC UA before it starts (e.g. to trust user certificates). */
  prepareOpcuaDir?: (dir: string) => void;
  /** Distributed mode's redis-server (e.g. AOF with appendfsync always, as shipped, for benchmarks). */
  redis?: RedisOptions;
}

export async function startOpcuaSystem(mode: Mode, options: OpcuaSystemOptions = {}): Promise<OpcuaSystem> {
  const configFile = (sections: Record<string, unknown>) => JSON.stringify({ ...options.config, ...sections });
  const opcuaEndpointOf = (tcpPort: number) => ({ ...opcuaEndpoint(tcpPort), ...options.opcuaEndpoint });
  const dirs: string[] = [];
  const processes: TwinportProcess[] = [];
  const clients: OpcuaTestClient[] = [];
  let http: HttpClient | undefined;
  let redis: RunningServer | undefined;
  let nats: RunningServer | undefined;
  const tempDir = (role: string) => {
    const dir = mkdtempSync(join(tmpdir(), `twinport-opcua-${role}-`));
    dirs.push(dir);
    return dir;
  };
  const stop = async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    http?.close();
    await Promise.all(processes.map((process) => process.stop()));
    await redis?.stop();
    await nats?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const modelDir = tempDir("model");
    const model = join(modelDir, "model.json");
    writeFileSync(model, JSON.stringify(options.model ?? opcuaTestEnvironment()));
    const httpPort = await freePort();
    const opcuaUrls: string[] = [];
    const management: string[] = [];
    const opcuaLogs: string[] = [];
    if (mode === "embedded") {
      const cwd = tempDir("embedded");
      const opcuaPort = await freePort();
      writeFileSync(
        join(cwd, "config.json"),
        configFile({ endpoints: [httpEndpoint(httpPort), opcuaEndpointOf(opcuaPort)] }),
      );
      options.prepareOpcuaDir?.(cwd);
      const process = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json", "-m", model] });
      processes.push(process);
      http = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(cwd) });
      opcuaUrls.push(...(process.details.opcua as string[]));
      management.push(process.details.management as string);
      opcuaLogs.push(process.logFile);
    } else {
      [redis, nats] = await Promise.all([startRedis(options.redis), startNats()]);
      const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
      const storeDir = tempDir("model-store");
      writeFileSync(join(storeDir, "config.json"), configFile({}));
      processes.push(
        await startTwinport({ role: "model-store", cwd: storeDir, args: ["-c", "config.json", "-m", model], env }),
      );
      const httpDir = tempDir("http-gateway");
      writeFileSync(join(httpDir, "config.json"), configFile({ endpoints: [httpEndpoint(httpPort)] }));
      const gateways = [startTwinport({ role: "http-gateway", cwd: httpDir, args: ["-c", "config.json"], env })];
      for (let i = 0; i < (options.opcuaGateways ?? 1); i++) {
        const cwd = tempDir("opcua-gateway");
        writeFileSync(join(cwd, "config.json"), configFile({ endpoints: [opcuaEndpointOf(await freePort())] }));
        options.prepareOpcuaDir?.(cwd);
        gateways.push(startTwinport({ role: "opcua-gateway", cwd, args: ["-c", "config.json"], env }));
      }
      // Started side by side: each waits for what it needs (NATS, the model-store) by itself.
      const started = await Promise.allSettled(gateways);
      for (const result of started) if (result.status === "fulfilled") processes.push(result.value);
      const failed = started.find((result) => result.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      http = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(httpDir) });
      for (const process of processes.filter((p) => p.role === "opcua-gateway")) {
        opcuaUrls.push(...(process.details.opcua as string[]));
        management.push(process.details.management as string);
        opcuaLogs.push(process.logFile);
      }
    }
    const pki = tempDir("client");
    for (const url of opcuaUrls) clients.push(await connectOpcua(url, pki));
    return { mode, http, opcua: clients, opcuaUrls, opcuaLogs, management, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
