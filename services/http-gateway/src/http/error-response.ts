import type { ReplyError } from "@twinport/shared";
import { httpStatusOf } from "./error-status.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { BEARER_CHALLENGE, principalOf } from "./request-principal.ts";
import { resultBody } from "./result-body.ts";

/** Renders a reply error as the AAS `Result` body with the status of its code. */
export function errorResponse(
  c: GatewayContext,
  error: ReplyError,
  options: { includeErrorDetails: boolean; headers?: Record<string, string> },
): Response {
  // Refused and anonymous: authenticating may help, so 401 with a challenge (issue 13), not 403.
  const { status, body, headers } = errorAnswer(error, {
    ...options,
    anonymous: principalOf(c)?.kind === "anonymous",
  });
  return c.body(body, status as 400, headers);
}

/** errorResponse's status, body and headers, for an answer given without a Hono context (hot-value-route.ts). */
export function errorAnswer(
  error: ReplyError,
  options: { includeErrorDetails: boolean; anonymous: boolean; headers?: Record<string, string> },
): { status: number; body: string; headers: Record<string, string> } {
  const unauthenticated = error.code === "forbidden" && options.anonymous;
  const status = unauthenticated ? 401 : httpStatusOf(error.code);
  const body = resultBody(status, error, { includeErrorDetails: options.includeErrorDetails, now: new Date() });
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    ...(unauthenticated ? { "WWW-Authenticate": BEARER_CHALLENGE } : {}),
    ...options.headers,
  };
  // A 405 MUST name the methods the target supports (RFC 9110 §15.5.6). The router's own 405s name
  // them; the engine's (an attachment of a Property, an invoke of a Property) come from the
  // element's kind, for which no method is served at that URL: an empty Allow says so.
  if (status === 405 && headers.Allow === undefined) headers.Allow = "";
  // After a 413 the rest of an oversized body is not worth reading: tell the client we hang up.
  if (status === 413) headers.Connection = "close";
  return { status, body: JSON.stringify(body), headers };
}
