import type { EventBus } from "@twinport/shared";
import { deliverableSeq, recoverPending } from "../redis/cluster-commit.ts";
import { redisCall } from "../redis/redis-errors.ts";
import type { RedisRepository } from "../redis/redis-repository.ts";
import { acquireLease, releaseLease } from "./lease.ts";

export interface OutboxKeeperOptions {
  repository: RedisRepository;
  bus: EventBus;
  /** Unique per replica (e.g. host name + pid): who holds the keeper lease. */
  owner: string;
  /** How long a silent keeper keeps the lease. Default 5000 ms. */
  leaseMs?: number;
  /** Heartbeat interval. Default 1000 ms. */
  heartbeatMs?: number;
  /** Events the log keeps at least (older ones are trimmed). Default OUTBOX_RETENTION. */
  retention?: number;
  /** Events older than this (ms) are trimmed too. Default 24 h. */
  retentionMaxAgeMs?: number;
  /** Failures the keeper retries by itself (Redis or the bus away); default: ignored. */
  onError?: (error: unknown) => void;
  /**
   * Redis Cluster (docs/adr/0040): a commit round still pending after this long (its committer
   * died, or lost a node, between the catalog step and applying the elements) is applied by the
   * keeper. Default 2000 ms.
   */
  recoverPendingAfterMs?: number;
}

export interface OutboxKeeper {
  /** Whether this replica currently holds the lease. */
  isLeader(): boolean;
  /** Stop and give the lease up, so another replica takes over at once. */
  stop(): Promise<void>;
}

/**
 * Events a subscriber can still fill a gap from. A gap normally closes within milliseconds (an
 * event of another replica overtaken on the way); the log has to cover a publisher that died
 * between commit and publish until subscribers notice (a heartbeat, ~1 s) with room to spare.
 */
export const OUTBOX_RETENTION = 100_000;
export const OUTBOX_RETENTION_MAX_AGE_MS = 86_400_000;

/**
 * The outbox keeper (docs/adr/0018): every commit appends its event to the outbox stream inside the
 * commit script, and the committing replica publishes it right after the commit. One replica at a
 * time (a lease, renewed every leaseMs/3; the others try to take it over at the same pace) does
 * what nobody else can:
 * - heartbeats `{seq}` with the store's current seq: every event up to it has been committed, so a
 *   subscriber that missed the tail (a publisher died between commit and publish) notices and
 *   fills the gap from the log;
 * - trims the log to its retention (a count and an age).
 */
export async function startOutboxKeeper(options: OutboxKeeperOptions): Promise<OutboxKeeper> {
  const { repository, bus, owner } = options;
  const leaseMs = options.leaseMs ?? 5000;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const retention = options.retention ?? OUTBOX_RETENTION;
  const maxAgeMs = options.retentionMaxAgeMs ?? OUTBOX_RETENTION_MAX_AGE_MS;
  const timesKey = repository.key("outbox:times");
  const onError = options.onError ?? (() => {});
  const redis = repository.redis;
  const leaseKey = repository.key("relay:lease");
  const renewEveryMs = Math.max(10, Math.floor(leaseMs / 3));
  const layout = repository.layout;
  const recoverAfterMs = options.recoverPendingAfterMs ?? 2000;

  let stopped = false;
  /** Local time until which the lease is surely ours (counted from when the request was sent). */
  let leaseValidUntil = 0;
  const isLeader = () => !stopped && Date.now() < leaseValidUntil;

  const keepLease = async () => {
    const sentAt = Date.now();
    try {
      const held = await acquireLease(redis, leaseKey, owner, leaseMs);
      if (!stopped) leaseValidUntil = held ? sentAt + leaseMs : 0;
    } catch (error) {
      onError(error); // keep what we had: it runs out by itself if Redis stays away
    }
  };
  const beat = async (anyway = false) => {
    if (!isLeader() && !anyway) return;
    try {
      // On a cluster: rounds left pending are applied first, and the heartbeat names only seqs whose
      // elements are written (everything below the first one still pending).
      // (a node still away fails its recovery, not the heartbeat: it is tried again next beat)
      if (layout.cluster) await redisCall(recoverPending(redis, layout, recoverAfterMs)).catch(onError);
      const [seq, held] = layout.cluster
        ? [await redisCall(deliverableSeq(redis, layout)), await redisCall(redis.get(layout.incarnation))]
        : await redisCall(redis.mget(layout.sequence, layout.incarnation)).then(
            ([seq, held]) => [Number(seq ?? 0), held] as const,
          );
      // A seq of data this process did not open (Redis lost it) is not ours to announce: the process
      // is on its way out (store-lost-watch.ts), and the replica that opened the new data beats.
      const incarnation = repository.incarnation();
      if (held !== incarnation || (!isLeader() && !anyway)) return;
      await bus.publishHeartbeat({ seq, time: new Date().toISOString(), incarnation });
      if (!isLeader()) return;
      await trim(seq);
    } catch (error) {
      onError(error);
    }
  };

  /**
   * Retention (docs/adr/0029): the log keeps at most its newest `retention` events, and none older
   * than `maxAgeMs`. Stream ids are seqs, not times, so each beat notes "seq s was committed by time
   * t" in a sorted set (the first time it saw s); every event up to the newest s noted more than
   * maxAgeMs ago is old. Exact trimming (not `~`): once a second it removes what a second added.
   */
  const trim = async (seq: number) => {
    const now = Date.now();
    await redisCall(redis.zadd(timesKey, "NX", now, String(seq)));
    const [old] = (await redisCall(
      redis.zrevrangebyscore(timesKey, now - maxAgeMs, "-inf", "LIMIT", 0, 1),
    )) as string[];
    // Seqs have no gaps, so "the newest `retention`" are those above seq - retention.
    const droppable = Math.max(seq - retention, old === undefined ? 0 : Number(old));
    if (droppable <= 0) return;
    await redisCall(redis.xtrim(repository.outboxKey, "MINID", String(droppable + 1)));
    if (old !== undefined) await redisCall(redis.zremrangebyscore(timesKey, "-inf", now - maxAgeMs));
  };

  let leaseTimer: NodeJS.Timeout | undefined;
  let beatTimer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const every = (ms: number, work: () => Promise<void>, set: (t: NodeJS.Timeout) => void) => {
    const next = () => {
      if (stopped) return;
      set(
        setTimeout(() => {
          running = work().finally(next);
        }, ms),
      );
    };
    next();
  };
  await keepLease();
  // Every replica beats once at its start, keeper or not: subscribers learn of a new store
  // incarnation (Redis lost its data) before this replica commits or answers anything.
  await beat(true);
  every(renewEveryMs, keepLease, (t) => (leaseTimer = t));
  every(heartbeatMs, beat, (t) => (beatTimer = t));

  return {
    isLeader,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(leaseTimer);
      clearTimeout(beatTimer);
      await running.catch(() => undefined);
      // Compare-and-delete: harmless when the lease is not ours.
      await releaseLease(redis, leaseKey, owner).catch(onError);
    },
  };
}
