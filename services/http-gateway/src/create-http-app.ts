import {
  ANONYMOUS,
  echoed,
  type Logger,
  type ProcessMetrics,
  type ReplyError,
  type SecurityConfig,
  type StoreClient,
} from "@twinport/shared";
import { Hono } from "hono";
import { authentication, createAuthenticator } from "./authentication/authenticate.ts";
import { mountConsole } from "./console/console-routes.ts";
import type { EventHub } from "./events/event-hub.ts";
import { ApiError, badRequest } from "./http/api-error.ts";
import { apiRequestChecks } from "./http/api-request-checks.ts";
import { API_PREFIX, type ApiRoute, MethodNotAllowed, mountApiRoutes } from "./http/api-routes.ts";
import { commandSender } from "./http/command-sender.ts";
import { corsPolicy } from "./http/cors-policy.ts";
import { crossSiteRequestGuard } from "./http/cross-site-requests.ts";
import { errorResponse } from "./http/error-response.ts";
import { type GatewayContext, incomingMessageOf } from "./http/gateway-env.ts";
import { HOT_VALUE_ROUTE, type HotRoute, hotValueRoute } from "./http/hot-value-route.ts";
import { RememberingRouter } from "./http/remembering-router.ts";
import { requestFrame } from "./http/request-frame.ts";
import { anonymousUnlessAuthenticated } from "./http/request-principal.ts";
import { clientPrefix, routingPathWithPrefix } from "./http/routing-path.ts";
import { sniHostCheck } from "./http/sni-host-check.ts";
import type { HttpEndpointSettings } from "./http-endpoint-settings.ts";
import {
  isServed,
  SHELL_REPOSITORY,
  SUBMODEL_API_BELOW_SHELL,
  SUBMODEL_API_IN_REPOSITORY,
  SUBMODEL_REPOSITORY,
} from "./profiles.ts";
import { aasRoutes } from "./routes/aas.ts";
import { aasRepositoryRoutes } from "./routes/aas-repository.ts";
import { conceptDescriptionRepositoryRoutes } from "./routes/concept-description-repository.ts";
import { descriptionRoutes } from "./routes/description.ts";
import { discoveryRoutes } from "./routes/discovery.ts";
import { eventRoutes } from "./routes/events.ts";
import { fileRoutes } from "./routes/file-routes.ts";
import { mountOpenApiRoutes } from "./routes/openapi-routes.ts";
import { operationRoutes } from "./routes/operations.ts";
import { submodelRoutes } from "./routes/submodel.ts";
import { submodelRepositoryRoutes } from "./routes/submodel-repository.ts";

export interface HttpAppDeps {
  store: StoreClient;
  settings: HttpEndpointSettings;
  /** Recorded as the commands' (and so the events') origin; "http" unless an embedder says otherwise. */
  origin?: string;
  /** Request count/latency per route template and status; absent in tests without a process. */
  metrics?: ProcessMetrics;
  /** Request log lines with their correlation id. */
  logger?: Logger;
  /** The configuration's security section: absent, the endpoint is open and commands carry no principal. */
  security?: SecurityConfig;
  /** The process's event hub, for GET /events (absent: that path answers 503). */
  events?: EventHub;
  /**
   * Answer the plain GET/PATCH of an element's `$value` without Hono (http/hot-value-route.ts,
   * docs/adr/0045). Default true; tests turn it off to compare it with the general path.
   */
  hotRoutes?: boolean;
  /** The hot route gathers each turn's store calls (hot-value-route.ts): for a store that answers in process. */
  gatherTurns?: boolean;
}

/** The app, and the hot route to try before it (undefined where the endpoint cannot use it). */
export interface HttpServing {
  app: Hono;
  hotRoute?: HotRoute;
}

/**
 * The HTTP endpoint as a Hono app, without a socket: AAS API requests become store commands and
 * replies become responses. No model logic lives here.
 */
export function createHttpApp(deps: HttpAppDeps): Hono {
  return createHttpServing(deps).app;
}

