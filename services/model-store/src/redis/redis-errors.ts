import { RepositoryUnavailableError } from "@twinport/shared";

/**
 * Redis replies that mean "the server cannot serve right now" rather than "your request is wrong":
 * these surface as unavailable (HTTP 503) like a lost connection does. STORELOST is the commit
 * script's own (store-incarnation.ts): Redis lost the store's data, nothing was written.
 */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|NOREPLICAS|OOM|STORELOST)\b/;

/**
 * Turn a failure of a Redis call into what the Repository port promises: a connection problem,
 * timeout or server-busy reply becomes RepositoryUnavailableError; any other Redis error reply (a
 * script bug, WRONGTYPE) stays as it is, an internal error.
 */
export function toRepositoryError(error: unknown): unknown {
  if (error instanceof RepositoryUnavailableError) return error;
  const isReply = error instanceof Error && error.name === "ReplyError";
  if (isReply && !UNAVAILABLE_REPLIES.test(error.message)) return error;
  return new RepositoryUnavailableError(`Redis is unavailable: ${plainReason(error)}`, { cause: error });
}

/**
 * ioredis' texts (they reach clients in 503/504 messages) in words an operator of Twinport reads
 * without knowing ioredis' options; anything else as it is.
 */
const PLAIN_REASONS: [RegExp, string][] = [
  [/^Stream isn't writeable/, "the connection to Redis is down"],
  [/^Connection is closed/, "the connection to Redis is closed"],
  [/^Reached the max retries per request limit/, "the connection to Redis was lost while the call was on its way"],
  [/^Command timed out/, "Redis did not answer within the command timeout"],
];

export function plainReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  for (const [pattern, plain] of PLAIN_REASONS) if (pattern.test(message)) return plain;
  // A reply raised inside one of our scripts names the script's digest and line ("… script: 9f0c…,
  // on @user_script:275."): our internals, nothing a client or operator acts on.
  return message.replace(/\s*script: [0-9a-f]{40}, on @user_script:\d+\.?/g, "");
}

/** Await a Redis call, mapping its failure with toRepositoryError. */
export async function redisCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw toRepositoryError(error);
  }
}
