import type { Commit, IdentifiableKind, Repository, RepositoryPage, StoredIdentifiable } from "@twinport/shared";
import { CommandError, identifiableCursor, ordinalOfCursor } from "@twinport/shared";
import type { Redis } from "ioredis";
import {
  applyPendingOf,
  applyPendingUpTo,
  deliverableSeq,
  eventSeqs,
  runClusterCommits,
  settledSubmodelRecord,
} from "./cluster-commit.ts";
import { clearClusterStore } from "./cluster-keys.ts";
import { createCommitQueue, isLargeCommit } from "./commit-queue.ts";
import { CommitEncodingError, runCommits } from "./commit-script.ts";
import { countChildren, getElements, getSubtree, listChildren } from "./element-reads.ts";
import { commitCall, redisIdempotency } from "./idempotency-redis.ts";
import { redisOperationHandles } from "./operation-handles-redis.ts";
import { outboxBounds, readOutboxEvents } from "./outbox-events.ts";
import { closeRedis, createClusterClient, createRedisClient, firstConnection } from "./redis-client.ts";
import { redisCall } from "./redis-errors.ts";
import { IDENTIFIABLE_KINDS, type RedisLayout, redisLayout, unpackIdentifiable } from "./redis-layout.ts";
import { adoptIncarnation, type IncarnationState, incarnationState, isStoreLost } from "./store-incarnation.ts";
import { ensureTermIndex } from "./term-index-build.ts";
import { listByTerms } from "./term-reads.ts";
import { waitForRedis } from "./wait-for-redis.ts";

export interface RedisRepositoryOptions {
  url: string;
  /** Key prefix and hash tag of the whole store: keys look like `{tp}:…`. Default "tp". */
  keyPrefix?: string;
  /** Default 2000 ms: past it a command fails with RepositoryUnavailableError. */
  commandTimeoutMs?: number;
  /**
   * A Redis Cluster instead of the one Redis at `url` (docs/adr/0040): some of its nodes as
   * `redis://host:port`. Each submodel's elements then get a slot of their own.
   */
  cluster?: { nodes: readonly string[] };
  /**
   * Told how the filter index build of a store from before the index (docs/adr/0035) went: built
   * (how many identifiables, how long), or failed and retried in `retryInMs`. Without it a failing
   * build retried silently while every filtered list kept scanning.
   */
  onTermIndexBuild?: (report: TermIndexBuildReport) => void;
  /**
   * Told after every commit script call (for the process metrics): how many commits it carried, how
   * long it took from sending to the answer, and whether it failed (an error, a timeout, no Redis).
   */
  onCommitCall?: (commits: number, seconds: number, failed: boolean) => void;
  /**
   * Given, opening waits until Redis answers, without a limit, telling this each reason it does
   * not (once per reason, see wait-for-redis.ts): for a process whose start needs Redis (seeding the
   * model, the filter index build). Absent, opening waits for the first attempt only, and a store
   * opened while Redis is down answers "unavailable" until it is back.
   */
  waitForRedis?: (problem: string) => void;
  /**
   * Told when the commit script refused a call because Redis no longer holds the store incarnation
   * this repository opened (store-incarnation.ts): Redis lost the store's data. The refused commits
   * fail as unavailable (503) and wrote nothing; what to do about it is the process's (it restarts).
   */
  onStoreLost?: () => void;
}

export type TermIndexBuildReport =
  | { state: "built"; indexed: number; ms: number }
  | { state: "failed"; error: unknown; retryInMs: number };

/** The Repository port on Redis; see redis-layout.ts for the keys. */
export interface RedisRepository extends Repository {
  /** The fail-fast connection (for the outbox keeper and leases; do not issue blocking commands on it). */
  readonly redis: Redis;
  readonly layout: RedisLayout;
  /** The stream every commit appends its event to. */
  readonly outboxKey: string;
  /** A key in this store's keyspace and hash tag, e.g. for a lease: `{tp}:<name>`. */
  key(name: string): string;
  /** Settles once the filter index is complete (built at open when the store had none, ADR 0035). */
  termIndexReady(): Promise<void>;
  /** The store incarnation this repository writes to (store-incarnation.ts); undefined until Redis first answered. */
  incarnation(): string | undefined;
  /** Whether Redis still holds it (throws RepositoryUnavailableError when Redis does not answer). */
  incarnationState(): Promise<IncarnationState>;
  /**
   * Adopt what Redis holds now, or a new incarnation: only for a process that has served nothing
   * yet (a Redis wiped while the model files load), never to write on after data was lost.
   */
  readoptIncarnation(): Promise<void>;
}

