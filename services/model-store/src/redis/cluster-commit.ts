import { randomUUID } from "node:crypto";
import {
  batchIndexOf,
  type Commit,
  type CommitResult,
  indexTermsOfJson,
  RepositoryOutcomeUnknownError,
  RepositoryUnavailableError,
} from "@twinport/shared";
import type { Redis } from "ioredis";
import { CATALOG_SCRIPTS, type PendingRound, parsePending } from "./cluster-catalog-script.ts";
import { CONTENT_SCRIPTS } from "./cluster-content-script.ts";
import { splitRounds } from "./cluster-rounds.ts";
import { CommitEncodingError } from "./commit-script.ts";
import { idempotencyKey } from "./idempotency-redis.ts";
import { plainReason } from "./redis-errors.ts";
import { IDENTIFIABLE_KINDS, type RedisLayout } from "./redis-layout.ts";

/**
 * A batch of commits on a Redis Cluster (docs/adr/0040): the catalog slot orders, each submodel's
 * slot holds its elements, and no Lua script touches more than one slot. Per round (cluster-rounds.ts):
 *
 * 1. PREPARE on every submodel the round touches (in parallel, on the nodes holding them): take
 *    the submodel's lock, check the element preconditions, stash the ops of the commits that pass.
 * 2. COMMIT on the catalog: check the catalog preconditions, and for each commit whose checks all
 *    held take the next seq, append its event to the outbox, write its catalog records, and note
 *    the round as pending. This is the commit point: a seq is taken only by a commit that will be
 *    applied, so the sequence stays gap-free.
 * 3. APPLY on every submodel: write the stashed ops with revision = seq, drop the lock.
 * 4. Forget the pending note.
 *
 * The locks keep the checked elements unchanged from 1 to 3. A committer that dies leaves either
 * locks without a pending note (before 2: whoever meets such a lock after its deadline fences the
 * token, so a late step 2 is refused, and drops the lock) or a pending note (after 2: the outbox
 * keeper, or anyone meeting the lock, applies it from the stash: roll forward, never back).
 * Events: the log (GetEvents) and the heartbeat stop before the first pending seq, so subscribers
 * never read an event whose elements are not written yet.
 */
export interface ClusterCommitOptions {
  /** How long a round may hold its locks before another committer resolves them. */
  lockMs: number;
  /** How long a round waits for submodels locked by others before it answers "unavailable". */
  waitMs: number;
}

export interface EncodedRound {
  token: string;
  /** Per submodel: PREPARE's ARGV after token and deadline. */
  content: Map<string, (string | number)[]>;
  catalogKeys: string[];
  catalogArgs: (string | number)[];
  /** Per commit of the round: its element precondition count (PREPARE results follow this order). */
  commits: number;
}

const CONTENT_KEYS = (layout: RedisLayout, submodelId: string) => {
  const k = layout.submodel(submodelId);
  return [k.el, k.order, k.ctr, k.prep, k.prepOps];
};

function catalogBaseKeys(layout: RedisLayout): string[] {
  const keys = [layout.sequence, layout.kinds, layout.ordinal, layout.outbox];
  for (const kind of IDENTIFIABLE_KINDS) {
    const k = layout.identifiable(kind);
    keys.push(k.rec, k.order);
  }
  for (const kind of IDENTIFIABLE_KINDS) {
    const t = layout.termIndex(kind);
    keys.push(t.terms, t.index);
  }
  keys.push(layout.key("pending"), layout.key("fences"));
  return keys;
}

function kindOf(value: string): string {
  if (!(IDENTIFIABLE_KINDS as readonly string[]).includes(value))
    throw new TypeError(`Unknown identifiable kind '${String(value)}'`);
  return value;
}

