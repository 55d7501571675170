import type { ChangeEvent, EventBus, EventSubscription, MqttPublishingConfig } from "@twinport/shared";
import { acquireLease, releaseLease } from "../outbox/lease.ts";
import { luaScript } from "../redis/lua-script.ts";
import { redisCall } from "../redis/redis-errors.ts";
import type { RedisRepository } from "../redis/redis-repository.ts";
import type { EventPublishing } from "./event-publishing.ts";
import type { MqttPublishingTarget } from "./mqtt-publishing-options.ts";
import { createOrderedPublisher, type OrderedPublisher } from "./ordered-publisher.ts";

export interface DurablePublishingOptions {
  repository: RedisRepository;
  /** The event log (GetEvents through the engine): events after `after`, in seq order. */
  fetchEvents: (after: number, limit: number) => Promise<ChangeEvent[] | undefined>;
  /** Only to wake up at once when something was committed; the events themselves come from the log. */
  bus: EventBus;
  config: MqttPublishingConfig;
  target: MqttPublishingTarget;
  /** Unique per process: who holds the publishing lease. */
  owner: string;
  log: (message: string) => void;
  /** Default 5000 ms, renewed every third of it (as the outbox keeper). */
  leaseMs?: number;
  /** Looks at the log this often even without a bus event. Default 500 ms. */
  pollMs?: number;
}

/** Events read from the log at once, and kept unacknowledged at most. */
const BATCH = 256;

/** Saves the position only for the lease holder, and never backwards. */
const SAVE_POSITION = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) > current then redis.call('SET', KEYS[2], ARGV[2]) end
return 1
`);

/**
 * Distributed mode (and embedded mode on Redis), docs/adr/0030: one replica at a time (lease
 * `mqtt:lease`) publishes, reading the event log (the outbox stream, ADR 0018) in seq order from
 * the position saved in Redis (`mqtt:published`, the last seq the broker acknowledged). A replica
 * that takes over, and a publisher whose broker was away, continue from that position: nothing
 * committed meanwhile is lost while the log still holds it (OUTBOX_RETENTION events). Events the
 * broker had acknowledged after the last saved position are published again (at least once).
 * The first start ever begins at the store's current seq: history is not replayed.
 */
export async function startDurablePublishing(
  options: DurablePublishingOptions,
): Promise<Pick<EventPublishing, "stop">> {
  const { repository, config, target, owner, log } = options;
  const redis = repository.redis;
  const leaseKey = repository.key("mqtt:lease");
  const positionKey = repository.key("mqtt:published");
  const leaseMs = options.leaseMs ?? 5000;
  const pollMs = options.pollMs ?? 500;

  let stopped = false;
  let leaseValidUntil = 0;
  const isLeader = () => !stopped && Date.now() < leaseValidUntil;
  let publisher: OrderedPublisher | undefined;
  /** The last seq handed to the publisher (read from the log). */
  let fetched = 0;
  let ackedSeq = 0;
  let savedSeq = 0;
  let saving = false;

  const save = async () => {
    if (saving || ackedSeq <= savedSeq) return;
    saving = true;
    const seq = ackedSeq;
    try {
      await redisCall(SAVE_POSITION.run(redis, [leaseKey, positionKey], [owner, seq]));
      savedSeq = seq;
    } catch (error) {
      log(`MQTT publishing: saving the position failed: ${(error as Error).message}`);
    } finally {
      saving = false;
    }
    if (ackedSeq > savedSeq && !stopped) void save();
  };

  const becomeLeader = async () => {
    const saved = await redisCall(redis.get(positionKey));
    let position: number;
    if (saved === null) {
      // The last seq subscribers may see: on a Redis Cluster a round may hold seqs above it still unapplied (ADR 0040).
      position = await repository.currentSeq();
      await redisCall(redis.set(positionKey, String(position), "NX"));
      position = Number((await redisCall(redis.get(positionKey))) ?? position);
    } else {
      position = Number(saved);
    }
    fetched = ackedSeq = savedSeq = position;
    publisher = createOrderedPublisher({
      config,
      target,
      log,
      window: 64,
      onAcked: (seq) => {
        ackedSeq = seq;
        void save();
        wake();
      },
    });
    log(`MQTT publishing: this replica publishes now, from seq ${position + 1}`);
  };

  const resign = async (why: string) => {
    const old = publisher;
    publisher = undefined;
    if (old) {
      log(`MQTT publishing: ${why}; another replica continues from the saved position`);
      old.clear();
      await old.close();
    }
  };

  const keepLease = async () => {
    const sentAt = Date.now();
    try {
      const held = await acquireLease(redis, leaseKey, owner, leaseMs);
      if (stopped) return;
      leaseValidUntil = held ? sentAt + leaseMs : 0;
      if (held && !publisher) await becomeLeader();
      if (!held && publisher) await resign("the publishing lease went to another replica");
    } catch (error) {
      log(`MQTT publishing: ${(error as Error).message}`);
      if (!isLeader() && publisher) await resign("the publishing lease ran out (Redis unreachable)");
    }
  };

  /** Reads the log after `fetched` while the publisher has room. */
  let pumping = false;
  let again = false;
  const pumpLog = async () => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (isLeader() && publisher && publisher.pending() < BATCH) {
          const events = await options.fetchEvents(fetched, BATCH);
          if (!events || events.length === 0 || !publisher || !isLeader()) break;
          const first = events[0]!;
          if (first.seq > fetched + 1) {
            log(
              `MQTT publishing: events seq ${fetched + 1}..${first.seq - 1} are no longer in the event log and were not published`,
            );
          }
          for (const event of events) if (event.seq > fetched) publisher.push(event);
          fetched = events.at(-1)!.seq;
        }
      } while (again && !stopped);
    } catch (error) {
      log(`MQTT publishing: reading the event log failed: ${(error as Error).message}`);
    } finally {
      pumping = false;
    }
  };
  const wake = () => {
    if (isLeader()) void pumpLog();
  };

  const subscription: EventSubscription = await options.bus.subscribe({ onEvent: wake, onReconnect: wake });
  let leaseTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const renewEveryMs = Math.max(10, Math.floor(leaseMs / 3));
  const loop = () => {
    if (stopped) return;
    leaseTimer = setTimeout(() => {
      running = keepLease().finally(loop);
    }, renewEveryMs);
  };
  const poll = () => {
    if (stopped) return;
    pollTimer = setTimeout(() => {
      wake();
      poll();
    }, pollMs);
  };
  await keepLease();
  wake();
  loop();
  poll();

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(leaseTimer);
      clearTimeout(pollTimer);
      await running.catch(() => undefined);
      await subscription.unsubscribe().catch(() => undefined);
      const old = publisher;
      publisher = undefined;
      // What the broker acknowledged is saved before the lease goes, so the next holder does not repeat it.
      if (old) {
        await old.close();
        if (ackedSeq > savedSeq) {
          await redisCall(SAVE_POSITION.run(redis, [leaseKey, positionKey], [owner, ackedSeq])).catch(() => undefined);
        }
      }
      await releaseLease(redis, leaseKey, owner).catch(() => undefined);
    },
  };
}
