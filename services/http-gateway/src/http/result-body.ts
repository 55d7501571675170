import type { ServerResponse } from "node:http";
import { echoed, type ReplyError } from "@twinport/shared";

/** AAS Part 2 `Message`: only these fields; the correlation id travels in X-Correlation-Id. */
export interface ResultMessage {
  messageType: "Error" | "Exception";
  text: string;
  code: string;
  timestamp: string;
}

/** AAS Part 2 `Result`, the body of every error response. */
export interface ResultBody {
  messages: ResultMessage[];
}

/**
 * Longest text of an Error message. Messages quote a client's values through echoed(), but many
 * quote them inside texts made elsewhere (the metamodel's checks, value parsing: `"<value>" is not
 * a valid xs:double value`), and a 5 MB value PATCHed to a Property came back whole in the 400.
 * Such a text is cut in its middle: its start says what and where, its end says why.
 */
export const MAX_MESSAGE_CHARACTERS = 1024;
const KEPT_HEAD = 640;
const KEPT_TAIL = 256;
/** What echoed() made of a value that was already cut: not cut (and counted) a second time. */
const ECHOED_FORM = /… \(\d+ characters\)$/;

function cappedText(text: string): string {
  if (text.length <= MAX_MESSAGE_CHARACTERS) return text;
  // Never inside a surrogate pair: the Result would carry a lone surrogate.
  const lastKept = text.charCodeAt(KEPT_HEAD - 1);
  const head = lastKept >= 0xd800 && lastKept <= 0xdbff ? KEPT_HEAD - 1 : KEPT_HEAD;
  const firstKept = text.charCodeAt(text.length - KEPT_TAIL);
  const tail = firstKept >= 0xdc00 && firstKept <= 0xdfff ? text.length - KEPT_TAIL + 1 : text.length - KEPT_TAIL;
  return `${text.slice(0, head)}… (${tail - head} characters left out) …${text.slice(tail)}`;
}

/**
 * The main message first, then one message per detail (e.g. each failed constraint), then, only
 * when the endpoint allows it, the stack trace as an "Exception" message.
 */
export function resultBody(
  status: number,
  error: Omit<ReplyError, "code">,
  options: { includeErrorDetails: boolean; now: Date },
): ResultBody {
  const code = String(status);
  const timestamp = options.now.toISOString();
  const message = (messageType: ResultMessage["messageType"], text: string): ResultMessage => ({
    messageType,
    text: messageType === "Error" ? cappedText(text) : text,
    code,
    timestamp,
  });
  // The path may be the client's (an idShortPath of the URL): quoted as the message quotes it.
  const path = error.path === undefined ? "" : ECHOED_FORM.test(error.path) ? error.path : echoed(error.path);
  const main = path !== "" && !error.message.includes(path) ? `${error.message} (at ${path})` : error.message;
  // Each finding gets a message of its own, unless the headline already is the one finding
  // ("Invalid Property: <finding>", verification-summary.ts).
  const details = error.details ?? [];
  const repeated = details.length === 1 && main.includes(details[0]!);
  const messages = [message("Error", main), ...(repeated ? [] : details.map((detail) => message("Error", detail)))];
  if (options.includeErrorDetails && error.stack) messages.push(message("Exception", error.stack));
  return { messages };
}

/**
 * Answers on Node's own response, before or outside the routes (a request refused on its request
 * line, one pipelined past the bound): the Result body, no details, and Connection: close.
 */
export function endWithResult(outgoing: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify(resultBody(status, { message }, { includeErrorDetails: false, now: new Date() }));
  outgoing.shouldKeepAlive = false;
  outgoing.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  outgoing.end(body);
}