/** How long to wait before building the filter index again after Redis failed meanwhile. */
const TERM_INDEX_RETRY_MS = 2000;

export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
/** How long a large commit (see isLargeCommit) may take before it counts as "Redis unavailable". */
export const BULK_COMMAND_TIMEOUT_MS = 120_000;

/**
 * Connect to Redis (waiting for the first connection attempt only, unless `waitForRedis` is given:
 * when Redis is down the store still starts, every call throws RepositoryUnavailableError, and it
 * reconnects in the background).
 */
export async function createRedisRepository(options: RedisRepositoryOptions): Promise<RedisRepository> {
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const cluster = options.cluster;
  const layout = redisLayout(options.keyPrefix ?? "tp", { cluster: cluster !== undefined });
  const connect = (settings: { commandTimeoutMs: number; connectionName: string; autoPipelining?: boolean }) =>
    cluster ? createClusterClient(cluster.nodes, settings) : createRedisClient(options.url, settings);
  const redis = connect({
    commandTimeoutMs,
    connectionName: `twinport-repository-${layout.prefix}`,
    autoPipelining: true,
  });
  if (options.waitForRedis) await waitForRedis(redis, options.waitForRedis);
  else await firstConnection(redis, commandTimeoutMs);
  // Where the store's data begins for this process: an empty Redis gets a new incarnation. A store
  // opened while Redis is down (without waitForRedis) adopts it before its first commit instead.
  let incarnation: string | undefined;
  const ensureIncarnation = async () => (incarnation ??= await adoptIncarnation(redis, layout.incarnation));
  if (redis.status === "ready") await ensureIncarnation().catch(() => undefined);

  // A large commit (a model load, a PUT of a big list or of one huge identifiable: over
  // LARGE_COMMIT_OPS ops or LARGE_COMMIT_BYTES of text, always sent alone) may hold Redis for
  // seconds in one script; on the fail-fast connection it would time out while Redis goes on
  // applying it (a 504 for a write that was committed). It gets its own connection with a long
  // timeout instead; so does a group of small commits that adds up to as much text.
  let bulk: Promise<Redis> | undefined;
  const bulkClient = () =>
    (bulk ??= (async () => {
      const client = connect({
        commandTimeoutMs: Math.max(commandTimeoutMs, BULK_COMMAND_TIMEOUT_MS),
        connectionName: `twinport-repository-${layout.prefix}-bulk`,
      });
      await firstConnection(client, commandTimeoutMs);
      return client;
    })());
  const call = async (batch: Commit[]) => {
    const large = isLargeCommit(batch);
    const client = large ? await bulkClient() : redis;
    if (!cluster)
      return await runCommits(client, layout, batch, await ensureIncarnation()).catch((error: unknown) => {
        if (isStoreLost(error)) options.onStoreLost?.();
        throw error;
      });
    // A round's locks outlive the slowest call it may make; others wait for them up to a command timeout.
    const lockMs = 3 * (large ? Math.max(commandTimeoutMs, BULK_COMMAND_TIMEOUT_MS) : commandTimeoutMs);
    return runClusterCommits(client, layout, batch, { lockMs, waitMs: lockMs + commandTimeoutMs });
  };
  const onCommitCall = options.onCommitCall;
  const commits = createCommitQueue(
    onCommitCall
      ? async (batch) => {
          const started = performance.now();
          try {
            const results = await call(batch);
            onCommitCall(batch.length, (performance.now() - started) / 1000, false);
            return results;
          } catch (error) {
            // A commit that could not even be encoded never reached Redis: not a call.
            if (!(error instanceof CommitEncodingError))
              onCommitCall(batch.length, (performance.now() - started) / 1000, true);
            throw error;
          }
        }
      : call,
    (error) => error instanceof CommitEncodingError,
  );

  // The filter index (docs/adr/0035): a store from before it gets it built now, in batches. Until
  // it is complete, filtered lists read every identifiable (what they did before: slower, never
  // wrong, since every candidate is checked); if Redis fails meanwhile, the build is retried.
  let indexComplete = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let indexReady!: () => void;
  const termIndexReady = new Promise<void>((resolve) => {
    indexReady = resolve;
  });
  const buildTermIndex = async (): Promise<void> => {
    const started = performance.now();
    try {
      const indexed = await ensureTermIndex(redis, layout);
      indexComplete = true;
      indexReady();
      // A store that had its index already says nothing: only a build is news.
      if (indexed > 0)
        options.onTermIndexBuild?.({ state: "built", indexed, ms: Math.round(performance.now() - started) });
    } catch (error) {
      if (closed) return;
      options.onTermIndexBuild?.({ state: "failed", error, retryInMs: TERM_INDEX_RETRY_MS });
      retry = setTimeout(() => void buildTermIndex(), TERM_INDEX_RETRY_MS).unref();
    }
  };
  await buildTermIndex();

  const kindKeys = (kind: IdentifiableKind) => {
    if (!IDENTIFIABLE_KINDS.includes(kind)) throw new TypeError(`Unknown identifiable kind '${String(kind)}'`);
    return layout.identifiable(kind);
  };

  // On a cluster, submodel records read are settled against rounds still pending on them, so a
  // record's revision never runs ahead of its elements (cluster-commit.ts applyPendingOf).
  const settleSubmodels = async (kind: IdentifiableKind, items: readonly StoredIdentifiable[]) => {
    if (!cluster || kind !== "submodel" || items.length === 0) return;
    await redisCall(
      applyPendingOf(
        redis,
        layout,
        items.map((item) => item.id),
      ),
    );
  };

  const repository: RedisRepository = {
    redis,
    layout,
    outboxKey: layout.outbox,
    key: layout.key,

    async getIdentifiable(kind, id) {
      const value = await redisCall(
        cluster && kind === "submodel"
          ? settledSubmodelRecord(redis, layout, kindKeys(kind).rec, id)
          : redis.hget(kindKeys(kind).rec, id),
      );
      return value === null ? undefined : { kind, id, ...unpackIdentifiable(value) };
    },

    async kindOf(id) {
      const kind = await redisCall(redis.hget(layout.kinds, id));
      return kind !== null && (IDENTIFIABLE_KINDS as readonly string[]).includes(kind)
        ? (kind as IdentifiableKind)
        : undefined;
    },

    async listIdentifiables(kind, page): Promise<RepositoryPage<StoredIdentifiable>> {
      const keys = kindKeys(kind);
      const limit = Math.max(page.limit, 0);
      if (limit === 0) return { items: [] };
      let start = "-inf";
      if (page.cursor !== undefined) {
        start = `(${ordinalOfCursor(kind, page.cursor)}`;
      }
      // limit + 1 tells whether another page follows, so the last page has no cursor.
      const flat = await redisCall(redis.zrangebyscore(keys.order, start, "+inf", "WITHSCORES", "LIMIT", 0, limit + 1));
      const ids: string[] = [];
      const ordinals: string[] = [];
      for (let i = 0; i < flat.length && ids.length < limit; i += 2) {
        ids.push(flat[i]);
        ordinals.push(flat[i + 1]);
      }
      const items: StoredIdentifiable[] = [];
      if (ids.length > 0) {
        const values = await redisCall(redis.hmget(keys.rec, ...ids));
        // Deleted since the first read: skipped, but the cursor still moves past it.
        ids.forEach((id, i) => values[i] !== null && items.push({ kind, id, ...unpackIdentifiable(values[i]!) }));
      }
      await settleSubmodels(kind, items);
      if (flat.length / 2 <= limit) return { items };
      return { items, cursor: identifiableCursor(kind, Number(ordinals[ordinals.length - 1])) };
    },

    async listIdentifiablesByTerms(kind, terms, page) {
      kindKeys(kind);
      if (!indexComplete || terms.length === 0) return await repository.listIdentifiables(kind, page);
      const found = await listByTerms(redis, layout, kind, terms, page);
      await settleSubmodels(kind, found.items);
      return found;
    },

    termIndexReady: () => termIndexReady,

    incarnation: () => incarnation,
    async incarnationState() {
      // Nothing written yet, so nothing can have been lost: adopt what is there now.
      if (incarnation === undefined) await ensureIncarnation();
      return await incarnationState(redis, layout.incarnation, incarnation!);
    },
    async readoptIncarnation() {
      incarnation = await adoptIncarnation(redis, layout.incarnation);
    },

    async countIdentifiables(kind) {
      return await redisCall(redis.zcard(kindKeys(kind).order));
    },

    async getElements(submodelId, paths) {
      return await getElements(redis, layout.submodel(submodelId), paths);
    },

    async listChildren(submodelId, parentPath, page) {
      return await listChildren(redis, submodelId, layout.submodel(submodelId), parentPath, page);
    },

    async countChildren(submodelId, parentPath) {
      return await countChildren(redis, layout.submodel(submodelId), parentPath);
    },

    async getSubtree(submodelId, path, maxDepth) {
      return await getSubtree(redis, layout.submodel(submodelId), path, maxDepth);
    },

    async commit(commit) {
      // Not redisCall: a commit that was sent but not answered has an unknown outcome (504, not 503).
      const [result] = await commitCall(redis, () => commits.submit([commit]));
      return result!;
    },

    async commitBatch(batch) {
      if (batch.length === 0) return [];
      return await commitCall(redis, () => commits.submit(batch));
    },

    async readEvents(after, limit) {
      if (!cluster) return await readOutboxEvents(redis, layout.outbox, after, limit);
      // Only up to the first pending seq: a later event's elements may not be written yet. A pending
      // round in the range is applied first (the reader helps; a node away leaves it for later).
      const seqs = await redisCall(eventSeqs(redis, layout));
      let upTo = seqs.deliverable;
      if (upTo < seqs.latest && upTo < after + limit) {
        const helped = await applyPendingUpTo(redis, layout, after + limit).catch(() => 0);
        if (helped > 0) upTo = await redisCall(deliverableSeq(redis, layout));
      }
      if (upTo <= after) return [];
      return await readOutboxEvents(redis, layout.outbox, after, Math.min(limit, upTo - after));
    },

    async eventLogBounds() {
      const bounds = await outboxBounds(redis, layout.outbox, layout.sequence);
      if (!cluster) return bounds;
      return { ...bounds, latest: await redisCall(deliverableSeq(redis, layout)) };
    },

    async currentSeq() {
      if (cluster) return await redisCall(deliverableSeq(redis, layout));
      return Number((await redisCall(redis.get(layout.sequence))) ?? 0);
    },

    ...redisOperationHandles(redis, layout),
    ...redisIdempotency(redis, layout),

    async clear() {
      // Everything but the sequence (revisions are never reused) and the outbox (the event log) with its keeper
      // state (events already committed must still be delivered).
      // The index version stays: an empty index is complete for an empty store.
      // The incarnation stays too: /reset empties the store, its data is not lost (store-incarnation.ts).
      const keep = new Set([
        layout.sequence,
        layout.outbox,
        layout.key("relay:lease"),
        layout.termIndexVersion,
        layout.incarnation,
      ]);
      if (cluster) return await redisCall(clearClusterStore(redis, layout, keep));
      let cursor = "0";
      do {
        const [next, found] = await redisCall(redis.scan(cursor, "MATCH", layout.pattern, "COUNT", 1000));
        cursor = next;
        const doomed = found.filter((k) => !keep.has(k));
        if (doomed.length > 0) await redisCall(redis.unlink(...doomed));
      } while (cursor !== "0");
    },

    async close() {
      closed = true;
      clearTimeout(retry);
      if (bulk) await closeRedis(await bulk);
      await closeRedis(redis);
    },
  };
  return repository;
}
