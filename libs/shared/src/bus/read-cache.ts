import {
  type ChangeEvent,
  type Command,
  type CommandResult,
  type CommandType,
  isRawItems,
  isRawJson,
  type Reply,
  WRITE_COMMANDS,
} from "../contracts/index.ts";
import type { EventBus, EventSubscription, ExecuteOptions, StoreClient } from "../engine/ports/index.ts";

export interface ReadCacheOptions {
  /** Longest time an answer is served from the cache, even if no event ever invalidated it (0: no cache). */
  maxAgeMs: number;
  /**
   * Bound of the cache's whole footprint, in bytes: each answer's text and key (UTF-16 length × 2, an
   * upper estimate) plus a fixed allowance for its bookkeeping (ENTRY_OVERHEAD_BYTES, and
   * TAG_OVERHEAD_BYTES + the tag's text per tag it carries).
   */
  maxBytes: number;
  /** Change events of the store, which invalidate what they touch. */
  bus: EventBus;
  log?: (line: string) => void;
  /**
   * Once the store has sent heartbeats, this long without any event or heartbeat means its outbox keeper
   * is silent (a model-store replica died, another takes over): nothing is served from the cache
   * until the stream speaks again. Default STREAM_SILENCE_MS.
   */
  streamSilenceMs?: number;
}

export interface ReadCacheStats {
  hits: number;
  misses: number;
  entries: number;
  /** Accounted bytes: entries with their bookkeeping; never above maxBytes. */
  bytes: number;
  /** Tags with at least one entry (the tag index holds no others). */
  tags: number;
  /** Tags watched by reads on their way (generations are kept for these only). */
  generations: number;
  /** True while the event subscription stands (and maxAgeMs > 0). */
  enabled: boolean;
  /** True while the event stream is behind this gateway's writes or silent: the cache is bypassed. */
  lagging: boolean;
}

export interface CachingStoreClient extends StoreClient {
  stats(): ReadCacheStats;
}

/**
 * Which reads may be answered from the cache, and the tags whose change makes an answer stale: the
 * identifiable it reads (`id:…`) or, for a list, every identifiable of a kind (`kind:…`).
 */
const TAGS_OF_READ: Partial<Record<CommandType, (params: Record<string, unknown>) => string[]>> = {
  GetAssetAdministrationShellById: (p) => [`id:${p.aasId}`],
  GetAssetInformation: (p) => [`id:${p.aasId}`],
  GetAllSubmodelReferences: (p) => [`id:${p.aasId}`],
  GetAllAssetLinksById: (p) => [`id:${p.aasId}`],
  GetConceptDescriptionById: (p) => [`id:${p.cdId}`],
  GetSubmodelById: scopedSubmodel,
  GetAllSubmodelElements: scopedSubmodel,
  GetSubmodelElementByPath: scopedSubmodel,
  GetAllAssetAdministrationShells: () => ["kind:shell"],
  GetAllAssetAdministrationShellIdsByAssetLink: () => ["kind:shell"],
  GetAllSubmodels: () => ["kind:submodel"],
  GetAllConceptDescriptions: () => ["kind:concept-description"],
};

/** Below a shell, the answer also depends on the shell (it must reference the submodel). */
function scopedSubmodel(params: Record<string, unknown>): string[] {
  return typeof params.aasId === "string"
    ? [`id:${params.submodelId}`, `id:${params.aasId}`]
    : [`id:${params.submodelId}`];
}

const KIND_TAGS = ["kind:shell", "kind:submodel", "kind:concept-description"];

/** Longest a write's answer waits for its own event (it normally arrives before the reply: ADR 0018). */
export const WRITE_EVENT_WAIT_MS = 500;
/** Three missed heartbeats (the outbox keeper sends one a second). */
export const STREAM_SILENCE_MS = 3_000;

/**
 * Bytes accounted per cached answer besides its text and key: the Entry and Reply objects, the tags
 * array and the entry's slot in the `entries` map (V8 ordered hash tables keep ~2 slots per entry).
 * Measured with `node --expose-gc` in read-cache-budget.test.ts: ~550 bytes of heap per tiny answer
 * in all (key ~150 characters, one tag), against ~900 accounted; rounded up on purpose.
 */