/** createHttpApp with the hot route beside it, for a Node server (start-http-endpoint.ts). */
export function createHttpServing(deps: HttpAppDeps): HttpServing {
  const { settings } = deps;
  const send = commandSender(deps.store, deps.origin ?? "http");
  // "%24" for "$" and one trailing slash are read as the path the client means, and FA³ST's
  // pathPrefix as /api/v3.0 (routing-path.ts). The router remembers the routes of recent paths
  // (ADR 0026: Hono's fast router cannot hold them).
  const app = new Hono({ getPath: routingPathWithPrefix(settings.pathPrefix), router: new RememberingRouter() });

  app.onError((error, c) => {
    const headers: Record<string, string> = error instanceof MethodNotAllowed ? { Allow: error.allow } : {};
    return errorResponse(c, replyErrorOf(error, c), { includeErrorDetails: settings.includeErrorDetails, headers });
  });
  app.notFound((c) =>
    errorResponse(
      c,
      { code: "not-found", message: `Nothing is served at ${echoed(c.req.path)}` },
      { includeErrorDetails: false },
    ),
  );

  // Correlation id and, with metrics, the request's count, latency and log line.
  app.use("*", requestFrame(deps.metrics, deps.logger));
  if (settings.pathPrefix !== undefined && settings.pathPrefix !== API_PREFIX)
    app.use("*", clientPrefix(settings.pathPrefix));
  if (settings.sslEnabled && settings.sniEnabled) app.use("*", sniHostCheck());
  if (settings.corsEnabled) app.use("*", corsPolicy(settings));
  // After CORS (a preflight is answered there), before anything reads a body or runs a command.
  app.use("*", crossSiteRequestGuard(settings));
  // Who asks (bearer token, client certificate, or anonymous): after CORS (a preflight carries no
  // credentials), before any body is read.
  if (deps.security)
    app.use(
      "*",
      authentication(createAuthenticator(deps.security), {
        clientCertificates: deps.security.authentication.clientCertificates !== undefined,
        log: (line) => deps.logger?.warn({ component: "authentication" }, line),
      }),
    );
  const routes = [
    ...aasRepositoryRoutes({ send }),
    ...aasRoutes({ send }),
    ...submodelRoutes(
      { send },
      {
        path: "/shells/:aasIdentifier/submodels/:submodelIdentifier",
        profiles: SUBMODEL_API_BELOW_SHELL,
        deleteProfiles: SHELL_REPOSITORY.write,
        belowShell: true,
      },
    ),
    // The same Submodel API in the form spec §4.1.5 names (an earlier draft's superpath).
    ...submodelRoutes(
      { send },
      {
        path: "/shells/:aasIdentifier/aas/submodels/:submodelIdentifier/submodel",
        profiles: SUBMODEL_API_BELOW_SHELL,
        deleteProfiles: SHELL_REPOSITORY.write,
        belowShell: true,
      },
    ),
    ...submodelRepositoryRoutes({ send }),
    ...submodelRoutes(
      { send },
      {
        path: "/submodels/:submodelIdentifier",
        profiles: SUBMODEL_API_IN_REPOSITORY,
        deleteProfiles: SUBMODEL_REPOSITORY.write,
        belowShell: false,
      },
    ),
    ...conceptDescriptionRepositoryRoutes({ send }),
    ...discoveryRoutes({ send }),
    ...fileRoutes({ send }),
    ...operationRoutes({ send }),
    ...eventRoutes(deps.events, (deps.security?.authentication.bearer?.clockSkewSeconds ?? 0) * 1000),
  ];
  // Last: /description lists the profiles of the routes above that this endpoint serves.
  routes.push(...descriptionRoutes(routes, settings.profiles));
  // The API's description and Swagger UI (docs/adr/0032): before the API's middleware, readable by
  // whoever reaches the endpoint; built from the same route list as what is mounted below.
  if (settings.openApiEnabled)
    mountOpenApiRoutes(app, {
      routes,
      enabledProfiles: settings.profiles,
      bearer: deps.security?.authentication.bearer !== undefined,
    });
  // maxRequestBodySize for writes, Accept for reads.
  app.use(`${API_PREFIX}/*`, apiRequestChecks(settings.maxRequestBodySize));
  if (deps.security)
    app.use(
      `${API_PREFIX}/*`,
      anonymousUnlessAuthenticated({
        cors: settings.corsEnabled,
        clientCertificates: deps.security.authentication.clientCertificates !== undefined,
      }),
    );

  mountApiRoutes(app, routes, settings.profiles);

  // Inside the API prefix an unknown path is a malformed request (spec §7); outside it, 404.
  // Named as the client sent it: with a pathPrefix the routed path is another (routing-path.ts).
  const unknownApiPath = (c: { req: { url: string } }): never => {
    throw badRequest(`${echoed(new URL(c.req.url).pathname)} is not a path of the AAS API served here`);
  };
  app.all(API_PREFIX, unknownApiPath);
  app.all(`${API_PREFIX}/*`, unknownApiPath);
  if (settings.consoleEnabled) mountConsole(app);
  return { app, ...hotRouteOf(deps, routes) };
}

