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
    text,
    code,
    timestamp,
  });
  // The path may be the client's (an idShortPath of the URL): quoted as the message quotes it.
  const path = error.path === undefined ? "" : echoed(error.path);
  const main = path !== "" && !error.message.includes(path) ? `${error.message} (at ${path})` : error.message;
  // Each finding gets a message of its own, unless the headline already is the one finding
  // ("Invalid Property: <finding>", verification-summary.ts).
  const details = error.details ?? [];
  const repeated = details.length === 1 && main.includes(details[0]!);
  const messages = [message("Error", main), ...(repeated ? [] : details.map((detail) => message("Error", detail)))];
  if (options.includeErrorDetails && error.stack) messages.push(message("Exception", error.stack));
  return { messages };
}
