import { failureReply, type ReplyFailure } from "../contracts/index.ts";

/** What the responder answers when the handler throws instead of replying (see failureReply). */
export function replyForThrown(error: unknown): ReplyFailure {
  return failureReply(error);
}
