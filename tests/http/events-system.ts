/**
 * The system under test of the event stream suite, as real processes that can be restarted on the
 * same ports and state: embedded (one process: HTTP + OPC UA, memory store) or distributed
 * (redis-server + nats-server + model-store + two http-gateways + an opcua-gateway). Every HTTP
 * endpoint is plain HTTP (an EventSource client then needs no certificate handling), plus one that
 * serves only SUBMODEL_REPOSITORY_READ, to show /events follows the profiles.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type RunningServer, startNats, startRedis } from "../test-support/servers.ts";
import { type Mode, type StartOptions, startTwinport, type TwinportProcess } from "../test-support/system.ts";

export interface RestartableProcess {
  current: TwinportProcess;
  /** SIGTERM (or the given signal) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
}

export interface EventsSystem {
  mode: Mode;
  /** Base URLs (…/api/v3.0) of the full HTTP endpoints: embedded one, distributed one per gateway. */
  api: string[];
  /** An endpoint of the first HTTP process that serves only SUBMODEL_REPOSITORY_READ. */
  readOnlyApi: string;
  opcuaUrl?: string;
  /** The processes serving HTTP (embedded: the one process). */
  gateways: RestartableProcess[];
  /** Distributed: the model-store. */
  store?: RestartableProcess;
  redis?: RunningServer;
  stop(): Promise<void>;
}

export interface EventsSystemOptions {
  model: string;
  /** The `events` and any other top-level sections, for every process. */
  config?: Record<string, unknown>;
  opcua?: boolean;
}

const http = (port: number, extra: Record<string, unknown> = {}) => ({
  "@class": "endpoint.http.HttpEndpoint",
  port,
  host: "127.0.0.1",
  sslEnabled: false,
  ...extra,
});
const opcua = (tcpPort: number) => ({
  "@class": "endpoint.opcua.OpcUaEndpoint",
  tcpPort,
  host: "127.0.0.1",
  hostname: "127.0.0.1",
  secondsTillShutdown: 0,
});

async function restartable(options: StartOptions): Promise<RestartableProcess> {
  const process: RestartableProcess = {
    current: await startTwinport(options),
    async stop(signal) {
      await process.current.stop(signal);
    },
    async start() {
      process.current = await startTwinport(options);
    },
  };
  return process;
}

export async function startEventsSystem(mode: Mode, options: EventsSystemOptions): Promise<EventsSystem> {
  const dirs: string[] = [];
  const processes: RestartableProcess[] = [];
  let redis: RunningServer | undefined;
  let nats: RunningServer | undefined;
  const dir = (role: string) => {
    const made = mkdtempSync(join(tmpdir(), `twinport-events-${role}-`));
    dirs.push(made);
    return made;
  };
  const configIn = (cwd: string, endpoints: unknown[]) =>
    writeFileSync(join(cwd, "config.json"), JSON.stringify({ ...options.config, endpoints }));
  const stop = async () => {
    await Promise.all(processes.map((process) => process.stop().catch(() => undefined)));
    await redis?.stop();
    await nats?.stop();
    for (const made of dirs) rmSync(made, { recursive: true, force: true });
  };
  try {
    const readOnlyPort = await freePort();
    const readOnly = http(readOnlyPort, { profiles: ["SUBMODEL_REPOSITORY_READ"] });
    if (mode === "embedded") {
      const cwd = dir("embedded");
      const port = await freePort();
      const opcuaPort = options.opcua ? await freePort() : undefined;
      configIn(cwd, [http(port), readOnly, ...(opcuaPort ? [opcua(opcuaPort)] : [])]);
      const embedded = await restartable({ role: "embedded", cwd, args: ["-c", "config.json", "-m", options.model] });
      processes.push(embedded);
      return {
        mode,
        api: [`http://127.0.0.1:${port}/api/v3.0`],
        readOnlyApi: `http://127.0.0.1:${readOnlyPort}/api/v3.0`,
        ...(opcuaPort ? { opcuaUrl: (embedded.current.details.opcua as string[])[0] } : {}),
        gateways: [embedded],
        stop,
      };
    }
    [redis, nats] = await Promise.all([startRedis(), startNats()]);
    const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
    const storeDir = dir("model-store");
    configIn(storeDir, []);
    const store = await restartable({
      role: "model-store",
      cwd: storeDir,
      args: ["-c", "config.json", "-m", options.model],
      env,
    });
    processes.push(store);
    const api: string[] = [];
    const gateways: RestartableProcess[] = [];
    for (let i = 0; i < 2; i++) {
      const cwd = dir("http-gateway");
      const port = await freePort();
      configIn(cwd, i === 0 ? [http(port), readOnly] : [http(port)]);
      const gateway = await restartable({ role: "http-gateway", cwd, args: ["-c", "config.json"], env });
      processes.push(gateway);
      gateways.push(gateway);
      api.push(`http://127.0.0.1:${port}/api/v3.0`);
    }
    let opcuaUrl: string | undefined;
    if (options.opcua) {
      const cwd = dir("opcua-gateway");
      configIn(cwd, [opcua(await freePort())]);
      const gateway = await restartable({ role: "opcua-gateway", cwd, args: ["-c", "config.json"], env });
      processes.push(gateway);
      opcuaUrl = (gateway.current.details.opcua as string[])[0];
    }
    return {
      mode,
      api,
      readOnlyApi: `http://127.0.0.1:${readOnlyPort}/api/v3.0`,
      ...(opcuaUrl ? { opcuaUrl } : {}),
      gateways,
      store,
      redis,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
