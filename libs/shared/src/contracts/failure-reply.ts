import { CommandError } from "./errors.ts";
import type { ReplyFailure } from "./replies.ts";

/**
 * The reply for something thrown instead of answered: a CommandError keeps its code (it was raised
 * on purpose); a Repository that lost its backend is `unavailable`; anything else is a bug →
 * `internal` with its stack (gateways show stacks only with includeErrorDetails); a commit whose
 * outcome is unknown (sent, but no answer) is `timeout`. One mapping for the engine, the direct client and the NATS responder.
 */
export function failureReply(error: unknown): ReplyFailure {
  if (error instanceof CommandError) {
    return {
      ok: false,
      error: {
        code: error.code,
        message: error.message,
        ...(error.path !== undefined ? { path: error.path } : {}),
        ...(error.details !== undefined && error.details.length > 0 ? { details: error.details } : {}),
      },
    };
  }
  if (error instanceof Error && error.name === "RepositoryOutcomeUnknownError") {
    return {
      ok: false,
      error: {
        code: "timeout",
        message: `The outcome is unknown (${error.message}): the write may or may not have been applied; repeat it with the same Idempotency-Key to learn its outcome`,
      },
    };
  }
  if (error instanceof Error && error.name === "RepositoryUnavailableError") {
    return { ok: false, error: { code: "unavailable", message: `The model store is unavailable: ${error.message}` } };
  }
  // The message of an unexpected error may carry internals: it travels only inside the stack, which
  // gateways show with includeErrorDetails alone.
  const stack = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  return { ok: false, error: { code: "internal", message: "Internal server error", stack } };
}
