import { RequestError } from "@hono/node-server";
import type { Logger, ProcessMetrics } from "@twinport/shared";
import { resultBody } from "./result-body.ts";

/**
 * The answer when @hono/node-server cannot turn a parsed request into a web Request (a Host header
 * that is no host, e.g. `Host: a b` or `Host: x:99999`; an HTTP/1.0 request without one was given
 * the endpoint's in request-line-checks.ts): its default is a bare 400 without a body. Here it is a 400
 * with the AAS Result body, counted and
 * logged like the parser's own refusals (client-error.ts). Anything else thrown before the app
 * answered is a 500 Result, never a stack trace.
 */
export function unreadableRequestAnswer(deps: {
  metrics?: ProcessMetrics;
  logger?: Logger;
}): (error: unknown) => Response {
  return (error) => {
    const unreadable = error instanceof RequestError;
    const status = unreadable ? 400 : 500;
    const message = unreadable ? `The request could not be read: ${(error as Error).message}` : "Internal server error";
    deps.metrics?.observeHttpRequest("unknown", "unparsed", status, 0);
    if (unreadable) deps.logger?.info({ status, reason: (error as Error).message }, "unreadable HTTP request refused");
    else deps.logger?.error({ err: error }, "request failed before the app answered");
    const body = JSON.stringify(resultBody(status, { message }, { includeErrorDetails: false, now: new Date() }));
    return new Response(body, { status, headers: { "Content-Type": "application/json" } });
  };
}
