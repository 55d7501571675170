import { ANONYMOUS, ConfigError, isNoSecuritySectionReply, type StoreClient } from "@twinport/shared";

const CHECK_TIMEOUT_MS = 60_000;
/** How often to ask again while no model-store answers (the address-space build retries as often). */
const RETRY_MS = 1000;

/**
 * An opcua-gateway without a security section builds its mirror with SYSTEM reads and serves it to
 * every session unchecked. In front of a model-store that enforces rules, every value would be
 * readable by anyone (an anonymous session read what the rules granted nobody). So before serving,
 * ask the store as an anonymous caller for what only READ on everything may see, the event log:
 * - a store without rules refuses any caller's principal (command-responder.ts): nothing to leak;
 * - a store whose rules let anonymous read everything answers: the mirror shows no more than that;
 * - anything else (refused, or no answer that says which) means this gateway must not serve.
 */
export async function refuseOpenMirrorOfSecuredStore(
  store: StoreClient,
  onWaiting: (problem: string) => void = () => {},
): Promise<void> {
  // No model-store yet (started together, or before it: Kubernetes has no start order), or it cannot
  // reach Redis: no answer either way, so ask again until one comes, as the address-space build does,
  // instead of exiting into a restart loop. Each reason is told once.
  const told = new Set<string>();
  let reply = await askAsAnonymous(store);
  // (a store without rules answers "unavailable" too, with its own message: that is an answer)
  while (
    !reply.ok &&
    !isNoSecuritySectionReply(reply) &&
    (reply.error.code === "unavailable" || reply.error.code === "timeout")
  ) {
    if (!told.has(reply.error.message)) {
      told.add(reply.error.message);
      onWaiting(reply.error.message);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    reply = await askAsAnonymous(store);
  }
  if (reply.ok || isNoSecuritySectionReply(reply)) return;
  if (reply.error.code === "forbidden") {
    throw new ConfigError(
      "The model-store enforces access rules, but this opcua-gateway has no security section: its mirror would show every value to every session. Give every role the same security section.",
    );
  }
  throw new Error(
    `The opcua-gateway cannot tell whether the model-store enforces access rules (${reply.error.code}: ${reply.error.message}); not serving an unchecked mirror`,
  );
}

function askAsAnonymous(store: StoreClient) {
  return store.execute(
    { type: "GetEvents", params: { after: 0, limit: 1 }, origin: "opcua", principal: ANONYMOUS },
    { deadline: Date.now() + CHECK_TIMEOUT_MS },
  );
}
