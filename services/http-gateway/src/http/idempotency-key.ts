import { createHash } from "node:crypto";
import { type Command, type CommandType, WRITE_COMMANDS } from "@twinport/shared";
import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";

/** The request header of the IETF draft "The Idempotency-Key HTTP Header Field" (docs/adr/0017). */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
const MAX_KEY_LENGTH = 255;
const KEYED_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The key of a request, checked: the draft's form is a structured-field string (`"…"`); a bare
 * token is accepted too, as most clients send one. 1–255 visible ASCII characters without `"`, `\`
 * and `,` (a comma means the header came twice). Absent → undefined; malformed → 400.
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  let text = header.trim();
  if (text.startsWith('"')) {
    if (text.length < 2 || !text.endsWith('"')) throw invalid();
    text = text.slice(1, -1);
  }
  if (text.length === 0 || text.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(text) || /["\\,]/.test(text))
    throw invalid();
  return text;
}

function invalid() {
  return badRequest(
    `Invalid ${IDEMPOTENCY_KEY_HEADER} header: expected 1 to ${MAX_KEY_LENGTH} visible ASCII characters (without '"', '\\' and ','), optionally in double quotes`,
  );
}

/**
 * The idempotency part of a write command sent for this request, or undefined: the key from the
 * header, and a fingerprint of the request (method, path with query, and the command it became,
 * which holds the body), so the engine can tell a repeat from another request under the same key.
 */
export function idempotencyOf<T extends CommandType>(
  c: GatewayContext,
  type: T,
  params: unknown,
): Command["idempotency"] {
  const method = c.req.method;
  if (!KEYED_METHODS.has(method) || !WRITE_COMMANDS.has(type)) return undefined;
  const key = parseIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER));
  if (key === undefined) return undefined;
  const url = new URL(c.req.url);
  const fingerprint = createHash("sha256")
    .update(`${method}\n${canonicalPath(url.pathname)}${url.search}\n${type}\n`)
    .update(JSON.stringify(params))
    .digest("base64url");
  return { key, fingerprint };
}

/**
 * The path as the routes read it: each segment percent-decoded, then encoded one way. `Tags[7]`,
 * `Tags%5B7%5D` and `Tags%5b7%5d` name the same element (RFC 3986 §6.2.2.1 for the hex case), and
 * a repeat spelled another way was answered 422 as "another request". Segments stay apart (`%2F`
 * inside one is not a `/`); a segment that does not decode is kept as it was.
 */
function canonicalPath(pathname: string): string {
  return pathname
    .split("/")
    .map((segment) => {
      try {
        return encodeURIComponent(decodeURIComponent(segment));
      } catch {
        return segment;
      }
    })
    .join("/");
}
