import type { ChangeEvent, EventBus } from "@twinport/shared";
import type { Redis } from "ioredis";
import { luaScript } from "../redis/lua-script.ts";
import { firstConnection } from "../redis/redis-client.ts";
import { redisCall } from "../redis/redis-errors.ts";
import type { RedisRepository } from "../redis/redis-repository.ts";
import { acquireLease, releaseLease } from "./lease.ts";

export interface OutboxRelayOptions {
  repository: RedisRepository;
  bus: EventBus;
  /** Unique per replica (e.g. host name + pid): who holds the relay lease. */
  owner: string;
  /** How long a silent leader keeps the lease. Default 5000 ms. */
  leaseMs?: number;
  /** Heartbeat interval. Default 1000 ms. */
  heartbeatMs?: number;
  /** Entries read per XREAD. Default 500. */
  batchSize?: number;
  /** Failures the relay retries by itself (Redis or the bus away); default: ignored. */
  onError?: (error: unknown) => void;
}

export interface OutboxRelay {
  /** Whether this replica currently holds the lease and relays. */
  isLeader(): boolean;
  /** Stop relaying and give the lease up, so another replica takes over at once. */
  stop(): Promise<void>;
}

/**
 * Relays the outbox stream (one entry per commit, appended inside the commit script) to the event
 * bus, in sequence order. Exactly one replica relays: the holder of a lease it renews every
 * leaseMs/3; the others try to take it over at the same pace, so a crashed leader is replaced about
 * one lease time later (at once when it stops cleanly and releases it).
 *
 * At-least-once: the position (last relayed stream id) is saved after each published batch, and only
 * while the lease is still ours; a new leader starts from it, so at most the last batch of a failed
 * leader is published twice. Subscribers drop seq they already applied.
 */
export async function startOutboxRelay(options: OutboxRelayOptions): Promise<OutboxRelay> {
  const { repository, bus, owner } = options;
  const leaseMs = options.leaseMs ?? 5000;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const batchSize = options.batchSize ?? 500;
  const onError = options.onError ?? (() => {});
  const redis = repository.redis;
  const leaseKey = repository.key("relay:lease");
  const positionKey = repository.key("relay:position");
  const renewEveryMs = Math.max(10, Math.floor(leaseMs / 3));

  // XREAD BLOCK holds its connection, so it gets one of its own, without the command timeout (the
  // client-side blocking timeout still catches a dead socket).
  const reader = redis.duplicate({ commandTimeout: undefined, enableAutoPipelining: false, blockingTimeout: leaseMs, connectionName: `twinport-relay-${owner}` });
  reader.on("error", () => {});
  await firstConnection(reader, leaseMs);

  let stopped = false;
  /** Local time until which the lease is surely ours (counted from when the request was sent). */
  let leaseValidUntil = 0;
  /** Bumped whenever the lease is (re)gained: the loop then reloads the saved position. */
  let term = 0;
  const isLeader = () => !stopped && Date.now() < leaseValidUntil;

  let wakeLoop: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeLoop = undefined;
        resolve();
      }
      wakeLoop = done;
    });

  // ---- the lease keeper: acquire (or renew, when already ours) every renewEveryMs
  let keeperTimer: NodeJS.Timeout | undefined;
  let keeping: Promise<void> = Promise.resolve();
  const keepLease = async () => {
    const sentAt = Date.now();
    try {
      const wasLeader = isLeader();
      const held = await acquireLease(redis, leaseKey, owner, leaseMs);
      if (stopped) return;
      if (held) {
        if (!wasLeader) term++;
        leaseValidUntil = sentAt + leaseMs;
        if (!wasLeader) wakeLoop?.();
      } else {
        leaseValidUntil = 0;
      }
    } catch (error) {
      onError(error); // keep what we had: it runs out by itself if Redis stays away
    }
  };
  const scheduleKeeper = () => {
    if (stopped) return;
    keeperTimer = setTimeout(() => {
      keeping = keepLease().finally(scheduleKeeper);
    }, renewEveryMs);
  };
  keeping = keepLease().finally(scheduleKeeper);
  await keeping;

  // ---- the relay loop
  const loop = (async () => {
    let position = "0-0";
    let loadedTerm = -1;
    let nextHeartbeat = 0;
    while (!stopped) {
      if (!isLeader()) {
        await pause(renewEveryMs);
        continue;
      }
      try {
        if (loadedTerm !== term) {
          const termNow = term;
          position = (await redisCall(redis.get(positionKey))) ?? "0-0";
          loadedTerm = termNow;
        }
        if (Date.now() >= nextHeartbeat) {
          await publishHeartbeat(redis, repository, bus, position);
          nextHeartbeat = Date.now() + heartbeatMs;
        }
        const blockMs = Math.max(1, Math.min(nextHeartbeat - Date.now(), renewEveryMs));
        const entries = await readOutbox(reader, repository.outboxKey, position, batchSize, blockMs);
        let relayed = position;
        for (const [id, fields] of entries) {
          // Checked per event: a leader whose lease ran out stops before publishing more.
          if (!isLeader()) break;
          await bus.publish(toEvent(fields));
          relayed = id;
        }
        if (relayed !== position) {
          position = relayed;
          if (!(await savePosition(redis, leaseKey, positionKey, repository.outboxKey, owner, position))) leaseValidUntil = 0;
        }
      } catch (error) {
        if (stopped) break;
        onError(error);
        await pause(Math.min(200, renewEveryMs));
      }
    }
  })();

  return {
    isLeader,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(keeperTimer);
      wakeLoop?.();
      reader.disconnect(); // aborts a pending XREAD BLOCK at once
      await loop;
      await keeping;
      // Compare-and-delete: harmless when the lease is not ours (also covers one gained during stop).
      await releaseLease(redis, leaseKey, owner).catch(onError);
    },
  };
}

