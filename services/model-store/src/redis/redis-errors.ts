import { RepositoryUnavailableError } from "@twinport/shared";

/**
 * Redis replies that mean "the server cannot serve right now" rather than "your request is wrong":
 * these surface as unavailable (HTTP 503) like a lost connection does.
 */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|NOREPLICAS|OOM)\b/;

/**
 * Turn a failure of a Redis call into what the Repository port promises: a connection problem,
 * timeout or server-busy reply becomes RepositoryUnavailableError; any other Redis error reply (a
 * script bug, WRONGTYPE) stays as it is, an internal error.
 */
export function toRepositoryError(error: unknown): unknown {
  if (error instanceof RepositoryUnavailableError) return error;
  const isReply = error instanceof Error && error.name === "ReplyError";
  if (isReply && !UNAVAILABLE_REPLIES.test(error.message)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new RepositoryUnavailableError(`Redis is unavailable: ${reason}`, { cause: error });
}

/** Await a Redis call, mapping its failure with toRepositoryError. */
export async function redisCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw toRepositoryError(error);
  }
}
