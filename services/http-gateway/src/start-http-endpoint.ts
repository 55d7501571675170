import { createServer as createHttpServer, type RequestListener, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import {
  ConfigError,
  type HttpEndpointSummary,
  type Logger,
  listenFailureOf,
  openHttpAccessInWords,
  type ProcessMetrics,
  type SecurityConfig,
  type StoreClient,
} from "@twinport/shared";
import { trustedClientCas } from "./authentication/trusted-client-cas.ts";
import { createHttpServing } from "./create-http-app.ts";
import type { EventHub } from "./events/event-hub.ts";
import { API_PREFIX } from "./http/api-routes.ts";
import { bufferedBodies } from "./http/buffered-bodies.ts";
import { clientErrorAnswers } from "./http/client-error.ts";
import { connectAnsweredAsRequest } from "./http/connect-requests.ts";
import { limitConnections } from "./http/connection-limit.ts";
import { servedInConnectionOrder } from "./http/connection-order.ts";
import { EmptyBodyFramingResponse } from "./http/empty-body-framing.ts";
import { continueOnlyWithinLimit } from "./http/expect-continue.ts";
import { refusedByRequestLineChecks } from "./http/request-line-checks.ts";
import { cutStalledConnections } from "./http/stalled-connections.ts";
import { unreadableRequestAnswer } from "./http/unreadable-request.ts";
import type { HttpEndpointSettings } from "./http-endpoint-settings.ts";
import { servedExtras } from "./served-extras.ts";
import { SELF_SIGNED_CERT_FILE } from "./tls/self-signed-certificate.ts";
import { tlsCredentials } from "./tls/tls-credentials.ts";

export interface HttpEndpointDeps {
  store: StoreClient;
  settings: HttpEndpointSettings;
  /** Where the self-signed certificate is kept between starts. */
  stateDir: string;
  metrics?: ProcessMetrics;
  logger?: Logger;
  /** How long close() lets in-flight requests finish before cutting connections. Default 10 s. */
  drainTimeoutMs?: number;
  /** The configuration's security section (issue 13); absent: open to anyone, and the log says so. */
  security?: SecurityConfig;
  /** The process's event hub (GET /events). */
  events?: EventHub;
  /** Where the endpoint is in the configuration (`endpoints[2]`), for messages that name a setting. */
  configPath?: string;
  /** Default true: the hot route of create-http-app.ts; tests turn it off to compare with the general path. */
  hotRoutes?: boolean;
  /** The hot route gathers each turn's store calls: for a store that answers in process (docs/adr/0056). */
  gatherTurns?: boolean;
  /**
   * An http-gateway: the model-store behind it may enforce rules of its own, so an endpoint without
   * a security section is open only as far as the store lets anonymous requests through.
   */
  storeMayHaveRules?: boolean;
}

export interface RunningHttpEndpoint {
  /** The port actually bound (differs from the setting when that was 0). */
  port: number;
  url: string;
  /** For the start banner: the API's URL, the pages served beside it, the certificate's file. */
  summary: HttpEndpointSummary;
  /** From now on every answer says Connection: close (the one in flight included); it still serves. */
  draining(): void;
  close(): Promise<void>;
}

/** Serves the HTTP endpoint on its configured address: HTTPS unless `sslEnabled` is false. */
export async function startHttpEndpoint(deps: HttpEndpointDeps): Promise<RunningHttpEndpoint> {
  const { settings, security } = deps;
  const clientCertificates = security?.authentication.clientCertificates;
  if (clientCertificates && !settings.sslEnabled) {
    throw new ConfigError(
      `security.authentication.clientCertificates needs HTTPS: the HTTP endpoint on port ${settings.port} has sslEnabled false`,
    );
  }
  const { app, hotRoute } = createHttpServing({
    store: deps.store,
    settings,
    metrics: deps.metrics,
    logger: deps.logger,
    security,
    ...(deps.events ? { events: deps.events } : {}),
    ...(deps.hotRoutes === false ? { hotRoutes: false } : {}),
    ...(deps.gatherTurns ? { gatherTurns: true } : {}),
  });
  const tls = settings.sslEnabled ? await tlsCredentials(settings, deps.stateDir) : undefined;
  // Mutual TLS: ask for a client certificate and verify it against the configured CAs only, but do
  // not refuse the handshake without one: the request may carry a token or be anonymous, and a
  // refused certificate is answered 401 with a body instead of a bare TLS alert.
  const mutualTls = clientCertificates
    ? { ca: await trustedClientCas(clientCertificates.trustedCaFiles), requestCert: true, rejectUnauthorized: false }
    : {};
  // The hot route (docs/adr/0045) sees each request first and hands on what it does not answer.
  const makeServer = (tls ? createHttpsServer : createHttpServer) as (
    options: object,
    listener: RequestListener,
  ) => Server;
  const clientErrors = clientErrorAnswers({ metrics: deps.metrics, logger: deps.logger });
  // @hono/node-server's listener, given our answer for requests it cannot read (createAdaptorServer
  // would take no errorHandler).
  const general = getRequestListener(app.fetch, {
    errorHandler: unreadableRequestAnswer({ metrics: deps.metrics, logger: deps.logger }),
  }) as RequestListener;
  // Once the endpoint closes, every answer says Connection: close, so no client sends another
  // request on a connection that is cut the moment it is idle (closeServer).
  let closing = false;
  const logs = { metrics: deps.metrics, logger: deps.logger };
  // Bodies held at once are bounded, checked in the request's turn (buffered-bodies.ts).
  const buffered = bufferedBodies(settings.maxBufferedRequestBodySize, settings.maxRequestBodySize, logs);
  // Each request is known to the client-error answers as it arrives, so bytes that are no request
  // are refused after the answer of the last one, even one still waiting its turn (connection-order.ts).
  const ordered = servedInConnectionOrder((incoming, outgoing) => {
    if (closing) outgoing.shouldKeepAlive = false;
    if (refusedByRequestLineChecks(incoming, outgoing, logs)) return;
    if (buffered.refused(incoming, outgoing)) return;
    if (hotRoute?.(incoming, outgoing)) return;
    general(incoming, outgoing);
  });
  const listener: RequestListener = (incoming, outgoing) => {
    clientErrors.dispatched(incoming, outgoing);
    ordered(incoming, outgoing);
  };
  const server = makeServer(
    // A request without Host, or with two, is ours to answer, with a Result body
    // (request-line-checks.ts). allowHalfOpen: see answeredAfterHalfClose (node:http sets it on its
    // plain sockets, tls.Server does not).
    // Answers ended without a byte say Content-Length: 0, not chunked (empty-body-framing.ts).
    {
      ...(tls ? { key: tls.key, cert: tls.cert, ...mutualTls } : {}),
      requireHostHeader: false,
      allowHalfOpen: true,
      ServerResponse: EmptyBodyFramingResponse,
    },
    listener,
  );
  // CONNECT is answered like any method the path does not serve, not dropped (connect-requests.ts).
  connectAnsweredAsRequest(server, listener);
  // No "100 Continue" for a body that will be refused for its size, or finds the bodies held full (expect-continue.ts).
  continueOnlyWithinLimit(server, listener, settings.maxRequestBodySize, buffered.fits);
  answeredAfterHalfClose(server, tls !== undefined, clientErrors.inFlight);
  limitConnections(server, settings.maxConnections, deps.logger);
  server.once("close", buffered.stop);
  clientErrors.attach(server);
  // Connections that never send a request, and answers whose client stopped reading, are cut
  // (Node leaves both open). The first only after Node's own 408 for headers that come too slowly
  // (headersTimeout, checked every connectionsCheckingInterval) has had its chance.
  const stalls = cutStalledConnections(server, {
    firstRequestMs: server.headersTimeout + NODE_CONNECTIONS_CHECKING_INTERVAL_MS,
    writeStallMs: WRITE_STALL_MS,
  });
  // The connections requests arrive on (TLS sockets for HTTPS), to mark the answers in flight at close.
  const connections = new Set<Duplex>();
  server.on(tls ? "secureConnection" : "connection", (socket: Duplex) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
    stalls.watch(socket);
  });

  function draining(): void {
    closing = true;
    for (const socket of connections) {
      const response = clientErrors.inFlight(socket);
      if (response !== undefined && !response.headersSent) response.shouldKeepAlive = false;
    }
  }

  await listen(server, settings, deps.configPath);
  const port = (server.address() as AddressInfo).port;
  const scheme = tls ? "https" : "http";
  const url = `${scheme}://${urlHost(settings)}:${port}`;
  if (!security) {
    deps.logger?.warn(
      `HTTP endpoint ${url} is OPEN: no security section is configured, so anyone who can reach it can ${openHttpAccessInWords(settings.profiles)}${deps.storeMayHaveRules ? " (unless the model-store has a security section of its own: its rules then decide every request from here, as anonymous)" : ""}. See docs/security.md.`,
    );
  }
  return {
    port,
    url,
    summary: {
      url: `${url}${API_PREFIX}`,
      extras: servedExtras(settings).map((extra) => ({ label: extra.label, url: `${url}${extra.path}` })),
      ...(settings.sslEnabled
        ? {
            certificate: settings.certificate?.keyStorePath
              ? resolve(settings.certificate.keyStorePath)
              : `${resolve(join(deps.stateDir, SELF_SIGNED_CERT_FILE))} (self-signed)`,
          }
        : {}),
    },
    draining,
    close: () => {
      draining();
      stalls.stop();
      return closeServer(server, deps.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
    },
  };
}

/**
 * A client that half-closes its side (FIN, `socket.end()`) right after a complete request still
 * wants the answer: RFC 9112 §9.6, "a half-closed TCP connection does not delimit a request
 * message, nor does it imply that the client is no longer interested in a response". Node's server
 * ends the connection at the client's FIN unless `httpAllowHalfOpen` is set (a long-standing
 * property of http.Server, not in its typings), so an answer not yet written then (the store call of
 * a distributed or Redis-backed write is still in flight) was lost although the write was made.
 * With it set, Node marks the in-flight answer as the connection's last and ends the socket after
 * it; a connection with no request in flight is ended at once, and an incomplete request fails in
 * the parser at the FIN as before (client-error.ts). Node leaves that answer's head as it was
 * (`Connection: keep-alive` for an HTTP/1.1 client), so the FIN also marks the connection's
 * latest answer, if its head is not yet written, Connection: close, as close() does: the head
 * then says what the server does. One listener per connection, nothing per request.
 */
function answeredAfterHalfClose(
  server: Server,
  secure: boolean,
  inFlight: (socket: Duplex) => ServerResponse | undefined,
): void {
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on(secure ? "secureConnection" : "connection", (socket: Duplex) => {
    socket.once("end", () => {
      const response = inFlight(socket);
      if (response !== undefined && !response.headersSent) response.shouldKeepAlive = false;
    });
  });
}

function listen(server: Server, settings: HttpEndpointSettings, configPath: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      reject(listenError(error, settings, configPath));
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(settings.port, settings.host);
  });
}

