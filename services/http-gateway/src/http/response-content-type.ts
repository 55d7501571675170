/**
 * The Content-Type of responses the gateway builds itself, kept beside them: reading it back from
 * `response.headers` would make @hono/node-server convert the plain header object into a web
 * Headers and write the response through its slow path (profiled on GET $value, ADR 0026).
 */
const types = new WeakMap<Response, string>();

/** A response with this content type, remembered for knownContentType(). */
export function typedResponse(body: string | null, status: number, headers: Record<string, string>): Response {
  const response = new Response(body, { status, headers });
  const type = headers["Content-Type"];
  if (type !== undefined) types.set(response, type);
  return response;
}

export function knownContentType(response: Response): string | undefined {
  return types.get(response);
}
