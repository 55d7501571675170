import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { listenFailureOf } from "./listen-failure.ts";
import type { ProcessMetrics } from "./process-metrics.ts";
import { evaluateReadiness, type ReadinessCheck } from "./readiness.ts";

export interface ManagementServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Bind address (core.managementHost, see run-role); default 0.0.0.0 so Kubernetes probes and Prometheus reach the pod IP. */
  host?: string;
  metrics: ProcessMetrics;
  /**
   * When the port is taken, listen on a free port instead of failing (for the default port only:
   * two processes on one developer machine must both start; in a container 9464 is always free).
   */
  fallbackToFreePort?: boolean;
  onFallback?: (port: number, freePort: number) => void;
  /**
   * Where `host` came from, for a host that does not resolve or is not this machine's: default
   * core.managementHost. run-role says so when the host was taken from the endpoints.
   */
  hostSetting?: string;
}

export interface ManagementServer {
  port: number;
  /** e.g. http://127.0.0.1:9464 (loopback when it listens on every interface: a URL that works here) */
  url: string;
  /** It listens on every interface (0.0.0.0 or ::), so /metrics is reachable from the network. */
  everyInterface: boolean;
  /** The role has started: /ready now answers from these checks. */
  serving(checks: readonly ReadinessCheck[]): void;
  /** Shutdown began: /ready answers 503 at once, so load balancers stop sending new traffic. */
  stopping(): void;
  close(): Promise<void>;
}

type Phase = "starting" | "serving" | "stopping";

/**
 * The plain-HTTP management port of every process (docs/adr/0005): GET /health (alive),
 * GET /ready (can serve traffic), GET /metrics (Prometheus). Separate from the service ports, so
 * probes need neither TLS nor OPC UA, and nothing here is on the public API surface.
 */
export async function startManagementServer(options: ManagementServerOptions): Promise<ManagementServer> {
  let phase: Phase = "starting";
  let checks: readonly ReadinessCheck[] = [];

  const server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) =>
      send(response, 500, { status: "error", message: (error as Error).message }),
    );
  });
  // Probes and scrapes are short; an idle socket must not keep a stopping process alive.
  server.keepAliveTimeout = 1000;

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET" && request.method !== "HEAD")
      return send(response, 405, { status: "method not allowed" }, { Allow: "GET, HEAD" });
    switch (path) {
      case "/health":
        return send(response, 200, { status: "alive", phase });
      case "/ready": {
        if (phase !== "serving") return send(response, 503, { status: phase });
        const report = await evaluateReadiness(checks);
        return send(response, report.ready ? 200 : 503, {
          status: report.ready ? "ready" : "not ready",
          checks: report.checks,
        });
      }
      case "/metrics": {
        const { contentType, body } = await options.metrics.render();
        response.writeHead(200, { "Content-Type": contentType });
        response.end(body);
        return;
      }
      default:
        return send(response, 404, { status: "not found", paths: ["/health", "/ready", "/metrics"] });
    }
  }

  const host = options.host ?? "0.0.0.0";
  try {
    await listen(server, options.port, host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || !options.fallbackToFreePort)
      throw managementListenError(error as NodeJS.ErrnoException, host, options.port, options.hostSetting);
    await listen(server, 0, host);
    options.onFallback?.(options.port, (server.address() as AddressInfo).port);
  }
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return {
    port,
    url: `http://${urlHost}:${port}`,
    everyInterface: host === "0.0.0.0" || host === "::",
    serving(next) {
      checks = next;
      phase = "serving";
    },
    stopping() {
      phase = "stopping";
    },
    close: () => closeServer(server),
  };
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers });
  response.end(JSON.stringify(body));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off("listening", onListening);
      reject(error);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

const PORT_HINT =
  "Change core.managementPort (TWINPORT_CORE_MANAGEMENTPORT; 0 picks a free port, -1 turns the management port off)";

function managementListenError(
  error: NodeJS.ErrnoException,
  host: string,
  port: number,
  hostSetting = "core.managementHost (TWINPORT_CORE_MANAGEMENTHOST)",
): Error {
  // The host is the problem, not the port: pointing at managementPort sent users to the wrong key.
  const hostHint = `Change ${hostSetting} to an address of this machine (0.0.0.0: every interface)`;
  const failure = listenFailureOf(error, host);
  const reason = failure?.reason ?? error.message;
  const hint = failure?.blame === "host" ? hostHint : PORT_HINT;
  return Object.assign(
    new Error(`Management port cannot listen on ${host}:${port}: ${reason}. ${hint}.`, { cause: error }),
    { code: error.code },
  );
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
