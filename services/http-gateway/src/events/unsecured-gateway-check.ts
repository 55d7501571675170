import { type StoreClient, storeAccessStance } from "@twinport/shared";
import { ApiError } from "../http/api-error.ts";

/** How long an answer holds: a model-store restarted with another configuration is noticed within it. */
const ANSWER_HOLDS_MS = 60_000;
const ASK_TIMEOUT_MS = 5_000;

/**
 * A distributed http-gateway without a security section serves every API request as anonymous, and
 * the model-store's rules decide. Its event stream, though, fans out what the bus brings, unfiltered:
 * in front of a model-store with rules it would show every change to anyone. So before a stream
 * opens, this asks the store (storeAccessStance) whether it enforces rules an anonymous caller
 * meets, and refuses the stream (403) if it does, or (503) while that cannot be told. The answer is
 * kept for a minute; the gateway does not wait for the store at start-up (it answers 503 until one
 * is there, as for any request).
 */
export function unsecuredGatewayCheck(store: StoreClient, warn: (line: string) => void): () => Promise<void> {
  let known: { stance: "open" | "secured"; at: number } | undefined;
  let warned = false;
  return async () => {
    if (known === undefined || Date.now() - known.at > ANSWER_HOLDS_MS) {
      try {
        known = { stance: await storeAccessStance(store, "http", ASK_TIMEOUT_MS), at: Date.now() };
      } catch (error) {
        throw ApiError.of(
          "unavailable",
          `The event stream is not served while this http-gateway ${(error as Error).message}`,
        );
      }
    }
    if (known.stance === "open") return;
    if (!warned) {
      warned = true;
      warn(
        "the model-store enforces access rules, but this http-gateway has no security section: its event stream is refused (403). Give every role the same security section.",
      );
    }
    throw ApiError.of(
      "forbidden",
      "The model-store enforces access rules, but this http-gateway has no security section to filter change events by: the event stream is not served here. Give every role the same security section.",
    );
  };
}
