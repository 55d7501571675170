import type { IncomingMessage, ServerResponse } from "node:http";
import type { Command, Logger, Principal, ProcessMetrics, ReplyError, ReplyOk, StoreClient } from "@twinport/shared";
import { isAcceptable } from "./content-negotiation.ts";
import { CORRELATION_ID_HEADER, correlationIdOf } from "./correlation-id.ts";
import { errorAnswer } from "./error-response.ts";
import { LONG_BODY_BYTES } from "./long-request.ts";
import { identifierOf } from "./path-params.ts";
import { etagOf, ifMatchTags, ifNoneMatchTags } from "./preconditions.ts";
import { jsonText, RAW_VALUE } from "./reply-response.ts";
import { isJsonMediaType, otherCharsetOf } from "./request-body.ts";
import { observeAnswered } from "./request-metrics.ts";
import { sniHostMatches } from "./sni-host-check.ts";
import { createTurnQueue } from "./turn-queue.ts";

/** The route template the general path reports this route under (metrics label, log line). */
export const HOT_VALUE_ROUTE = "/api/v3.0/submodels/:submodelIdentifier/submodel-elements/:idShortPath/$value";

export interface HotValueRouteDeps {
  store: StoreClient;
  origin: string;
  metrics?: ProcessMetrics;
  logger?: Logger;
  includeErrorDetails: boolean;
  maxRequestBodySize: number;
  /** Which of the route's operations the endpoint's profiles serve. */
  serves: { get: boolean; patch: boolean };
  /** `sniEnabled` on HTTPS: a Host other than the TLS server name is the general path's 400. */
  sniCheck: boolean;
  /**
   * With a security section (and no client certificates): the principal of a request without an
   * Authorization header, as authentication.ts gives it (ANONYMOUS); requests with one are handed
   * on. Absent: no security section, commands carry no principal.
   */
  anonymous?: Principal;
  /**
   * Run the store calls of one event-loop turn together, in its check phase (turn-queue.ts,
   * docs/adr/0056): for a store that answers in process. A store behind NATS gathers its own
   * publishes per turn (publish-batch.ts) and answers from one read per batch.
   */
  gatherTurns?: boolean;
}

/** Answers the request and returns true, or returns false without having touched it. */
export type HotRoute = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

// The plain form of the route's path only (docs/adr/0045): an identifier in base64url, an
// idShortPath of characters that neither Hono nor @hono/node-server rewrite (no "%", no query, no
// fragment, no backslash, no dot segment, no leading "$"), no trailing slash. Anything else is
// left to the general path, which owns every spelling and every error about it.
const VALUE_PATH =
  /^\/api\/v3\.0\/submodels\/([A-Za-z0-9_-]+)\/submodel-elements\/([!&-.0-9:;=@-Z[\]_a-z~][!$&-.0-9:;=@-Z[\]_a-z~]*)\/\$value$/;
// @hono/node-server's test of a Host it takes as it is; any other Host goes through its checks.
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const DIGITS = /^\d+$/;
const UTF8 = new TextDecoder("utf-8", { fatal: true });
const JSON_CONTENT_TYPE = "application/json";

/**
 * GET and PATCH of `/submodels/{id}/submodel-elements/{idShortPath}/$value` answered straight on
 * Node's request and response, without Hono's context, middleware chain, router and Response
 * objects (docs/adr/0045). Only requests whose answer depends on nothing but the store's reply are
 * taken: HTTP/1.1, no query, no Accept that could refuse JSON, no If-None-Match or If-Match on a GET, no
 * Idempotency-Key, a declared JSON body within the limit. The answer is what the general path
 * gives, byte for byte (hot-value-route.test.ts compares both on the wire): the same correlation id
 * header set first, the same headers in the same order, the same Result bodies, metrics series and
 * log lines.
 * With a security section only anonymous requests are taken (no Authorization header, no client
 * certificates configured); endpoints with CORS do not use it (create-http-app.ts).
 */
