import type { Hono } from "hono";
import { isServed } from "../profiles.ts";
import { ApiError } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";

export const API_PREFIX = "/api/v3.0";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface ApiOperation {
  method: HttpMethod;
  /** Profiles that contain this operation (see profiles.ts). */
  profiles: readonly string[];
  /**
   * A GET that changes the model (only `GET /reset`, spec §4.2). Hono answers HEAD with the GET
   * handler; a link checker's or probe's HEAD must not wipe the store, so HEAD is 405 here.
   */
  changesState?: true;
  handle(c: GatewayContext): Promise<Response>;
}

/** One path template of the AAS API (relative to /api/v3.0) with the operations served on it. */
export interface ApiRoute {
  path: string;
  operations: ApiOperation[];
}

/**
 * Registers the routes: each served operation, then a catch-all for the path that answers 405 with
 * the `Allow` list for any other method. A path none of whose operations is in the endpoint's
 * profiles is not served at all: 404 (docs/architecture.md §8).
 */
export function mountApiRoutes(app: Hono, routes: readonly ApiRoute[], enabledProfiles: readonly string[]): void {
  for (const route of routes) {
    const path = `${API_PREFIX}${route.path}`;
    const served = route.operations.filter((operation) => isServed(operation.profiles, enabledProfiles));
    const methods = served.map((operation) => operation.method);
    const headServed = served.some((operation) => operation.method === "GET" && !operation.changesState);
    const allow = [...methods, ...(headServed ? ["HEAD"] : [])].join(", ");
    for (const operation of served) {
      const handle = operation.changesState
        ? (c: GatewayContext) => {
            if (c.req.method === "HEAD") throw new MethodNotAllowed("HEAD", allow);
            return operation.handle(c);
          }
        : (c: GatewayContext) => operation.handle(c);
      app.on(operation.method, path, handle);
    }
    if (served.length === 0) {
      app.all(path, () => {
        throw ApiError.of("not-found", "This path is not served by this endpoint (see its profiles)");
      });
      continue;
    }
    app.all(path, (c) => {
      throw new MethodNotAllowed(c.req.method, allow);
    });
  }
}

/** 405 carries an `Allow` header (RFC 9110 §15.5.6), so it is its own kind of ApiError. */
export class MethodNotAllowed extends ApiError {
  readonly allow: string;
  constructor(method: string, allow: string) {
    super({ code: "method-not-allowed", message: `Method ${method} is not allowed on this path; allowed: ${allow}` });
    this.allow = allow;
  }
}
