import { ANONYMOUS } from "../contracts/principal.ts";
import type { StoreClient } from "../engine/ports/store-client.ts";
import { isNoSecuritySectionReply } from "./command-responder.ts";

/**
 * What a gateway without a security section must know before it shows anything it did not ask the
 * store for as the caller (an OPC UA mirror, a change-event stream): whether the model-store behind
 * it enforces access rules that would hide some of it from an anonymous caller. Asked as anonymous
 * for what only READ on everything may see, the event log:
 * - "open": the store has no rules (it refuses any caller's principal, command-responder.ts), or its
 *   rules let anonymous read everything; showing everything leaks nothing;
 * - "secured": the store refused; the gateway must not show what it cannot filter.
 * No answer that says which (the store unreachable, a timeout) throws.
 */
export async function storeAccessStance(
  store: StoreClient,
  origin: string,
  timeoutMs: number,
): Promise<"open" | "secured"> {
  const reply = await store.execute(
    // Marked, so that a store without rules does not log its refusal as a misconfiguration.
    { type: "GetEvents", params: { after: 0, limit: 1 }, origin, principal: ANONYMOUS, accessStanceProbe: true },
    { deadline: Date.now() + timeoutMs },
  );
  if (reply.ok || isNoSecuritySectionReply(reply)) return "open";
  if (reply.error.code === "forbidden") return "secured";
  throw new Error(
    `cannot tell whether the model-store enforces access rules (${reply.error.code}: ${reply.error.message})`,
  );
}
