import type { Redis } from "ioredis";

/**
 * Whether Redis answers, not only whether the connection is up: a Redis that is stopped (SIGSTOP,
 * a VM stall) or busy in a long script keeps its TCP connection "ready" while every command waits,
 * so /ready said `redis: true` while writes answered 504. A PING every `intervalMs`; one
 * unanswered for longer than `timeoutMs` makes the check fail until it is answered.
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
  const ready = () => redis.status === "ready" && (pendingSince === undefined || Date.now() - pendingSince < timeoutMs);
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
    pendingSince = Date.now();
    const answered = () => {
      pendingSince = undefined;
      report();
    };
    // A failed PING (connection lost) shows in the connection's status; either way it is over.
    redis.ping().then(answered, answered);
  }, intervalMs);
  timer.unref();
  return { ready, stop: () => clearInterval(timer) };
}
