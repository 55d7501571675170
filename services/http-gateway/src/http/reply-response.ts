import { isRawJson, type Paged, type RawJson, type ReplyOk } from "@twinport/shared";
import { API_PREFIX } from "./api-routes.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { conditionalAnswer, etagOf } from "./preconditions.ts";
import { typedResponse } from "./response-content-type.ts";

const JSON_TYPE = { "Content-Type": "application/json" } as const;

/** JSON text of a reply value; a RawJson value is already the text and goes out untouched. */
export function jsonText(value: unknown): string {
  return isRawJson(value) ? value.rawJson : JSON.stringify(value ?? null);
}

/** A reply value as a JS value (parses RawJson); for the few places the gateway must look inside. */
export function jsonValue(value: unknown): unknown {
  return isRawJson(value) ? JSON.parse(value.rawJson) : value;
}

/**
 * A JSON response with plain-object headers. Hono's `c.body` with more than one header builds a web
 * `Headers` object that @hono/node-server then converts back for Node (profiled: several percent
 * of a GET $value); a plain object is handed to `writeHead` as it is. Nothing in the gateway sets
 * headers through `c.header()`, so bypassing the context loses nothing.
 */
function jsonResponse(body: string, status: number, headers: Record<string, string>): Response {
  return typedResponse(body, status, { "Content-Type": "application/json", ...headers });
}

/**
 * 200 with a single resource and its ETag; 304 when the client's If-None-Match already has it, 412
 * when its If-Match names another (preconditions.ts conditionalAnswer).
 */
export function resourceResponse(c: GatewayContext, reply: ReplyOk<unknown>): Response {
  const etag = reply.revision === undefined ? undefined : etagOf(reply.revision, reply.view, reply.item);
  const conditional = conditionalAnswer(c, etag, "application/json");
  if (conditional !== undefined) return conditional;
  return jsonResponse(jsonText(reply.value), 200, etag === undefined ? {} : { ETag: etag });
}

/** 200 with the AAS `PagedResult` envelope; `paging_metadata` is always present (AAS API §d). */
export function pagedResponse(c: GatewayContext, value: Paged<unknown> | unknown): Response {
  const paged = jsonValue(value) as Paged<unknown> | { items: RawJson; cursor?: string };
  const metadata = paged.cursor !== undefined && paged.cursor !== "" ? { cursor: paged.cursor } : {};
  // Items sent as one JSON array text (RAW_ITEMS) go into the body as they are.
  const items = isRawJson(paged.items) ? paged.items.rawJson : `[${(paged.items ?? []).map(jsonText).join(",")}]`;
  return jsonResponse(`{"paging_metadata":${JSON.stringify(metadata)},"result":${items}}`, 200, {});
}

/** 201 with the created resource, where it lives, and its ETag. */
export function createdResponse(c: GatewayContext, reply: ReplyOk<unknown>, location: string | undefined): Response {
  const headers: Record<string, string> = { ...JSON_TYPE };
  if (location !== undefined) headers.Location = asAddressed(c, location);
  if (reply.revision !== undefined) headers.ETag = etagOf(reply.revision, undefined, reply.item);
  return c.body(jsonText(reply.value), 201, headers);
}

/** A Location under /api/v3.0, as the client addressed the API (its pathPrefix, routing-path.ts). */
export function asAddressed(c: GatewayContext, location: string): string {
  const prefix = c.get("clientPrefix");
  return prefix !== undefined && location.startsWith(`${API_PREFIX}/`)
    ? `${prefix}${location.slice(API_PREFIX.length)}`
    : location;
}

export function noContentResponse(c: GatewayContext): Response {
  return c.body(null, 204);
}

/**
 * Options of a send whose reply value becomes the response body as it is: a remote store sends it
 * as text, so the gateway never parses and re-stringifies it.
 */
export const RAW_VALUE = { rawValue: true } as const;

/** Options of a send whose Paged reply goes into a paged response: its items travel as one text. */
export const RAW_ITEMS = { rawValue: "items" } as const;
