import { type IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from "node:http";

/**
 * The endpoint's ServerResponse (the server's `ServerResponse` option): an answer its writer ends
 * without a byte of body says `Content-Length: 0`, not `Transfer-Encoding: chunked` with an empty
 * chunked body. @hono/node-server writes a Response with a null body (the 202 of invoke-async, a
 * 302, a 201 without body) as `writeHead(status, headers)` then `end()`, and Node frames the head
 * the moment writeHead is called, before anyone can know that no body follows. So that form of
 * writeHead is held until the first byte, the end or flushHeaders; ended without a byte, the head
 * gets `Content-Length: 0` where the answer may carry a body (not for 1xx, 204, 304 or a HEAD, which
 * get neither header, as before). That also spares an HTTP/1.0 client, which knows no chunked coding,
 * a close-delimited empty answer: with a length its connection may stay open if it asked for that;
 * after a 204, a 304 or a HEAD answer, which need no length, it stays too (#writeHead).
 * Anything else writes the head exactly as the writeHead call would have (the same merge with
 * headers set before it, such as the correlation id).
 */
export class EmptyBodyFramingResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  #held: { status: number; headers: OutgoingHttpHeaders | undefined } | undefined;
  /** Set once the body, the end or the head is on its way: Node's own writeHead calls pass then. */
  #writing = false;

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const [headers] = rest;
    // A second writeHead fails as Node's own does (ERR_HTTP_HEADERS_SENT), after the first is written.
    if (this.#held !== undefined) this.#startWriting(false);
    // Only the form node-server uses is held; a reason phrase or an array of headers passes.
    if (this.#writing || rest.length > 1 || !isHeaderRecord(headers)) return this.#writeHead(statusCode, rest);
    this.#held = { status: statusCode, headers: headers as OutgoingHttpHeaders | undefined };
    this.statusCode = statusCode;
    return this;
  }

  override write(...args: unknown[]): boolean {
    this.#startWriting(false);
    return (super.write as (...a: unknown[]) => boolean)(...args);
  }

  override end(...args: unknown[]): this {
    this.#startWriting(!hasBytes(args[0]));
    return (super.end as (...a: unknown[]) => this)(...args);
  }

  override flushHeaders(): void {
    this.#startWriting(false);
    super.flushHeaders();
  }

  #startWriting(empty: boolean): void {
    this.#writing = true;
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    let headers = held.headers;
    if (empty && this.#mayCarryBody(held.status) && !this.#framed(headers))
      headers = { ...headers, "Content-Length": 0 };
    this.#writeHead(held.status, headers === undefined ? [] : [headers]);
  }

  /** RFC 9110 §6.4.1, §8.6: these never have a body, and Content-Length on them would misstate it. */
  #mayCarryBody(status: number): boolean {
    return status >= 200 && status !== 204 && status !== 304 && this.req?.method !== "HEAD";
  }

  /** The writer already gave a framing of its own: its choice stands. */
  #framed(headers: OutgoingHttpHeaders | undefined): boolean {
    if (this.hasHeader("content-length") || this.hasHeader("transfer-encoding")) return true;
    if (headers === undefined) return false;
    for (const name of Object.keys(headers)) {
      const lower = name.toLowerCase();
      if (lower === "content-length" || lower === "transfer-encoding") return true;
    }
    return false;
  }

  #writeHead(statusCode: number, rest: unknown[]): this {
    // HTTP/1.0 keep-alive: Node keeps such a connection only after an answer framed by a length
    // (it knows no chunked coding there), and a 204, a 304 or a HEAD answer has none: it closed the
    // connection the client asked to keep. These answers end with their head by definition (RFC
    // 9112 §6.3), so the connection may persist (§9.3); told that chunked framing is available,
    // Node says keep-alive and still writes neither a length nor chunks for them (no body to frame).
    if (!this.#mayCarryBody(statusCode) && statusCode >= 200 && this.req?.httpVersionMinor === 0)
      this.useChunkedEncodingByDefault = true;
    return (super.writeHead as (status: number, ...a: unknown[]) => this)(statusCode, ...rest);
  }
}

function isHeaderRecord(headers: unknown): boolean {
  return headers === undefined || (typeof headers === "object" && headers !== null && !Array.isArray(headers));
}

/** end()'s first argument: a chunk of at least one byte, or nothing (absent, a callback, ""). */
function hasBytes(chunk: unknown): boolean {
  if (typeof chunk === "string") return chunk.length > 0;
  if (chunk instanceof Uint8Array) return chunk.byteLength > 0;
  return false;
}
