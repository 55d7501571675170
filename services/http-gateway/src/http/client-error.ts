import { type IncomingMessage, maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import type { Logger, ProcessMetrics } from "@twinport/shared";
import { resultBody } from "./result-body.ts";

/**
 * Requests Node's HTTP parser refuses before (or while) our app sees them: a request line or
 * header block over maxHeaderSize, broken chunked framing, an unknown Transfer-Encoding. Node's
 * default writes a bare status line and destroys the socket at once, so a client still sending
 * gets a reset instead of the answer, and the request never reaches the metrics. Here the client
 * gets the status with an AAS Result body and Connection: close, the socket is half-closed after
 * the answer and drained until the client hangs up (closing with unread bytes would reset it),
 * and the answer is counted and logged as what it was: a 4xx.
 */
export interface ClientErrorAnswers {
  /**
   * Called by the server's request listener for every request it is handed (one WeakMap entry per
   * connection, overwritten by its next request): cheaper on the hot path than a second "request"
   * listener with a "close" listener per response.
   */
  dispatched(request: IncomingMessage, response: ServerResponse): void;
  /** Answers the server's client errors from now on. */
  attach(server: Server): void;
  /** The connection's response not yet ended, if any (a graceful close marks it Connection: close). */
  inFlight(socket: Duplex): ServerResponse | undefined;
}

export function clientErrorAnswers(deps: { metrics?: ProcessMetrics; logger?: Logger }): ClientErrorAnswers {
  // A parser error in a request's body comes after the app was handed the request: the app
  // answers and counts that one (its body read fails, a 400); this handler only writes the bytes.
  // The connection's last response, in flight until it has ended.
  const lastResponse = new WeakMap<Duplex, ServerResponse>();
  // Node's parser keeps failing on every further chunk the client sends, and emits clientError
  // again each time: an answered socket is only drained, not answered (or destroyed) twice.
  const answered = new WeakSet<Duplex>();
  const onClientError = (error: ParserError, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const answer = answerOf(error, socket);
    const last = lastResponse.get(socket);
    // The last answer ended with Connection: close (a request refused before routing, say a 501 for
    // its Transfer-Encoding, whose body Node's parser then failed on): the connection is over once
    // it is sent, and a second status line would follow an answer that said there is no more.
    if (last !== undefined && last.writableEnded && !last.shouldKeepAlive) return;
    const inFlight = last !== undefined && !last.writableEnded ? last : undefined;
    if (answer === undefined || !socket.writable) {
      socket.destroy();
      return;
    }
    // Bytes that are no request came after a whole one the app is still answering (a pipelined
    // PATCH, then garbage): its answer goes first, then this one. Written over it, the client would
    // hear only the 400 for a write that was made. (An error in that request's own body is the
    // app's to answer: the bytes below go out at once, as they always did.)
    if (inFlight !== undefined && !inFlight.headersSent && inFlight.req?.complete === true) {
      const after = () => {
        inFlight.off("close", gone);
        if (socket.writable) refuse(socket, answer, error, false);
        else socket.destroy();
      };
      const gone = () => {
        inFlight.off("finish", after);
        socket.destroy();
      };
      inFlight.once("finish", after);
      inFlight.once("close", gone);
      return;
    }
    // Once the app's response has started, another status line would corrupt the stream.
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    refuse(socket, answer, error, inFlight === undefined);
  };
  const refuse = (socket: Duplex, answer: Answer, error: ParserError, counted: boolean) => {
    if (counted) {
      deps.metrics?.observeHttpRequest(methodOf(error.rawPacket), "unparsed", answer.status, 0);
      deps.logger?.info({ status: answer.status, reason: error.code }, "malformed HTTP request refused");
    }
    const body = JSON.stringify(
      resultBody(answer.status, { message: answer.message }, { includeErrorDetails: false, now: new Date() }),
    );
    const head =
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${answer.headers ?? ""}Connection: close\r\n\r\n`;
    drainThenClose(socket);
    socket.end(head + body);
  };
  return {
    dispatched: (request, response) => lastResponse.set(request.socket, response),
    attach: (server) => server.on("clientError", onClientError),
    inFlight(socket) {
      const last = lastResponse.get(socket);
      return last !== undefined && !last.writableEnded ? last : undefined;
    },
  };
}

interface ParserError extends Error {
  code?: string;
  /** Set on OpenSSL's errors. */
  library?: string;
  rawPacket?: Buffer;
  bytesParsed?: number;
}

interface Answer {
  status: number;
  message: string;
  headers?: string;
}

function answerOf(error: ParserError, socket: Duplex): Answer | undefined {
  // An OpenSSL error on a connection that is already up: Node leaves the error of a refused client
  // certificate's signature check (an impostor CA with the trusted CA's name) on OpenSSL's queue,
  // and the connection's next read reports it. The certificate is what is refused (the 401 every
  // other request of that client gets); OpenSSL's text names library internals, never the client's.
  if (typeof error.library === "string") {
    const tls = socket as TLSSocket;
    return typeof tls.getPeerX509Certificate === "function" && !tls.authorized && tls.getPeerX509Certificate()
      ? {
          status: 401,
          message: `The client certificate is not accepted (${String(tls.authorizationError ?? "not issued by a trusted CA")})`,
          headers: 'WWW-Authenticate: Bearer realm="twinport"\r\n',
        }
      : { status: 400, message: "The TLS connection failed" };
  }
  switch (error.code) {
    case "ECONNRESET":
    case "EPIPE":
      return undefined; // the client is gone: nobody to answer
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "The request was not received completely in time" };
    case "HPE_HEADER_OVERFLOW":
      return inRequestLine(error)
        ? {
            status: 414,
            message:
              "The request line (method, URL and version) is longer than this server accepts (16 KiB with the headers)",
          }
        : {
            status: 431,
            message: "The request's headers are larger than this server accepts (16 KiB with the request line)",
          };
    default:
      return { status: 400, message: `Malformed HTTP request (${describe(error)})` };
  }
}

/**
 * The parser overflowed before the end of the first line: the URL is what is too long. Node reports
 * no parse position for the overflow (bytesParsed 0), so the first line's end is looked for within
 * the size limit itself: a request line that ends inside it leaves the headers to blame.
 */
function inRequestLine(error: ParserError): boolean {
  const packet = error.rawPacket;
  if (packet === undefined) return false;
  return !packet.subarray(0, maxHeaderSize).includes("\r\n");
}

function describe(error: ParserError): string {
  // llhttp's reasons are short and fixed ("Invalid character in chunk size", …); no client bytes.
  const reason = /^Parse Error: (.*)$/.exec(error.message)?.[1] ?? error.message;
  return reason.slice(0, 120);
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The method label, from the first bytes; anything else is "other" (labels stay few). */
function methodOf(packet: Buffer | undefined): string {
  const word = packet === undefined ? "" : packet.subarray(0, 8).toString("latin1").split(" ")[0]!;
  return METHODS.has(word) ? word : "other";
}

/** Bytes and time a refused client may still send while it reads the answer. */
const DRAIN_BYTES = 1024 * 1024;
const DRAIN_MS = 5_000;

function drainThenClose(socket: Duplex): void {
  let drained = 0;
  const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
  timer.unref();
  socket.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) socket.destroy();
  });
  socket.once("close", () => clearTimeout(timer));
  socket.resume();
}
