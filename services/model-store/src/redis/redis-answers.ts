import type { Redis } from "ioredis";

/**
 * Whether Redis answers, not only whether the connection is up: a Redis that is stopped (SIGSTOP,
 * a VM stall) or busy in a long script keeps its TCP connection "ready" while every command waits,
 * so /ready said `redis: true` while writes answered 504. A PING every `intervalMs`; one
 * unanswered for longer than `timeoutMs`, refused, or answered late makes the check fail until a
 * PING is answered in time.
 */
export interface RedisAnswers {
  ready(): boolean;
  stop(): void;
}

export function watchRedisAnswers(
  redis: Redis,
  options: {
    intervalMs?: number;
    timeoutMs?: number;
    /**
     * Called when `ready()` changes, seen at the next PING tick or answer: the
     * twinport_backend_up gauge is set, not sampled at scrape, and a stopped Redis closes no
     * connection, so no connection event would ever turn it to 0.
     */
    onChange?: (ready: boolean) => void;
  } = {},
): RedisAnswers {
  const intervalMs = options.intervalMs ?? 2_000;
  const timeoutMs = options.timeoutMs ?? 1_000;
  let pendingSince: number | undefined;
  // The last PING failed: the client's command timeout (shorter than the next tick) rejects the
  // PING of a frozen Redis, and taking that for an answer made /ready flap back to 200 between
  // ticks while every request failed (a black-box finding). Only a PING that is answered clears it.
  let failed = false;
  const ready = () =>
    redis.status === "ready" && !failed && (pendingSince === undefined || Date.now() - pendingSince < timeoutMs);
  let reported = ready();
  const report = () => {
    const now = ready();
    if (now === reported) return;
    reported = now;
    options.onChange?.(now);
  };
  const timer = setInterval(() => {
    report();
    if (pendingSince !== undefined || redis.status !== "ready") return;
    const sent = Date.now();
    pendingSince = sent;
    const over = (answered: boolean) => {
      pendingSince = undefined;
      // An answer that came after the bound still shows a Redis too slow to serve.
      failed = !answered || Date.now() - sent >= timeoutMs;
      report();
    };
    redis.ping().then(
      () => over(true),
      () => over(false),
    );
  }, intervalMs);
  timer.unref();
  return { ready, stop: () => clearInterval(timer) };
}
