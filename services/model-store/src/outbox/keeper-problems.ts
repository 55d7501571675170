import type { Logger } from "@twinport/shared";

/**
 * How the outbox keeper's failures are logged: at warn, with fields (a Redis outage must show at
 * `logLevel` warn, where an info line vanished), and once per distinct problem rather than once a
 * second while Redis stays away; the same problem is logged again after a minute.
 */
export function keeperProblems(logger: Logger, now: () => number = Date.now): (error: unknown) => void {
  let last: { message: string; at: number } | undefined;
  return (error) => {
    const message = (error as Error)?.message ?? String(error);
    const at = now();
    if (last !== undefined && last.message === message && at - last.at < REPEAT_AFTER_MS) return;
    last = { message, at };
    logger.warn(
      { component: "outbox-keeper", reason: message },
      "event log upkeep failed (heartbeats, trimming); retrying",
    );
  };
}

const REPEAT_AFTER_MS = 60_000;