type StreamEntry = [id: string, fields: string[]];

async function readOutbox(reader: Redis, key: string, after: string, count: number, blockMs: number): Promise<StreamEntry[]> {
  const reply = (await reader.xread("COUNT", count, "BLOCK", blockMs, "STREAMS", key, after)) as [string, StreamEntry[]][] | null;
  return reply?.[0]?.[1] ?? [];
}

function toEvent(fields: string[]): ChangeEvent {
  let seq = 0;
  let json = "{}";
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i] === "seq") seq = Number(fields[i + 1]);
    else if (fields[i] === "event") json = fields[i + 1];
  }
  return { ...(JSON.parse(json) as Omit<ChangeEvent, "seq" | "revision">), seq, revision: seq };
}

/** Save the position and trim what was delivered, but only while the lease is ours. */
const SAVE_POSITION = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('XTRIM', KEYS[3], 'MINID', ARGV[3])
return 1
`);

async function savePosition(redis: Redis, leaseKey: string, positionKey: string, outboxKey: string, owner: string, position: string): Promise<boolean> {
  const [ms, n] = position.split("-");
  const firstUndelivered = `${ms}-${BigInt(n) + 1n}`;
  return (await redisCall(SAVE_POSITION.run(redis, [leaseKey, positionKey, outboxKey], [owner, position, firstUndelivered]))) === 1;
}

/**
 * The heartbeat says "everything up to seq has been relayed". Read atomically with the outbox
 * tail: when nothing is pending after our position, every commit up to the store's current seq has
 * been relayed (commit and outbox entry are one atomic step). Otherwise it names the seq of the last
 * relayed entry, so a heartbeat never runs ahead of the events before it.
 */
async function publishHeartbeat(redis: Redis, repository: RedisRepository, bus: EventBus, position: string): Promise<void> {
  const results = await redisCall(redis.multi().get(repository.layout.sequence).xread("COUNT", 1, "STREAMS", repository.outboxKey, position).exec());
  if (results === null) throw new Error("heartbeat transaction aborted");
  const [[seqError, storeSeq], [pendingError, pending]] = results as [Error | null, unknown][];
  if (seqError || pendingError) throw seqError ?? pendingError;
  const relayedSeq = Number(position.split("-")[0]);
  const seq = pending === null ? Math.max(relayedSeq, Number(storeSeq ?? 0)) : relayedSeq;
  await bus.publishHeartbeat({ seq, time: new Date().toISOString() });
}