/**
 * Turns bind failures into a message that says which setting to change; `configPath` is where the
 * endpoint is in the configuration (`endpoints[2]`), when the caller knows it.
 */
export function listenError(error: NodeJS.ErrnoException, settings: HttpEndpointSettings, configPath?: string): Error {
  const where = `${settings.host}:${settings.port}`;
  const setting = (key: string) =>
    configPath === undefined ? `the HTTP endpoint's "${key}" setting` : `${configPath}.${key}`;
  const failure = listenFailureOf(error, settings.host);
  const hint =
    failure === undefined
      ? ""
      : failure.blame === "host"
        ? failure.code === "EADDRNOTAVAIL"
          ? ` Change ${setting("host")}.`
          : ` Change ${setting("host")} to an address of this machine (0.0.0.0: every interface).`
        : failure.code === "EACCES"
          ? ` Change ${setting("port")} (e.g. to 8443), or grant the capability to bind it.`
          : ` Change ${setting("port")}, or stop the other process.`;
  const message = `HTTP endpoint cannot listen on ${where}: ${failure === undefined ? error.message : `${failure.reason}.${hint}`}`;
  return Object.assign(new Error(message, { cause: error }), { code: error.code });
}

function urlHost(settings: HttpEndpointSettings): string {
  const host =
    settings.host === "0.0.0.0" || settings.host === "::" || settings.host === "" ? "localhost" : settings.host;
  return host.includes(":") ? `[${host}]` : host;
}

/** Below runRole's 30 s stop timeout and Kubernetes' default 30 s grace period. */
const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
/** Node's default `connectionsCheckingInterval` (not set here): how often it looks for late headers. */
const NODE_CONNECTIONS_CHECKING_INTERVAL_MS = 30_000;
/** How long an answer may wait for a client that does not read before its connection is cut. */
const WRITE_STALL_MS = 60_000;
const IDLE_SWEEP_MS = 50;

/**
 * Graceful close: stop accepting, let in-flight requests finish (a keep-alive connection is cut as
 * soon as it is idle, i.e. between requests), and cut whatever is still open after the drain time.
 */
function closeServer(server: Server, drainTimeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) return resolve();
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => server.closeAllConnections(), drainTimeoutMs);
    server.close((error) => {
      clearInterval(sweep);
      clearTimeout(cut);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
