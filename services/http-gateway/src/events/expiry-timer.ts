/**
 * A timer for a moment that may be weeks away (a bearer token's `exp`). Node's setTimeout takes at
 * most 2^31 − 1 ms (~24.8 days): a longer delay is replaced by 1 ms with a TimeoutOverflowWarning,
 * so a stream opened with a token valid for 25 days ended at once as "expired". Past that bound the
 * timer waits the bound and arms itself again.
 */
const MAX_DELAY_MS = 2 ** 31 - 1;

export interface ExpiryTimer {
  cancel(): void;
}

export function atTime(at: number, fire: () => void): ExpiryTimer {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = at - Date.now();
    if (left > MAX_DELAY_MS) timer = setTimeout(arm, MAX_DELAY_MS);
    else timer = setTimeout(fire, Math.max(0, left));
    // An open stream keeps the process busy anyway; its expiry alone must not.
    timer.unref?.();
  };
  arm();
  return { cancel: () => clearTimeout(timer) };
}
