import type { ReplyError } from "@twinport/shared";
import type { GatewayContext } from "./gateway-env.ts";
import { httpStatusOf } from "./error-status.ts";
import { resultBody } from "./result-body.ts";

/** Renders a reply error as the AAS `Result` body with the status of its code. */
export function errorResponse(c: GatewayContext, error: ReplyError, options: { includeErrorDetails: boolean; headers?: Record<string, string> }): Response {
  const status = httpStatusOf(error.code);
  const body = resultBody(status, error, { includeErrorDetails: options.includeErrorDetails, now: new Date() });
  const headers: Record<string, string> = { "Content-Type": "application/json", ...options.headers };
  // After a 413 the rest of an oversized body is not worth reading: tell the client we hang up.
  if (status === 413) headers.Connection = "close";
  return c.body(JSON.stringify(body), status as 400, headers);
}
