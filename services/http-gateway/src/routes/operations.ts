import {
  DEFAULT_SYNC_INVOCATION_TIMEOUT_MS,
  encodeBase64Url,
  isoDurationToMs,
  MAX_SYNC_INVOCATION_TIMEOUT_MS,
  parseJsonText,
} from "@twinport/shared";
import type { ApiOperation, ApiRoute } from "../http/api-routes.ts";
import { booleanQuery } from "../http/boolean-query.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { identifierParam, idShortPathParam } from "../http/path-params.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { jsonText } from "../http/reply-response.ts";
import { optionalJsonBodyText } from "../http/request-body.ts";
import { type ProfileSets, SUBMODEL_API_BELOW_SHELL, SUBMODEL_API_IN_REPOSITORY } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/** A Submodel API mount the operation endpoints are served at (the same mounts as create-http-app.ts). */
interface OperationMount {
  path: string;
  profiles: ProfileSets;
  belowShell: boolean;
  /** Profiles that contain only the synchronous invocation (the Submodel Service's value profile, SSP-003). */
  syncOnlyProfiles: readonly string[];
}

const MOUNTS: readonly OperationMount[] = [
  {
    path: "/shells/:aasIdentifier/submodels/:submodelIdentifier",
    profiles: SUBMODEL_API_BELOW_SHELL,
    belowShell: true,
    syncOnlyProfiles: [],
  },
  {
    path: "/shells/:aasIdentifier/aas/submodels/:submodelIdentifier/submodel",
    profiles: SUBMODEL_API_BELOW_SHELL,
    belowShell: true,
    syncOnlyProfiles: [],
  },
  {
    path: "/submodels/:submodelIdentifier",
    profiles: SUBMODEL_API_IN_REPOSITORY,
    belowShell: false,
    syncOnlyProfiles: ["SUBMODEL_VALUE"],
  },
];

/** What the transport waits beyond the invocation's own bound: the engine's last commit, the reply. */
const REPLY_MARGIN_MS = 5000;

const JSON_TYPE = { "Content-Type": "application/json" } as const;

/**
 * Operation invocation (AAS API v3.0.1, digest §g) at every Submodel API mount: …/invoke and
 * …/invoke/$value answer the result (200, also when the execution failed); …/invoke-async(/$value)
 * answer 202 with `Location: …/operation-status/{handleId}` below the mount the client used;
 * operation-status answers 200 while the invocation runs and 302 to …/operation-results/{handleId}
 * once it finished. Also served: the legacy `?async=true` on …/invoke (as …/invoke-async) and the
 * AAS Service file's misspelled `invoke-asnyc` (digest §a quirks 1 and 2). Read-only profiles
 * contain none of these: invoking is never a read.
 */
export function operationRoutes(deps: RouteDeps): ApiRoute[] {
  return MOUNTS.flatMap((mount) => mountRoutes(deps, mount));
}

