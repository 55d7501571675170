import { CommandError, type ReplyFailure } from "../contracts/index.ts";

/**
 * What the responder answers when the handler throws instead of replying: a CommandError keeps its
 * code (it was raised on purpose), anything else is a bug → `internal` with its stack.
 */
export function replyForThrown(error: unknown): ReplyFailure {
  if (error instanceof CommandError) {
    return {
      ok: false,
      error: {
        code: error.code,
        message: error.message,
        ...(error.path !== undefined ? { path: error.path } : {}),
        ...(error.details !== undefined ? { details: error.details } : {}),
      },
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? error.stack : undefined;
  return { ok: false, error: { code: "internal", message, ...(stack !== undefined ? { stack } : {}) } };
}