/**
 * The hot route answers as the general path does only where no middleware adds to or decides on a
 * request of its own: without CORS and client certificates. With a security section it takes only
 * requests without an Authorization header, whose principal is ANONYMOUS (the engine checks the
 * rules); the SNI check it makes itself (a mismatch goes the general path, which answers it). Its
 * operations are served as the profiles say, like the route they shortcut.
 */
function hotRouteOf(deps: HttpAppDeps, routes: readonly ApiRoute[]): { hotRoute?: HotRoute } {
  const { settings } = deps;
  // includeErrorDetails (a debugging setting) wants every error's stack, which only the general path has.
  if (
    deps.hotRoutes === false ||
    settings.corsEnabled ||
    settings.includeErrorDetails ||
    deps.security?.authentication.clientCertificates
  )
    return {};
  const route = routes.find((candidate) => `${API_PREFIX}${candidate.path}` === HOT_VALUE_ROUTE);
  const served = (method: string) =>
    route?.operations.some(
      (operation) => operation.method === method && isServed(operation.profiles, settings.profiles),
    ) ?? false;
  const serves = { get: served("GET"), patch: served("PATCH") };
  if (!serves.get && !serves.patch) return {};
  return {
    hotRoute: hotValueRoute({
      store: deps.store,
      origin: deps.origin ?? "http",
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      ...(deps.logger ? { logger: deps.logger } : {}),
      includeErrorDetails: settings.includeErrorDetails,
      maxRequestBodySize: settings.maxRequestBodySize,
      serves,
      sniCheck: settings.sslEnabled && settings.sniEnabled,
      ...(deps.gatherTurns ? { gatherTurns: true } : {}),
      // authentication.ts's principal of a request without credentials; the others go the general path.
      ...(deps.security ? { anonymous: ANONYMOUS } : {}),
    }),
  };
}

function replyErrorOf(error: unknown, c: GatewayContext): ReplyError {
  // A client error carries the stack of where it was raised, shown only with includeErrorDetails
  // (spec §7.1: "a stack trace is added to error responses"), as FA³ST shows its exceptions'.
  if (error instanceof ApiError)
    return error.error.stack === undefined && error.stack !== undefined
      ? { ...error.error, stack: error.stack }
      : error.error;
  // The body could not be read because the client broke the HTTP framing (Node's parser refused
  // it and answered 400 on the socket, see client-error.ts): the client's fault, counted as such.
  const incoming = incomingMessageOf(c);
  if (incoming !== undefined && (incoming.errored || (incoming.destroyed && !incoming.complete))) {
    return {
      code: "bad-request",
      message: "The request could not be read (malformed HTTP framing, or the client went away)",
    };
  }
  // Anything else is a bug in the gateway: 500, with its stack only when the endpoint allows it.
  // The message stays generic: internals reach a client only through includeErrorDetails.
  const reply: ReplyError = { code: "internal", message: "Internal server error" };
  if (error instanceof Error && error.stack !== undefined) reply.stack = error.stack;
  return reply;
}