function mountRoutes({ send }: RouteDeps, mount: OperationMount): ApiRoute[] {
  const address = (c: GatewayContext) => ({
    submodelId: identifierParam(c, "submodelIdentifier"),
    ...(mount.belowShell ? { aasId: identifierParam(c, "aasIdentifier") } : {}),
    idShortPath: idShortPathParam(c),
  });
  const handleOf = (c: GatewayContext) => identifierParam(c, "handleId");
  const full = mount.profiles.write;
  const element = `${mount.path}/submodel-elements/:idShortPath`;

  const invokeAsync = async (c: GatewayContext, valueOnly: boolean): Promise<Response> => {
    const reply = await send(c, "InvokeOperationAsync", {
      ...address(c),
      body: await optionalJsonBodyText(c),
      valueOnly,
    });
    const { handleId } = reply.value;
    const location = `${operationBase(c)}/operation-status/${encodeBase64Url(handleId)}`;
    // No body: v3.0.1 defines none for this 202 (digest §a: "(none)"), and FA³ST sends none, so no
    // client of either can rely on one. The handle is the last segment of Location.
    return c.body(null, 202, { Location: location });
  };
  const invoke = (valueOnly: boolean): ApiOperation => ({
    method: "POST",
    profiles: [...full, ...mount.syncOnlyProfiles],
    handle: async (c) => {
      readPagingAndModifiers(c, {});
      if (booleanQuery(c, "async", false)) return invokeAsync(c, valueOnly);
      const body = await optionalJsonBodyText(c);
      const reply = await send(
        c,
        "InvokeOperation",
        { ...address(c), body, valueOnly },
        { deadline: Date.now() + syncBoundMs(body) + REPLY_MARGIN_MS },
      );
      return c.body(jsonText(reply.value), 200, JSON_TYPE);
    },
  });
  const asyncInvoke = (valueOnly: boolean): ApiOperation => ({
    method: "POST",
    profiles: full,
    handle: async (c) => {
      readPagingAndModifiers(c, {});
      return invokeAsync(c, valueOnly);
    },
  });
  const result = (valueOnly: boolean): ApiOperation => ({
    method: "GET",
    profiles: full,
    handle: async (c) => {
      readPagingAndModifiers(c, {});
      const reply = await send(c, "GetOperationAsyncResult", { ...address(c), handleId: handleOf(c), valueOnly });
      return c.body(jsonText(reply.value), 200, JSON_TYPE);
    },
  });
  const route = (path: string, operations: ApiOperation[]): ApiRoute => ({ path: `${element}${path}`, operations });

  return [
    route("/invoke", [invoke(false)]),
    route("/invoke/$value", [invoke(true)]),
    route("/invoke-async", [asyncInvoke(false)]),
    route("/invoke-async/$value", [asyncInvoke(true)]),
    route("/invoke-asnyc", [asyncInvoke(false)]),
    route("/invoke-asnyc/$value", [asyncInvoke(true)]),
    route("/operation-status/:handleId", [
      {
        method: "GET",
        profiles: full,
        handle: async (c) => {
          readPagingAndModifiers(c, {});
          const handleId = handleOf(c);
          const { finished, status } = (await send(c, "GetOperationAsyncStatus", { ...address(c), handleId })).value;
          if (!finished) return c.body(JSON.stringify(status), 200, JSON_TYPE);
          return c.body(null, 302, { Location: `${operationBase(c)}/operation-results/${encodeBase64Url(handleId)}` });
        },
      },
    ]),
    route("/operation-results/:handleId", [result(false)]),
    route("/operation-results/:handleId/$value", [result(true)]),
  ];
}

/**
 * The request's path up to the Operation element, as the client wrote it: Location then names the
 * same mount (below its shell or in the repository) and the same encoding of ids and idShortPath.
 */
function operationBase(c: GatewayContext): string {
  const path = new URL(c.req.url).pathname;
  // Anchored at the end: an element may itself be called "invoke".
  return path.replace(
    /\/(invoke|invoke-async|invoke-asnyc|operation-status\/[^/]+|operation-results\/[^/]+)(\/(\$|%24)value)?$/i,
    "",
  );
}

/**
 * How long a synchronous call may take: its clientTimeoutDuration, else the engine's default. Read
 * here only to size the transport's deadline; the engine checks the body and decides the outcome.
 */
function syncBoundMs(body: string): number {
  try {
    // parseJsonText counts the depth first: JSON.parse built 60 MB of "[[[…" (3 s, 3 GB) just for this.
    const duration = (parseJsonText(body) as { clientTimeoutDuration?: unknown })?.clientTimeoutDuration;
    if (typeof duration === "string") return Math.min(isoDurationToMs(duration), MAX_SYNC_INVOCATION_TIMEOUT_MS);
  } catch {
    // Malformed: the engine answers 400 at once, well inside the default.
  }
  return DEFAULT_SYNC_INVOCATION_TIMEOUT_MS;
}