export const ENTRY_OVERHEAD_BYTES = 320;
/**
 * Bytes accounted per tag an answer carries, besides the tag's text: its slot in the tag's key set
 * and, when it is the tag's only entry, the set itself and the tag's slot in the index.
 */
export const TAG_OVERHEAD_BYTES = 256;

interface Entry {
  reply: Reply<unknown>;
  tags: string[];
  bytes: number;
  expiresAt: number;
}

/**
 * A gateway's read cache in front of the model-store (docs/adr/0014). Only answers the gateway
 * forwards as text (ExecuteOptions.rawValue) are kept, so a hit costs no model-store round trip.
 *
 * Staying correct:
 * - every change event invalidates the identifiable it names and the lists of its kind;
 * - a write sent through this client invalidates what it names as soon as it is answered (a client
 *   reading from this gateway right after its own write never sees the old value), and everything
 *   when it names nothing;
 * - an answer is only stored if nothing it depends on was invalidated while it was on its way
 *   (per-tag generations), so a read overtaken by a write cannot put the old value back;
 * - a gap in the events' sequence numbers (a heartbeat ahead of the last event, a reconnect) clears
 *   everything; until the subscription stands nothing is cached; `maxAgeMs` bounds the age of any
 *   answer in any case.
 * - across gateways: a write is answered only once its event (the reply's `seq`) has reached this
 *   gateway, so the event has been routed to every other gateway as well; and a hit is served only
 *   after the bus's barrier, which hands over every event routed here before the read arrived. A
 *   client that writes through one gateway and then reads through another sees its write.
 * When the events stall (a replica died between commit and publish, until the gap is filled from the event log), consistency falls back to
 * reading the store, not to waiting: a write whose event does not come within WRITE_EVENT_WAIT_MS
 * puts the cache into "lagging" (no hits; writes no longer wait) until the stream has passed that
 * write; and a stream that once sent heartbeats and then says nothing for `streamSilenceMs` does
 * the same until it speaks again. Only the first write after a stall waits the bound.
 */
