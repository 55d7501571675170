import type { EventBus } from "@twinport/shared";
import type { RedisRepository } from "./redis-repository.ts";
import type { IncarnationState } from "./store-incarnation.ts";

/**
 * Notices that Redis lost the store's data (store-incarnation.ts) without waiting for a commit:
 * a replica that only reads would otherwise go on answering from its rendered-submodel cache, and
 * one whose next commit comes late would keep the outbox keeper's heartbeats going. Checked when
 * the connection becomes ready again (a restarted Redis is the usual way to lose the data) and every
 * `intervalMs`: one GET. A check Redis does not answer (away, still loading) says nothing.
 */
export interface StoreLostWatch {
  stop(): void;
}

export function watchStoreLost(
  repository: RedisRepository,
  onLost: (state: Exclude<IncarnationState, "held">) => void,
  intervalMs = 1000,
): StoreLostWatch {
  let checking = false;
  let stopped = false;
  const check = () => {
    if (checking || stopped || repository.redis.status !== "ready") return;
    checking = true;
    repository.incarnationState().then(
      (state) => {
        checking = false;
        if (state !== "held" && !stopped) {
          stopped = true;
          onLost(state);
        }
      },
      () => {
        checking = false;
      },
    );
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  repository.redis.on("ready", check);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      repository.redis.off("ready", check);
    },
  };
}

/** The error line of a process that found the store's data gone (its operator reads it first). */
export function storeLostMessage(
  redisShown: string,
  state: Exclude<IncarnationState, "held">,
  mine: string | undefined,
): string {
  const what =
    state === "lost"
      ? "Redis lost the store's data (restarted without its data, a FLUSHALL, a failover to an empty replica)"
      : "Redis holds another store's data (its data was replaced since this process opened it)";
  return (
    `${what}: Redis at ${redisShown} no longer holds store incarnation ${mine}. ` +
    "Nothing more is written or served from this process's caches; it exits for a restart, which " +
    "initialises the store as on a first start (the -m model files are loaded again) and tells the gateways to resync"
  );
}

/** How long a process that found the store's data gone waits for its last heartbeat to leave. */
const ANNOUNCE_LOST_MS = 2000;

/**
 * The last heartbeat of a process whose store's data is gone: it names an incarnation no store
 * has (`lost:<the old one>`), so every subscriber drops its position, its caches and its mirror at
 * once (they resync, and wait for a model-store to read from) instead of serving the old data until
 * a restarted model-store beats with the new incarnation. Bounded: the process is ending.
 */
export async function announceStoreLost(
  bus: EventBus,
  incarnation: string | undefined,
  stopServing: () => Promise<void>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ANNOUNCE_LOST_MS);
  });
  const announced = (async () => {
    // Its command subscriptions first: what a subscriber asks after the announcement must not be
    // taken by this process (it would end without answering and leave the asker to its deadline).
    await stopServing().catch(() => undefined);
    await bus.publishHeartbeat({ seq: 0, time: new Date().toISOString(), incarnation: `lost:${incarnation}` });
    // Past the publish batch and the socket: the NATS server has it once the PONG is back.
    await bus.barrier?.();
  })().catch(() => undefined);
  await Promise.race([announced, bounded]);
  clearTimeout(timer);
}
