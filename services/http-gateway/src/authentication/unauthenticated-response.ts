import type { GatewayContext } from "../http/gateway-env.ts";
import { BEARER_CHALLENGE } from "../http/request-principal.ts";
import { resultBody } from "../http/result-body.ts";

export interface Challenge {
  /** RFC 6750 §3.1: "invalid_token" when a token was presented and refused; none when nothing was. */
  error?: "invalid_token" | "invalid_request";
  /** Why; goes into the challenge (as error_description) and into the AAS Result body. */
  description: string;
}

/**
 * 401 with `WWW-Authenticate: Bearer realm="twinport"` (plus error and error_description when a
 * token was refused, RFC 6750 §3) and the AAS `Result` body. (An anonymous caller the rules deny
 * gets the plain challenge from error-response.ts.)
 */
export function unauthenticatedResponse(c: GatewayContext, challenge: Challenge): Response {
  const status = challenge.error === "invalid_request" ? 400 : 401;
  let header = BEARER_CHALLENGE;
  if (challenge.error !== undefined)
    header += `, error="${challenge.error}", error_description="${quotable(challenge.description)}"`;
  const body = resultBody(status, { message: challenge.description }, { includeErrorDetails: false, now: new Date() });
  return c.body(JSON.stringify(body), status as 401, {
    "Content-Type": "application/json",
    "WWW-Authenticate": header,
  });
}

/** RFC 6750 §3: error_description holds printable ASCII except '"' and '\'. */
function quotable(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'");
}
