import { ApiError, badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { LONG_BODY_BYTES } from "./long-request.ts";

/**
 * The request body as text, handed to the engine unparsed (it checks syntax, unknown properties
 * and keeps exact number digits). The gateway checks only what the bytes are: emptiness, the
 * media type and the encoding.
 */
export async function requestBodyText(c: GatewayContext): Promise<string> {
  const text = await optionalJsonBodyText(c);
  if (text.trim() === "") throw badRequest("The request body is empty; this operation needs a JSON body");
  return text;
}

/**
 * A JSON body that may be empty (operation invocations). A body must say it is JSON:
 * text/plain, form and multipart bodies are what a web page can send cross-origin without a CORS
 * preflight, so accepting them would let any page a user opens write to the server (CSRF).
 */
export async function optionalJsonBodyText(c: GatewayContext): Promise<string> {
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength === 0) return "";
  if (bytes.byteLength >= LONG_BODY_BYTES) c.set("longBody", true);
  const contentType = c.req.header("Content-Type");
  const charset = otherCharsetOf(contentType);
  if (charset !== undefined)
    throw ApiError.of(
      "unsupported-media-type",
      `JSON is UTF-8 (RFC 8259): charset '${charset.slice(0, 40)}' is not supported; send UTF-8, or no charset`,
    );
  if (!isJsonMediaType(contentType)) {
    throw ApiError.of(
      "unsupported-media-type",
      `The body must be JSON with Content-Type application/json (got ${contentType === undefined ? "no Content-Type" : `'${contentType}'`})`,
    );
  }
  try {
    // Fatal: a replacement character silently stored in place of broken bytes is data loss.
    return UTF8.decode(bytes);
  } catch {
    throw badRequest("The request body is not valid UTF-8");
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** application/json or a structured-syntax JSON type (application/*+json), parameters allowed. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type);
}

/**
 * JSON is UTF-8 (RFC 8259 §8.1): a body whose Content-Type declares another charset would be
 * decoded wrongly, so it is refused (415); `charset=utf-8` (any case) is fine.
 */
export function otherCharsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType);
  if (match === null) return undefined;
  const charset = match[1]!.toLowerCase();
  return charset === "utf-8" || charset === "utf8" ? undefined : match[1]!;
}
