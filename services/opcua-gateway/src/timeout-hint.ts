/** The most kept back from a client's timeoutHint, so that an answer sent at the limit reaches it while it still waits. */
const HINT_MARGIN_MS = 1000;

/**
 * How long the server may work on a request whose RequestHeader carries `timeoutHint` (ms; OPC
 * 10000-4 §7.32: the server may give up then and answer BadTimeout): the hint less a second, or
 * less a fifth of a short hint. Undefined without a hint (0: the client sets none).
 */
export function answerWithinMs(timeoutHint: number | undefined): number | undefined {
  if (timeoutHint === undefined || !(timeoutHint > 0)) return undefined;
  return Math.max(1, Math.round(timeoutHint - Math.min(HINT_MARGIN_MS, timeoutHint / 5)));
}
