/**
 * The distributed set-up of the asset-connection tests: two model-store replicas and an
 * http-gateway as real processes on the caller's redis-server and nats-server, one configuration
 * file for all with the given asset connection, the test model loaded by both replicas (which of
 * them holds the connection's lease is what these tests watch).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ASSET_TEST_MODEL } from "./asset-peers.ts";
import { createHttpClient, type HttpClient } from "./http-client.ts";
import { freePort } from "./servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./system.ts";

export interface AssetFleetOptions {
  /** Part of the processes' folder names, for a reader of /tmp. */
  name: string;
  redisUrl: string;
  natsUrl: string;
  assetConnection: unknown;
  /** Merged over `{ assetConnectionRetryInterval: 200 }`. */
  core?: Record<string, unknown>;
  /** The `events` section, if any (the event log's retention). */
  events?: Record<string, unknown>;
}

export interface AssetFleet {
  stores: TwinportProcess[];
  gateway: TwinportProcess;
  /** HTTPS to the gateway's API (`…/api/v3.0`). */
  client: HttpClient;
  /** Stops the processes and removes their folders; Redis, NATS and the asset stay the caller's. */
  stop(): Promise<void>;
}

export async function startAssetFleet(options: AssetFleetOptions): Promise<AssetFleet> {
  const httpPort = await freePort();
  const config = JSON.stringify({
    core: { assetConnectionRetryInterval: 200, ...options.core },
    persistence: { "@class": "persistence.redis.PersistenceRedis", url: options.redisUrl },
    messageBus: { "@class": "messagebus.nats.MessageBusNats", url: options.natsUrl },
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
    assetConnections: [options.assetConnection],
    ...(options.events ? { events: options.events } : {}),
  });
  const dirs: string[] = [];
  const started: TwinportProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((p) => p.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  const start = async (role: "model-store" | "http-gateway", args: string[] = []) => {
    const cwd = mkdtempSync(join(tmpdir(), `twinport-${options.name}-${role}-`));
    dirs.push(cwd);
    writeFileSync(join(cwd, "config.json"), config);
    writeFileSync(join(cwd, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
    const process = await startTwinport({ role, cwd, args: ["-c", "config.json", ...args] });
    started.push(process);
    return process;
  };
  try {
    // Settled, not Promise.all: a replica still starting when the other failed must be stopped too.
    const replicas = await Promise.allSettled([
      start("model-store", ["-m", "model.json"]),
      start("model-store", ["-m", "model.json"]),
    ]);
    const failed = replicas.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    const stores = replicas.map((r) => (r as PromiseFulfilledResult<TwinportProcess>).value);
    const gateway = await start("http-gateway");
    const client = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dirs.at(-1)!) });
    return {
      stores,
      gateway,
      client,
      async stop() {
        client.close();
        await stop();
      },
    };
  } catch (error) {
    // A start that failed (a port taken under load) leaves nothing running behind it.
    await stop();
    throw error;
  }
}
