/**
 * Exponential back-off with a cap and optional jitter: the one formula behind every retry loop
 * (commit conflicts, the operation runner's final write, asset connections, registry sync).
 */
export interface BackoffPolicy {
  /** The delay in ms at attempt 0; each attempt doubles it. */
  baseMs: number;
  /** The delay never exceeds this, in ms. */
  capMs: number;
  /**
   * "full": a uniformly random delay in [0, the exponential delay), which spreads retries that
   * compete for the same thing (writers racing for one record); "none": exactly the delay, for a
   * single retrier whose next attempt is announced (logs, status).
   */
  jitter: "full" | "none";
}

/** min(capMs, baseMs · 2^attempt), times a random factor in [0, 1) with full jitter. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  // 2^1023 is the largest power that stays finite; the cap has long been reached by then.
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), 1023);
  const delay = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  return policy.jitter === "full" ? random() * delay : delay;
}
