import { ConfigError, type StoreClient, storeAccessStance } from "@twinport/shared";

const CHECK_TIMEOUT_MS = 60_000;

/**
 * An opcua-gateway without a security section builds its mirror with SYSTEM reads and serves it to
 * every session unchecked. In front of a model-store that enforces rules, every value would be
 * readable by anyone (an anonymous session read what the rules granted nobody). So before serving,
 * ask the store whether it does (storeAccessStance): open (no rules, or anonymous reads everything)
 * is fine; secured, or no answer that says which, means this gateway must not serve.
 */
export async function refuseOpenMirrorOfSecuredStore(store: StoreClient): Promise<void> {
  let stance: "open" | "secured";
  try {
    stance = await storeAccessStance(store, "opcua", CHECK_TIMEOUT_MS);
  } catch (error) {
    throw new Error(`The opcua-gateway ${(error as Error).message}; not serving an unchecked mirror`);
  }
  if (stance === "secured") {
    throw new ConfigError(
      "The model-store enforces access rules, but this opcua-gateway has no security section: its mirror would show every value to every session. Give every role the same security section.",
    );
  }
}
