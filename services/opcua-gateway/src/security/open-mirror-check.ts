import { ConfigError, type StoreClient, storeAccessStance } from "@twinport/shared";

const ASK_TIMEOUT_MS = 5_000;
const RETRY_MS = 1_000;
/** One line when the wait starts, then one per this many attempts (~30 s). */
const LOG_EVERY = 30;

/**
 * An opcua-gateway without a security section builds its mirror with SYSTEM reads and serves it to
 * every session unchecked. In front of a model-store that enforces rules, every value would be
 * readable by anyone (an anonymous session read what the rules granted nobody). So before serving,
 * ask the store whether it does (storeAccessStance): open (no rules, or anonymous reads everything)
 * is fine; secured stops the start-up with a configuration error. While no model-store answers
 * (compose and Kubernetes start every role at once), it asks again every second, as the mirror's
 * own first read does, and says so in the log; it never serves before it knows.
 */
export async function refuseOpenMirrorOfSecuredStore(store: StoreClient, log: (line: string) => void): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    let stance: "open" | "secured";
    try {
      stance = await storeAccessStance(store, "opcua", ASK_TIMEOUT_MS);
    } catch (error) {
      if (attempt % LOG_EVERY === 0)
        log(
          `no model-store answers yet whether it enforces access rules; the opcua-gateway waits for one before serving (${(error as Error).message})`,
        );
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      continue;
    }
    if (stance === "open") return;
    throw new ConfigError(
      "The model-store enforces access rules, but this opcua-gateway has no security section: its mirror would show every value to every session. Give every role the same security section.",
    );
  }
}
