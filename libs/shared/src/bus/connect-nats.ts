import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { type ConnectionChange, watchConnection } from "./connection-watch.ts";

export type { NatsConnection } from "@nats-io/nats-core";

export interface ConnectNatsOptions {
  /** e.g. nats://127.0.0.1:4222 (several, comma-separated, for a cluster). */
  url: string;
  /** Shown by the server (connz), e.g. "http-gateway"; helps tell replicas apart. */
  name: string;
  /**
   * Connection changes; default: one line on stderr per disconnect, reconnect and error. "waiting"
   * (detail: the servers) once, when no server has answered the first connect within a few seconds.
   */
  onChange?: (change: ConnectionChange | "waiting", detail: string) => void;
}

/** How long a first connect may take before the process says what it waits for (else it is silent). */
const WAITING_NOTICE_MS = 3_000;

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
  const { servers, credentials } = serversOf(options.url);
  const onChange = options.onChange ?? logChange(options.name);
  const waiting = setTimeout(() => onChange("waiting", servers.join(",")), WAITING_NOTICE_MS);
  waiting.unref();
  try {
    const connection = await connect({
      servers,
      ...credentials,
      name: options.name,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      reconnectTimeWait: RECONNECT_WAIT_MS,
    });
    watchConnection(connection, onChange);
    return connection;
  } finally {
    clearTimeout(waiting);
  }
}

/**
 * The server list, and credentials written into a URL as NATS tools take them: `nats://user:pass@host`
 * (user and password) or `nats://token@host` (a token). nats.js does not read them from the URL
 * itself, so a secured NATS answered "Authorization Violation". The first URL's credentials count
 * (the servers of one cluster share them); they are taken out of the list the client logs.
 */
export function serversOf(url: string): {
  servers: string[];
  credentials: { user: string; pass: string } | { token: string } | Record<string, never>;
} {
  let credentials: { user: string; pass: string } | { token: string } | Record<string, never> = {};
  const servers = url
    .split(",")
    .map((item) => item.trim())
    .map((item, index) => {
      const at = item.lastIndexOf("@");
      const scheme = item.indexOf("://");
      if (at < 0 || scheme < 0 || at < scheme) return item;
      const userinfo = item.slice(scheme + 3, at);
      if (index === 0) {
        const colon = userinfo.indexOf(":");
        credentials =
          colon < 0
            ? { token: decodeURIComponent(userinfo) }
            : {
                user: decodeURIComponent(userinfo.slice(0, colon)),
                pass: decodeURIComponent(userinfo.slice(colon + 1)),
              };
      }
      return item.slice(0, scheme + 3) + item.slice(at + 1);
    });
  return { servers, credentials };
}

function logChange(name: string): (change: ConnectionChange | "waiting", detail: string) => void {
  return (change, detail) => {
    if (change === "waiting")
      console.error(`twinport ${name}: waiting for NATS at ${detail} (no answer yet; retrying)`);
    else if (change === "disconnect" || change === "reconnect" || change === "error" || change === "ldm") {
      console.error(`twinport ${name}: NATS ${change} (${detail})`);
    }
  };
}