export async function createCachingStoreClient(
  inner: StoreClient,
  options: ReadCacheOptions,
): Promise<CachingStoreClient> {
  const entries = new Map<string, Entry>();
  /** The keys of the entries carrying a tag; a tag whose last entry goes is dropped. */
  const byTag = new Map<string, Set<string>>();
  /**
   * Invalidations counted per tag, only while some read depending on the tag is on its way to the
   * store (`readers`): a read compares its tags' generations before and after, nothing else needs
   * them. So this map holds at most (reads in flight × their tags) rows and empties when idle.
   */
  const watched = new Map<string, { readers: number; generation: number }>();
  const watch = (tag: string) => {
    let row = watched.get(tag);
    if (!row) watched.set(tag, (row = { readers: 0, generation: 0 }));
    row.readers++;
    return row;
  };
  const unwatch = (tag: string) => {
    const row = watched.get(tag);
    if (row && --row.readers === 0) watched.delete(tag);
  };
  let epoch = 0;
  let bytes = 0;
  let hits = 0;
  let misses = 0;
  let enabled = false;
  let lastSeq: number | undefined;
  let closed = false;
  /** While set, the stream is behind this gateway's writes: bypass until lastSeq reaches it. */
  let behindUntilSeq: number | undefined;
  let heartbeatsSeen = false;
  let lastHeard = Date.now();
  const silenceMs = options.streamSilenceMs ?? STREAM_SILENCE_MS;
  const lagging = () => {
    if (behindUntilSeq !== undefined && lastSeq !== undefined && lastSeq >= behindUntilSeq) behindUntilSeq = undefined;
    return behindUntilSeq !== undefined || (heartbeatsSeen && Date.now() - lastHeard > silenceMs);
  };
  /** Writes waiting for their event to arrive here. */
  const waiters = new Set<{ seq: number; done: () => void }>();
  const wakeWaiters = (all = false) => {
    for (const waiter of waiters) if (all || (lastSeq !== undefined && waiter.seq <= lastSeq)) waiter.done();
  };
  /** Resolves when the event stream has passed `seq`, the stream is down, or after WRITE_EVENT_WAIT_MS. */
  const reached = (seq: number): Promise<void> =>
    new Promise((resolve) => {
      if (!enabled || (lastSeq !== undefined && lastSeq >= seq)) return resolve();
      if (lagging()) {
        behindUntilSeq = Math.max(behindUntilSeq ?? 0, seq);
        return resolve();
      }
      const waiter = {
        seq,
        done() {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        if (!(lastSeq !== undefined && lastSeq >= seq)) {
          behindUntilSeq = Math.max(behindUntilSeq ?? 0, seq);
          options.log?.(
            `read cache bypassed: the event of write ${seq} did not arrive within ${WRITE_EVENT_WAIT_MS} ms`,
          );
        }
        waiter.done();
      }, WRITE_EVENT_WAIT_MS);
      waiters.add(waiter);
    });

  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.bytes;
    for (const tag of entry.tags) {
      const keys = byTag.get(tag);
      if (keys?.delete(key) && keys.size === 0) byTag.delete(tag);
    }
  };
  const invalidate = (tag: string) => {
    const row = watched.get(tag);
    if (row) row.generation++;
    const keys = byTag.get(tag);
    if (keys) for (const key of [...keys]) remove(key);
  };
  const clear = (reason?: string) => {
    epoch++;
    entries.clear();
    byTag.clear();
    bytes = 0;
    if (reason) options.log?.(`read cache cleared: ${reason}`);
  };

  const onEvent = (event: ChangeEvent) => {
    if (lastSeq !== undefined && event.seq > lastSeq + 1)
      clear(`events ${lastSeq + 1}–${event.seq - 1} were not received`);
    if (lastSeq === undefined || event.seq > lastSeq) lastSeq = event.seq;
    lastHeard = Date.now();
    const [entity] = event.kind.split(".");
    if (entity !== "operation") {
      invalidate(`id:${event.id}`);
      invalidate(`kind:${entity === "element" ? "submodel" : entity}`);
    }
    if (waiters.size > 0) wakeWaiters();
  };
  const subscription: EventSubscription = await options.bus.subscribe({
    onEvent,
    // A later event came before earlier ones (two model-store replicas): what it changed must not
    // be served from here, and nothing else either until the stream has caught up with it.
    onEventHeld(event) {
      const [entity] = event.kind.split(".");
      if (entity !== "operation") {
        invalidate(`id:${event.id}`);
        invalidate(`kind:${entity === "element" ? "submodel" : entity}`);
      }
      behindUntilSeq = Math.max(behindUntilSeq ?? 0, event.seq);
    },
    onHeartbeat(heartbeat) {
      if (lastSeq !== undefined && heartbeat.seq > lastSeq)
        clear(`the store is at event ${heartbeat.seq}, the last one received was ${lastSeq}`);
      if (lastSeq === undefined || heartbeat.seq > lastSeq) lastSeq = heartbeat.seq;
      heartbeatsSeen = true;
      lastHeard = Date.now();
      if (waiters.size > 0) wakeWaiters();
    },
    // Without events nothing tells the cache what changed: it answers nothing until they flow again.
    onDisconnect() {
      enabled = false;
      clear("the event subscription is down");
      wakeWaiters(true);
    },
    onReconnect() {
      clear("reconnected; events may have been missed");
      enabled = !closed && options.maxAgeMs > 0;
    },
    // Redis lost the store's data: what is held, and the position, belong to data that is gone. The
    // new sequence starts low again, so the position goes too (kept, it would answer every write at
    // once, as if its event had arrived: read-your-writes across gateways would break).
    onStoreReplaced() {
      clear("the store's data in Redis was replaced (a new store incarnation)");
      lastSeq = undefined;
      behindUntilSeq = undefined;
      wakeWaiters(true);
    },
  });
  enabled = options.maxAgeMs > 0;

  function store(key: string, reply: Reply<unknown>, tags: string[]): void {
    const text =
      reply.ok && isRawJson(reply.value)
        ? reply.value.rawJson
        : reply.ok && isRawItems(reply.value)
          ? reply.value.items.rawJson
          : undefined;
    if (text === undefined) return;
    let size = (text.length + key.length) * 2 + ENTRY_OVERHEAD_BYTES;
    for (const tag of tags) size += tag.length * 2 + TAG_OVERHEAD_BYTES;
    if (size > options.maxBytes / 4) return; // one answer may not push out most of the others
    remove(key);
    entries.set(key, { reply, tags, bytes: size, expiresAt: Date.now() + options.maxAgeMs });
    bytes += size;
    for (const tag of tags) {
      let keys = byTag.get(tag);
      if (!keys) byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    // Least recently used first: a hit moves its entry to the end.
    for (const oldest of entries.keys()) {
      if (bytes <= options.maxBytes) break;
      remove(oldest);
    }
  }

  /** A write's reply, handed on once its event has reached this gateway (see above). */
  const answerWrite = <R extends Reply<unknown>>(command: Command, reply: R): R | Promise<R> => {
    invalidateWrite(command);
    // Usually the event came first (it leaves with its commit, ADR 0018): no waiting then.
    if (!reply.ok || reply.seq === undefined || !enabled || (lastSeq !== undefined && lastSeq >= reply.seq))
      return reply;
    return reached(reply.seq).then(() => reply);
  };

  function execute<T extends CommandType>(
    command: Command<T>,
    executeOptions?: ExecuteOptions,
  ): Promise<Reply<CommandResult<T>>> {
    const tagsOf = TAGS_OF_READ[command.type];
    if (!tagsOf || !executeOptions?.rawValue) {
      const sent = inner.execute(command, executeOptions);
      return WRITE_COMMANDS.has(command.type) ? sent.then((reply) => answerWrite(command, reply)) : sent;
    }
    return executeRead(command, executeOptions, tagsOf);
  }

  async function executeRead<T extends CommandType>(
    command: Command<T>,
    executeOptions: ExecuteOptions,
    tagsOf: (params: Record<string, unknown>) => string[],
  ): Promise<Reply<CommandResult<T>>> {
    if (!enabled || lagging()) return await inner.execute(command, executeOptions);
    // With access rules the answer depends on who asks (a list filtered, a submodel in part): one
    // caller's answer is never served to another principal.
    const principal =
      command.principal === undefined
        ? ""
        : `${command.principal.kind}\u0000${command.principal.name ?? ""}\u0000${command.principal.roles.join("\u0000")}`;
    const key = `${command.type}\u0000${executeOptions.rawValue}\u0000${principal}\u0000${JSON.stringify(command.params)}`;
    if (entries.has(key) && options.bus.barrier) await options.bus.barrier();
    const cached = entries.get(key);
    // Rechecked after the barrier: the subscription or the stream may have failed meanwhile.
    if (enabled && cached && cached.expiresAt > Date.now() && !lagging()) {
      hits++;
      entries.delete(key);
      entries.set(key, cached);
      return cached.reply as Reply<CommandResult<T>>;
    }
    misses++;
    const tags = tagsOf(command.params as Record<string, unknown>);
    const seenEpoch = epoch;
    const rows = tags.map(watch);
    const seen = rows.map((row) => row.generation);
    let reply: Reply<CommandResult<T>>;
    try {
      reply = await inner.execute(command, executeOptions);
    } finally {
      for (const tag of tags) unwatch(tag);
    }
    // The rows were held (readers > 0) from the first look until now, so every invalidation of the
    // tags in between counted on them.
    const unchanged = epoch === seenEpoch && rows.every((row, i) => row.generation === seen[i]);
    if (enabled && unchanged && reply.ok) store(key, reply, tags);
    return reply;
  }

  /** Answered (or failed: it may have been applied anyway): what it names is stale now. */
  function invalidateWrite(command: Command): void {
    const params = command.params as Record<string, unknown>;
    const ids = [params.aasId, params.submodelId, params.cdId].filter((id): id is string => typeof id === "string");
    if (ids.length === 0) return clear();
    for (const id of ids) invalidate(`id:${id}`);
    for (const tag of KIND_TAGS) invalidate(tag);
  }

  return {
    execute,
    stats: () => ({
      hits,
      misses,
      entries: entries.size,
      bytes,
      tags: byTag.size,
      generations: watched.size,
      enabled,
      lagging: lagging(),
    }),
    async close() {
      closed = true;
      enabled = false;
      clear();
      wakeWaiters(true);
      await subscription.unsubscribe().catch(() => undefined);
      await inner.close();
    },
  };
}
