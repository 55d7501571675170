import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { type ConnectionChange, watchConnection } from "./connection-watch.ts";

export type { NatsConnection } from "@nats-io/nats-core";

export interface ConnectNatsOptions {
  /** e.g. nats://127.0.0.1:4222 (several, comma-separated, for a cluster). */
  url: string;
  /** Shown by the server (connz), e.g. "http-gateway"; helps tell replicas apart. */
  name: string;
  /** Connection changes; default: one line on stderr per disconnect, reconnect and error. */
  onChange?: (change: ConnectionChange, detail: string) => void;
}

/**
 * Wait between reconnect attempts. nats' default (2 s) would keep a gateway answering 503 for up to
 * 2 s after a NATS restart; 500 ms is still gentle on a restarting server.
 */
const RECONNECT_WAIT_MS = 500;

/**
 * Connects with the defaults a long-running service needs: never give up
 * reconnecting (nats' default stops for good after 10 attempts, about 20 s), and wait for a server
 * that is not up yet instead of failing at start (compose and k8s start everything at once).
 */
export async function connectNats(options: ConnectNatsOptions): Promise<NatsConnection> {
  const connection = await connect({
    servers: options.url.split(",").map((url) => url.trim()),
    name: options.name,
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    reconnectTimeWait: RECONNECT_WAIT_MS,
  });
  watchConnection(connection, options.onChange ?? logChange(options.name));
  return connection;
}

function logChange(name: string): (change: ConnectionChange, detail: string) => void {
  return (change, detail) => {
    if (change === "disconnect" || change === "reconnect" || change === "error" || change === "ldm") {
      console.error(`twinport ${name}: NATS ${change} (${detail})`);
    }
  };
}