export function hotValueRoute(deps: HotValueRouteDeps): HotRoute {
  const { store, origin, metrics, logger } = deps;
  const principal = deps.anonymous;
  const inTurn = deps.gatherTurns ? createTurnQueue() : (run: () => void) => run();
  // The command as command-sender.ts builds it: the principal last, only with a security section.
  const commandOf = (type: string, params: Record<string, unknown>, correlationId: string): Command =>
    (principal
      ? { type, params, origin, correlationId, principal }
      : { type, params, origin, correlationId }) as Command;

  const finish = (
    outgoing: ServerResponse,
    method: string,
    correlationId: string,
    started: number,
    status: number,
    body: string | null,
    etag: string | undefined,
  ) => {
    outgoing.statusCode = status;
    if (body !== null) outgoing.setHeader("Content-Type", JSON_CONTENT_TYPE);
    if (etag !== undefined) outgoing.setHeader("ETag", etag);
    if (body === null) outgoing.end();
    else outgoing.end(body);
    if (metrics) observeAnswered(method, HOT_VALUE_ROUTE, status, correlationId, metrics, logger, started);
  };
  const fail = (
    outgoing: ServerResponse,
    method: string,
    correlationId: string,
    started: number,
    error: ReplyError,
  ) => {
    const answer = errorAnswer(error, {
      includeErrorDetails: deps.includeErrorDetails,
      anonymous: principal !== undefined,
    });
    outgoing.statusCode = answer.status;
    const names = Object.keys(answer.headers);
    if (names.length === 1) outgoing.setHeader(names[0]!, answer.headers[names[0]!]!);
    else {
      // Hono's c.body makes a web Headers of more than one header (the 401's WWW-Authenticate), and
      // node-server writes that as lower-case names in sorted order, then its own Content-Length.
      const lower = names.map((name) => [name.toLowerCase(), answer.headers[name]!] as const);
      lower.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [name, text] of lower) outgoing.setHeader(name, text);
      outgoing.setHeader("Content-Length", Buffer.byteLength(answer.body));
    }
    outgoing.end(answer.body);
    if (metrics) observeAnswered(method, HOT_VALUE_ROUTE, answer.status, correlationId, metrics, logger, started);
  };
  // What the general path makes of a rejected promise (create-http-app.ts replyErrorOf).
  const internal = (error: unknown): ReplyError => {
    const reply: ReplyError = { code: "internal", message: "Internal server error" };
    if (error instanceof Error && error.stack !== undefined) reply.stack = error.stack;
    return reply;
  };

  const get = (outgoing: ServerResponse, correlationId: string, started: number, submodelId: string, path: string) => {
    const command = commandOf(
      "GetSubmodelElementByPath",
      { submodelId, idShortPath: path, modifiers: { extent: "withoutBlobValue", content: "value" } },
      correlationId,
    );
    store
      .execute(command, RAW_VALUE)
      .then(
        (reply) => {
          if (!reply.ok) return fail(outgoing, "GET", correlationId, started, reply.error);
          const ok = reply as ReplyOk<unknown>;
          const etag = ok.revision === undefined ? undefined : etagOf(ok.revision, ok.view, ok.item);
          finish(outgoing, "GET", correlationId, started, 200, jsonText(ok.value), etag);
        },
        (error: unknown) => fail(outgoing, "GET", correlationId, started, internal(error)),
      )
      .catch(() => outgoing.destroy());
  };

  const patch = (
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    correlationId: string,
    started: number,
    submodelId: string,
    path: string,
  ) => {
    const ifMatch = ifMatchTags(incoming.headers["if-match"]);
    const ifNoneMatch = ifNoneMatchTags(incoming.headers["if-none-match"]);
    const chunks: Buffer[] = [];
    let settled = false;
    // The listeners stay: after the end they do nothing, and an error never goes unheard.
    const received = () => {
      if (settled) return;
      settled = true;
      inTurn(commit);
    };
    // Cut off before the end: as the general path (node-server) does, a body that arrived whole
    // before the connection went is still the request's body; anything less is a 400.
    const broken = () => {
      if (settled) return;
      if (incoming.readableEnded) return received();
      const errored = incoming.errored as NodeJS.ErrnoException | null;
      if (incoming.complete && incoming.readableAborted && (!errored || errored.code === "ECONNRESET")) {
        const rest = incoming.read() as Buffer | null;
        if (rest !== null) chunks.push(rest);
        let length = 0;
        for (const chunk of chunks) length += chunk.length;
        if (length === Number(incoming.headers["content-length"])) return received();
      }
      settled = true;
      fail(outgoing, "PATCH", correlationId, started, {
        code: "bad-request",
        message: "The request could not be read (malformed HTTP framing, or the client went away)",
      });
    };
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.once("end", received);
    incoming.on("error", broken);
    incoming.on("close", broken);
    const commit = () => {
      let body: string;
      try {
        body = UTF8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      } catch {
        return fail(outgoing, "PATCH", correlationId, started, {
          code: "bad-request",
          message: "The request body is not valid UTF-8",
        });
      }
      if (body.trim() === "")
        return fail(outgoing, "PATCH", correlationId, started, {
          code: "bad-request",
          message: "The request body is empty; this operation needs a JSON body",
        });
      // The key order of the general path's params (routes/submodel.ts patchElement).
      const params: Record<string, unknown> = { submodelId, idShortPath: path, body };
      if (ifMatch !== undefined || ifNoneMatch !== undefined) {
        const preconditions: Record<string, string[]> = {};
        if (ifMatch !== undefined) preconditions.ifMatch = ifMatch;
        if (ifNoneMatch !== undefined) preconditions.ifNoneMatch = ifNoneMatch;
        params.preconditions = preconditions;
      }
      const command = commandOf("PatchSubmodelElementValueByPath", params, correlationId);
      store
        .execute(command)
        .then(
          (reply) => {
            if (!reply.ok) return fail(outgoing, "PATCH", correlationId, started, reply.error);
            finish(outgoing, "PATCH", correlationId, started, 204, null, undefined);
          },
          (error: unknown) => fail(outgoing, "PATCH", correlationId, started, internal(error)),
        )
        // Writing the answer failed (as node-server does then): the connection goes, nothing crashes.
        .catch(() => outgoing.destroy());
    };
  };

  return (incoming, outgoing) => {
    const method = incoming.method;
    const isGet = method === "GET";
    if (!(isGet ? deps.serves.get : method === "PATCH" && deps.serves.patch)) return false;
    // HTTP/1.0 (keep-alive on request, a length on every answer) is the general path's to frame.
    if (incoming.httpVersionMinor !== 1) return false;
    const url = incoming.url;
    if (url === undefined || url.length > 2048 || !url.endsWith("/$value")) return false;
    const match = VALUE_PATH.exec(url);
    if (match === null) return false;
    const path = match[2]!;
    if (path === "." || path === "..") return false;
    const headers = incoming.headers;
    const host = headers.host;
    if (host === undefined || !PLAIN_HOST.test(host)) return false;
    if (deps.sniCheck && !sniHostMatches(incoming.socket, host)) return false;
    if (principal && headers.authorization !== undefined) return false;
    if (isGet) {
      const accept = headers.accept;
      if (accept !== undefined && accept.trim() !== "" && !isAcceptable(accept, JSON_CONTENT_TYPE)) return false;
      // Either precondition is the general path's to evaluate (preconditions.ts conditionalAnswer).
      if (headers["if-none-match"] !== undefined || headers["if-match"] !== undefined) return false;
    } else {
      const declared = headers["content-length"];
      if (declared === undefined || headers["transfer-encoding"] !== undefined || !DIGITS.test(declared)) return false;
      const length = Number(declared);
      // A long body is the general path's: its command gets the long deadline (long-request.ts).
      if (length === 0 || length > deps.maxRequestBodySize || length >= LONG_BODY_BYTES) return false;
      if (headers["idempotency-key"] !== undefined || !isJsonMediaType(headers["content-type"])) return false;
      // A content coding or a charset other than UTF-8: the general path refuses it (content-coding.ts, request-body.ts).
      if (headers["content-encoding"] !== undefined || otherCharsetOf(headers["content-type"]) !== undefined)
        return false;
      // A browser's PATCH (it names its site or origin): the general path's cross-site check decides (cross-site-requests.ts).
      if (headers["sec-fetch-site"] !== undefined || headers.origin !== undefined) return false;
    }
    // Node keeps the first of two Content-Types or Content-Lengths; the web Headers the general
    // path reads joins them (and then refuses them): such requests are its to answer.
    if (repeatsSingleHeader(incoming.rawHeaders)) return false;
    let submodelId: string;
    try {
      submodelId = identifierOf(match[1]!, "submodelIdentifier");
    } catch {
      return false;
    }
    // From here the request is ours: the general path's request frame, then its handler.
    const started = performance.now();
    const correlationId = correlationIdOf(headers["x-correlation-id"] as string | undefined);
    outgoing.setHeader(CORRELATION_ID_HEADER, correlationId);
    // The general path's principal-vary.ts: with rules, the answer depends on who asks.
    if (principal) outgoing.setHeader("Vary", "Authorization");
    if (isGet) inTurn(() => get(outgoing, correlationId, started, submodelId, path));
    else patch(incoming, outgoing, correlationId, started, submodelId, path);
    return true;
  };
}

/**
 * A second Content-Type or Content-Length. A second Host needs no look here: a request with one
 * never reaches the hot route, it is refused before dispatch (request-line-checks.ts).
 */
function repeatsSingleHeader(raw: string[]): boolean {
  let type = false;
  let length = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 12 && name.toLowerCase() === "content-type") {
      if (type) return true;
      type = true;
    } else if (name.length === 14 && name.toLowerCase() === "content-length") {
      if (length) return true;
      length = true;
    }
  }
  return false;
}
