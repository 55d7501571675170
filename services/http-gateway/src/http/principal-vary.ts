import { type GatewayContext, outgoingMessageOf } from "./gateway-env.ts";

/** What decides the principal of a request, and so what the answers of the API depend on. */
export interface PrincipalSources {
  /** CORS middleware writes its own Vary (Origin) on the response; ours must join it, not be replaced. */
  cors: boolean;
  /** A client certificate is no header: no Vary can name it. */
  clientCertificates: boolean;
}

/**
 * With a security section, every answer of the API may depend on who asks: lists and partly
 * readable submodels are filtered, refusals are 401 or 403. A shared cache (or a client switching
 * credentials) must not hand one principal's answer to another (docs/adr/0058): the principal
 * comes from the Authorization header (no cookie authenticates here), so answers vary by it; a
 * principal from a client certificate cannot be named in Vary, so such endpoints' answers are
 * private to the client. Set on the Node response before the handler answers, as the correlation
 * id is (correlation-id.ts: touching `c.res.headers` costs the fast response path), unless CORS
 * writes a Vary of its own, which Node would let replace ours.
 */
export function varyByPrincipal(
  sources: PrincipalSources,
): (c: GatewayContext) => ((c: GatewayContext) => void) | undefined {
  const joinAfter = (c: GatewayContext) => {
    c.res.headers.append("Vary", "Authorization");
    if (sources.clientCertificates && !c.res.headers.has("Cache-Control"))
      c.res.headers.set("Cache-Control", "private");
  };
  return (c) => {
    const outgoing = sources.cors ? undefined : outgoingMessageOf(c);
    if (outgoing === undefined) return joinAfter;
    outgoing.setHeader("Vary", "Authorization");
    if (sources.clientCertificates) outgoing.setHeader("Cache-Control", "private");
    return undefined;
  };
}

/**
 * A refusal answered before any principal is settled (authentication.ts: a token or certificate
 * refused, the token issuer away) depends on the credentials all the same: another client's
 * credentials get another answer. Joined to a Vary CORS may have put on the response already.
 */
export function variesByPrincipal(response: Response, clientCertificates: boolean): Response {
  response.headers.append("Vary", "Authorization");
  if (clientCertificates && !response.headers.has("Cache-Control")) response.headers.set("Cache-Control", "private");
  return response;
}