/** Encodes one round; `seqOf(j)` is the seq (as text, or "failed") of commit j of an earlier round. */
export function encodeRound(
  layout: RedisLayout,
  commits: readonly Commit[],
  indexes: readonly number[],
  seqOf: (j: number) => string,
): EncodedRound {
  const token = randomUUID();
  const catalogKeys = catalogBaseKeys(layout);
  const idem = new Map<string, number>();
  const idemIndex = (key: string) => {
    let index = idem.get(key);
    if (index === undefined) {
      catalogKeys.push(idempotencyKey(layout, key));
      index = catalogKeys.length;
      idem.set(key, index);
    }
    return index;
  };
  const perSubmodel = new Map<string, { count: number; args: (string | number)[] }>();
  const submodel = (id: string) => {
    let s = perSubmodel.get(id);
    if (!s) perSubmodel.set(id, (s = { count: 0, args: [] }));
    return s;
  };
  const catalogArgs: (string | number)[] = [];
  indexes.forEach((at, inRound) => {
    const commit = commits[at]!;
    /** The in-round position (1-based) of the commit a batch revision names, when it is in this round. */
    const positionInRound = (value: number | null): number | undefined => {
      const j = batchIndexOf(value);
      return j !== undefined && j >= indexes[0]! && j < at ? j - indexes[0]! + 1 : undefined;
    };
    const revision = (value: number | null): string => {
      if (value === null) return "";
      const j = batchIndexOf(value);
      if (j === undefined) return String(value);
      if (j >= at)
        throw new RangeError(
          `Commit ${at} of a batch names the revision of commit ${j}, which does not come before it`,
        );
      const position = positionInRound(value);
      return position === undefined ? seqOf(j) : `@${position}`;
    };
    // element preconditions and ops, per submodel
    const content = new Map<string, { pre: (string | number)[]; ops: (string | number)[] }>();
    const part = (id: string) => {
      let p = content.get(id);
      if (!p) content.set(id, (p = { pre: [], ops: [] }));
      return p;
    };
    const catalogPre: (string | number)[] = [];
    commit.preconditions.forEach((p, i) => {
      const n = i + 1;
      if (p.on === "identifiable") catalogPre.push("i", n, kindOf(p.kind), p.id, revision(p.revision));
      else if (p.on === "id-free") catalogPre.push("f", n, p.id, "", "");
      else if (p.on === "idempotency-key-free") catalogPre.push("k", n, idemIndex(p.key), "", "");
      else if (positionInRound(p.revision) !== undefined) {
        // the revision of an earlier commit of this round (see cluster-rounds.ts): the element must
        // exist (with its orderKey) now, and that commit must take a seq
        part(p.submodelId).pre.push("d", n, p.path, p.orderKey ?? "");
        catalogPre.push("d", n, positionInRound(p.revision)!, "", "");
      } else if (p.orderKey !== undefined && p.revision !== null)
        part(p.submodelId).pre.push("o", n, p.path, `${revision(p.revision)}:${p.orderKey}`);
      else part(p.submodelId).pre.push("e", n, p.path, revision(p.revision));
    });
    const catalogOps: (string | number)[] = [];
    for (const op of commit.ops) {
      switch (op.op) {
        case "put-identifiable":
          catalogOps.push("pi", kindOf(op.kind), op.id, op.json, indexTermsOfJson(op.kind, op.json).join("\0"));
          break;
        case "delete-identifiable":
          catalogOps.push("di", kindOf(op.kind), op.id);
          if (op.kind === "submodel") part(op.id).ops.push("dx");
          break;
        case "touch-identifiable":
          catalogOps.push("ti", kindOf(op.kind), op.id);
          break;
        case "put-element":
          if (op.insert) {
            const index = op.insert.index;
            if (index !== undefined && !(Number.isSafeInteger(index) && index >= 0))
              throw new RangeError(`List index must be a non-negative integer, got ${index}`);
            part(op.submodelId).ops.push(
              "ie",
              op.path,
              op.json,
              op.insert.parentPath,
              op.insert.segment.startsWith("[") ? "1" : "",
            );
          } else part(op.submodelId).ops.push("pe", op.path, op.json);
          break;
        case "delete-element":
          part(op.submodelId).ops.push("de", op.path);
          break;
        case "touch-element":
          part(op.submodelId).ops.push("te", op.path);
          break;
      }
    }
    const claim = commit.idempotency;
    if (claim)
      catalogOps.push("ik", idemIndex(claim.key), claim.fingerprint, Math.max(1, Math.ceil(claim.ttlMs)), Date.now());
    for (const [id, p] of content) {
      const s = submodel(id);
      s.count++;
      s.args.push(inRound + 1, p.pre.length / 4, p.ops.length, ...p.pre);
      for (const v of p.ops) s.args.push(v);
    }
    // the element check's result is filled in after PREPARE (placeholder 0)
    catalogArgs.push(0, JSON.stringify(commit.event), catalogOps.length, catalogPre.length / 5, ...catalogPre);
    for (const v of catalogOps) catalogArgs.push(v);
  });
  const contentArgs = new Map<string, (string | number)[]>();
  for (const [id, s] of perSubmodel) contentArgs.set(id, ([s.count] as (string | number)[]).concat(s.args));
  return { token, content: contentArgs, catalogKeys, catalogArgs, commits: indexes.length };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the batch in rounds (see above); one result per commit, in order. */
export async function runClusterCommits(
  redis: Redis,
  layout: RedisLayout,
  commits: readonly Commit[],
  options: ClusterCommitOptions,
): Promise<CommitResult[]> {
  const results: CommitResult[] = new Array(commits.length);
  const seqOf = (j: number) => {
    const r = results[j];
    return r?.ok ? String(r.seq) : "failed";
  };
  const rounds = splitRounds(commits);
  // Every round is encoded (with stand-in seqs) before the first is sent: an encoding failure must
  // come before anything is committed (the commit queue then resends each caller's commits alone).
  // (One round, the usual case, is encoded once.)
  const encode = (round: number[], seqs: (j: number) => string) => {
    try {
      return encodeRound(layout, commits, round, seqs);
    } catch (error) {
      throw new CommitEncodingError((error as Error).message, { cause: error });
    }
  };
  if (rounds.length > 1) for (const round of rounds) encode(round, () => "0");
  let committed = false;
  for (const round of rounds) {
    const encoded = encode(round, seqOf);
    let outcomes: number[];
    try {
      outcomes = await runRound(redis, layout, encoded, options);
    } catch (error) {
      // An earlier round of the batch is committed: "unavailable" (nothing done) would be a lie.
      if (committed && !(error instanceof RepositoryOutcomeUnknownError))
        throw new RepositoryOutcomeUnknownError(
          `Redis failed in the middle of a batch, after some of its commits: ${(error as Error).message}`,
          { cause: error },
        );
      throw error;
    }
    if (outcomes.some((o) => o > 0)) committed = true;
    round.forEach((at, i) => {
      const value = outcomes[i]!;
      results[at] =
        value > 0
          ? { ok: true, seq: value, event: { ...commits[at]!.event, seq: value, revision: value } }
          : { ok: false, failed: -value - 1 };
    });
  }
  return results;
}

async function runRound(
  redis: Redis,
  layout: RedisLayout,
  round: EncodedRound,
  options: ClusterCommitOptions,
): Promise<number[]> {
  const failedAt = await prepareRound(redis, layout, round, options);
  const outcomes = await commitRound(redis, layout, round, failedAt);
  await applyRound(redis, layout, round, outcomes);
  return outcomes;
}

/**
 * Step 1: locks and checks every submodel of the round; returns per commit its failed element
 * precondition (1-based, 0 = none). Throws RepositoryUnavailableError (nothing committed) when a
 * node does not answer or a lock stays taken. (Steps are exported for the fault tests.)
 */
export async function prepareRound(
  redis: Redis,
  layout: RedisLayout,
  round: EncodedRound,
  options: ClusterCommitOptions,
): Promise<number[]> {
  const { token } = round;
  const submodels = [...round.content.keys()];
  // 1. PREPARE every submodel; when one is locked by another round, give back what we took and
  // try again (a fixed order of locking would avoid the give-back, but costs a round trip per node)
  const failedAt = new Array<number>(round.commits).fill(0);
  const waitUntil = Date.now() + options.waitMs;
  for (let attempt = 0; submodels.length > 0; attempt++) {
    const deadline = Date.now() + options.lockMs;
    const replies = await Promise.allSettled(
      submodels.map((id) =>
        CONTENT_SCRIPTS.prepare.run(redis, CONTENT_KEYS(layout, id), [token, deadline, ...round.content.get(id)!]),
      ),
    );
    const busy: { id: string; token: string; deadline: number }[] = [];
    let error: unknown;
    replies.forEach((reply, i) => {
      if (reply.status === "rejected") error ??= reply.reason;
      else {
        const value = reply.value as (number | string)[];
        if (value[0] === "busy") busy.push({ id: submodels[i]!, token: String(value[1]), deadline: Number(value[2]) });
      }
    });
    if (error === undefined && busy.length === 0) {
      const perSubmodel = new Map(
        submodels.map((id, i) => [id, (replies[i] as PromiseFulfilledResult<number[]>).value]),
      );
      for (const [id, args] of round.content) {
        // walk the args to learn which commits (by index in the round) each result belongs to
        const values = perSubmodel.get(id)!;
        let a = 1;
        for (let c = 0; c < Number(args[0]); c++) {
          const index = Number(args[a]) - 1;
          const nPre = Number(args[a + 1]);
          const nOps = Number(args[a + 2]);
          a += 3 + nPre * 4 + nOps;
          const failed = Number(values[c]);
          if (failed > 0 && (failedAt[index] === 0 || failed < failedAt[index]!)) failedAt[index] = failed;
        }
      }
      break;
    }
    await releaseAll(redis, layout, token, submodels);
    if (error !== undefined) throw unavailable(error, "a submodel's node did not take the commit's lock");
    const now = Date.now();
    for (const b of busy) if (b.deadline < now) await resolveStale(redis, layout, b.id, b.token).catch(() => undefined);
    if (now > waitUntil)
      throw new RepositoryUnavailableError(
        `Redis is unavailable: submodel '${busy[0]!.id}' stayed locked by another commit for ${options.waitMs} ms`,
      );
    await sleep(Math.min(50, 1 + Math.random() * 2 ** Math.min(attempt, 5)));
  }
  return failedAt;
}

/** Step 2, the commit point: one result per commit of the round (its seq, or -i: precondition i failed). */
export async function commitRound(
  redis: Redis,
  layout: RedisLayout,
  round: EncodedRound,
  failedAt: readonly number[],
): Promise<number[]> {
  const { token } = round;
  const submodels = [...round.content.keys()];
  // 2. COMMIT on the catalog (the element checks' results go in)
  const args = [token, Date.now(), submodels.length > 0 ? JSON.stringify(submodels) : "", round.commits];
  let a = 0;
  for (let c = 0; c < round.commits; c++) {
    round.catalogArgs[a] = failedAt[c]!;
    const nOps = Number(round.catalogArgs[a + 2]);
    const nPre = Number(round.catalogArgs[a + 3]);
    a += 4 + nPre * 5 + nOps;
  }
  let outcomes: number[];
  try {
    outcomes = (await CATALOG_SCRIPTS.commit.run(redis, round.catalogKeys, args.concat(round.catalogArgs))) as number[];
  } catch (error) {
    if (submodels.length === 0) throw error;
    if (error instanceof Error && error.message.startsWith("FENCED")) {
      await releaseAll(redis, layout, token, submodels);
      throw new RepositoryUnavailableError(
        "Redis is unavailable: the commit took longer than its locks and was given up",
      );
    }
    if (
      error instanceof Error &&
      error.name === "ReplyError" &&
      !/^(CLUSTERDOWN|TRYAGAIN|LOADING|BUSY)/.test(error.message)
    ) {
      await releaseAll(redis, layout, token, submodels);
      throw error;
    }
    // No answer: settle it now if the catalog answers (committed → apply; not → fence and release).
    const settled = await settle(redis, layout, token).catch(() => undefined);
    if (settled === "fenced") {
      await releaseAll(redis, layout, token, submodels);
      throw unavailable(error, "the catalog did not take the commit");
    }
    throw new RepositoryOutcomeUnknownError(`Redis did not answer the commit: ${plainReason(error)}`, {
      cause: error,
    });
  }
  if (!Array.isArray(outcomes) || outcomes.length !== round.commits)
    throw new Error(`twinport commit: ${round.commits} commits sent, ${String(outcomes?.length)} results`);
  return outcomes;
}

/** Steps 3 and 4: the elements written with their seqs, the locks dropped, the pending note gone. */
export async function applyRound(
  redis: Redis,
  layout: RedisLayout,
  round: EncodedRound,
  outcomes: readonly number[],
): Promise<void> {
  const { token } = round;
  const submodels = [...round.content.keys()];
  if (submodels.length === 0) return;
  // 3. APPLY (or, when nothing took a seq, just release)
  if (!outcomes.some((o) => o > 0)) {
    await releaseAll(redis, layout, token, submodels);
    return;
  }
  const seqs = outcomes.map((o) => (o > 0 ? o : 0));
  const applied = await Promise.allSettled(
    submodels.map((id) => CONTENT_SCRIPTS.apply.run(redis, CONTENT_KEYS(layout, id), [token, seqs.length, ...seqs])),
  );
  const failed = applied.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
  if (failed)
    // Committed: the outbox keeper applies it from the stash once the node answers again.
    throw new RepositoryOutcomeUnknownError(
      `Redis did not apply the commit's elements yet (it is committed and will be applied): ${String(failed.reason?.message ?? failed.reason)}`,
      { cause: failed.reason },
    );
  // 4. Forget the pending note (the keeper would too); the events are deliverable from here on.
  await redis.hdel(layout.key("pending"), token).catch(() => undefined);
}

function unavailable(error: unknown, what: string): RepositoryUnavailableError {
  const reason = error instanceof Error ? error.message : String(error);
  return new RepositoryUnavailableError(`Redis is unavailable: ${what} (${reason}); nothing was committed`, {
    cause: error,
  });
}

async function releaseAll(redis: Redis, layout: RedisLayout, token: string, submodels: readonly string[]) {
  await Promise.allSettled(
    submodels.map((id) => CONTENT_SCRIPTS.release.run(redis, CONTENT_KEYS(layout, id), [token])),
  );
}

/** Applies a pending round to every submodel it names, then forgets it (idempotent). */
export async function applyPending(redis: Redis, layout: RedisLayout, round: PendingRound): Promise<void> {
  await Promise.all(
    round.submodels.map((id) =>
      CONTENT_SCRIPTS.apply.run(redis, CONTENT_KEYS(layout, id), [round.token, round.seqs.length, ...round.seqs]),
    ),
  );
  await redis.hdel(layout.key("pending"), round.token);
}

/**
 * Settles a round whose committer is gone or got no answer: rolled forward when it took seqs, else
 * fenced (its catalog step can no longer run). Returns which.
 */
async function settle(redis: Redis, layout: RedisLayout, token: string): Promise<"applied" | "fenced"> {
  const reply = (await CATALOG_SCRIPTS.resolve.run(
    redis,
    [layout.key("pending"), layout.key("fences")],
    [token, Date.now()],
  )) as string[];
  if (reply[0] === "pending") {
    await applyPending(redis, layout, parsePending(token, reply[1]!));
    return "applied";
  }
  return "fenced";
}

/** A lock past its deadline on `submodelId`: settle its round, and drop the lock if it was fenced. */
async function resolveStale(redis: Redis, layout: RedisLayout, submodelId: string, token: string): Promise<void> {
  if ((await settle(redis, layout, token)) === "fenced")
    await CONTENT_SCRIPTS.release.run(redis, CONTENT_KEYS(layout, submodelId), [token]);
}

/** Pending rounds older than `olderThanMs` (their committer died or lost a node): applied now. */
export async function recoverPending(redis: Redis, layout: RedisLayout, olderThanMs: number): Promise<number> {
  const all = (await redis.hgetall(layout.key("pending"))) as Record<string, string>;
  const now = Date.now();
  let recovered = 0;
  let failure: unknown;
  for (const [token, value] of Object.entries(all)) {
    const round = parsePending(token, value);
    if (now - round.time < olderThanMs) continue;
    try {
      await applyPending(redis, layout, round);
      recovered++;
    } catch (error) {
      failure ??= error; // a node away: the others are still applied; this one next time
    }
  }
  if (failure !== undefined) throw failure;
  return recovered;
}

/**
 * A reader of the event log helps: every pending round with a seq up to `seq` is applied now (APPLY
 * is idempotent, so finishing a round its committer is still finishing is harmless). Without it, an
 * event of another replica that overtook a round between its COMMIT and APPLY would leave a gap
 * the subscriber cannot fill from the log, and it would resync for nothing. Returns how many.
 */
export async function applyPendingUpTo(redis: Redis, layout: RedisLayout, seq: number): Promise<number> {
  return await applyPendingWhere(redis, layout, (round) => round.seqs.some((s) => s > 0 && s <= seq));
}

/** Applies the pending rounds `wanted` picks (of `pending`, or of the pending hash read now); returns how many. */
async function applyPendingWhere(
  redis: Redis,
  layout: RedisLayout,
  wanted: (round: PendingRound) => boolean,
  pending?: Record<string, string>,
): Promise<number> {
  const all = pending ?? ((await redis.hgetall(layout.key("pending"))) as Record<string, string>);
  let applied = 0;
  for (const [token, value] of Object.entries(all)) {
    const round = parsePending(token, value);
    if (!wanted(round)) continue;
    await applyPending(redis, layout, round);
    applied++;
  }
  return applied;
}

/**
 * A reader of submodel records helps too, so a record's revision never runs ahead of its elements.
 * A round's catalog step (2) bumps the submodel's record; its elements are written on their own node
 * only in step 3. A reader that took the record between the two would pair the new revision (the
 * ETag) with the old elements, and a client sending that ETag back in If-Match would overwrite a
 * write it never saw. So after reading records, every round still pending on one of them is applied
 * first (idempotent, like the event log's help). Reading the notes after the records is enough: a
 * round whose step 2 came before the record read is either applied already (its note goes only
 * after step 3) or still noted. Elements read afterwards are then at least as new as the record; a
 * later round may make them newer, the direction single Redis shows too (a stale ETag fails If-Match).
 * `pending` is the pending hash as read after the records. Returns how many rounds it applied.
 */
export async function applyPendingOf(
  redis: Redis,
  layout: RedisLayout,
  submodelIds: readonly string[],
  pending?: Record<string, string>,
): Promise<number> {
  return await applyPendingWhere(
    redis,
    layout,
    (round) => round.submodels.some((id) => submodelIds.includes(id)),
    pending,
  );
}

/** A submodel's record (HGET) and the pending notes read in one MULTI (one catalog round trip), settled as above. */
export async function settledSubmodelRecord(
  redis: Redis,
  layout: RedisLayout,
  recordKey: string,
  submodelId: string,
): Promise<string | null> {
  const replies = await redis.multi().hget(recordKey, submodelId).hgetall(layout.key("pending")).exec();
  const [recordReply, pendingReply] = replies ?? [];
  if (!recordReply || !pendingReply) throw new Error("MULTI of a submodel record was discarded");
  if (recordReply[0]) throw recordReply[0];
  if (pendingReply[0]) throw pendingReply[0];
  const pending = pendingReply[1] as Record<string, string>;
  if (Object.keys(pending).length > 0) await applyPendingOf(redis, layout, [submodelId], pending);
  return recordReply[1] as string | null;
}

/**
 * The seq up to which every event is deliverable: the store's seq, or just below the first seq
 * still pending (its elements may not be written yet). One MULTI: both keys are in the catalog slot.
 */
export async function deliverableSeq(redis: Redis, layout: RedisLayout): Promise<number> {
  return (await eventSeqs(redis, layout)).deliverable;
}

/** The store's seq (`latest`) and the deliverable one (see deliverableSeq). */
export async function eventSeqs(redis: Redis, layout: RedisLayout): Promise<{ latest: number; deliverable: number }> {
  const replies = await redis.multi().get(layout.sequence).hvals(layout.key("pending")).exec();
  const [seqReply, pendingReply] = replies ?? [];
  if (seqReply?.[0]) throw seqReply[0];
  if (pendingReply?.[0]) throw pendingReply[0];
  const latest = Number(seqReply?.[1] ?? 0);
  let deliverable = latest;
  for (const value of (pendingReply?.[1] ?? []) as string[])
    for (const s of parsePending("", value).seqs) if (s > 0 && s - 1 < deliverable) deliverable = s - 1;
  return { latest, deliverable };
}
