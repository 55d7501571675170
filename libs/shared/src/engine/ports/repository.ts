import type { ChangeEvent, ChangeEventDraft } from "../../contracts/index.ts";

/**
 * The Repository port: where the engine keeps the model. Implementations: memory (engine/memory),
 * Redis (services/model-store). Both run the contract suite in libs/shared/src/test-support.
 *
 * Layout (the same for every implementation, so both behave alike):
 * - Identifiables (shells, submodels, concept descriptions) are stored as AAS JSON text.
 *   A submodel's record has NO `submodelElements`: its elements are stored one record each.
 * - An element record is "shallow": a container (SubmodelElementCollection, SubmodelElementList,
 *   Entity statements, AnnotatedRelationshipElement annotations) is stored without its children;
 *   each child is its own record. So reading or writing one element costs the same on a submodel of
 *   100,000 elements as on one of 10.
 * - Children keep their order through an `orderKey` per element (opaque, assigned by the store,
 *   increasing in insertion order, unique within a submodel).
 * - Paths in and out of this port are EXTERNAL idShortPaths (`L[3].x`). Inside, a store keeps a
 *   list item under a stable position token instead of its index (`L[#<orderKey>]`, see
 *   list-item-paths.ts and docs/adr/0020): an item's index is its rank among its list's children,
 *   so inserting or deleting one item rewrites nothing else. Paths are resolved when each
 *   precondition or op applies, inside the atomic commit: after an op deletes `L[0]`, a later op of
 *   the same commit that names `L[0]` means the item that was `L[1]` (delete in reverse document
 *   order, as element-io `deleteOps` does). A list item is always appended (POST); its index in
 *   the op's path is the list's length at that point.
 * - Revisions are the global sequence number of the last commit that touched a thing: never reused,
 *   even after delete + re-create, so they can be ETags. Writing an element sets the revision of the
 *   element and of all its ancestors (a container's revision covers its whole subtree) and of the
 *   submodel.
 */

/** What the event log holds: `oldest` (absent when it holds nothing) up to the store's `latest` seq. */
export interface EventLogBounds {
  oldest?: number;
  latest: number;
}

export type IdentifiableKind = "shell" | "submodel" | "concept-description";

export interface StoredIdentifiable {
  kind: IdentifiableKind;
  id: string;
  /** AAS JSON text; for submodels without `submodelElements`. */
  json: string;
  revision: number;
}

export interface StoredElement {
  /** idShortPath from the submodel root, e.g. `a.b[2].c`. */
  path: string;
  /** Shallow AAS JSON text of the element (children are records of their own). */
  json: string;
  revision: number;
  /**
   * Opaque position key among its siblings, unique within the submodel: pass it back when deleting
   * the element, and in a precondition to name WHICH element a plan read (a list item's index can
   * shift to another item between the read and the commit).
   */
  orderKey: string;
}

export interface RepositoryPage<T> {
  items: T[];
  /** Opaque keyset cursor of the next page; absent on the last page. */
  cursor?: string;
}

/**
 * A check made inside the commit, atomically with its writes (compare-and-set).
 *
 * Inside `commitBatch`, an expected revision may be a placeholder `batchRevision(j)` (a negative
 * number): "the seq that commit j of this same batch gets". It holds only when commit j succeeded
 * and nothing wrote the record since. That is how a write planned on top of an earlier, not yet
 * committed write of the batch says what it read (see commit-runner.ts, group commit).
 */
export type CommitPrecondition =
  /** revision: the expected revision, or null for "must not exist". */
  | { on: "identifiable"; kind: IdentifiableKind; id: string; revision: number | null }
  /** The identifier must not be used by an identifiable of any kind (ids are unique repository-wide). */
  | { on: "id-free"; id: string }
  /**
   * `orderKey`, when given, must also match: it names WHICH element the plan read. Items written in
   * one commit share a revision, so after a list shift `L[1]` may be another item with the same
   * revision; the orderKey (unique in a submodel) tells them apart.
   */
  | { on: "element"; submodelId: string; path: string; revision: number | null; orderKey?: string }
  /** No idempotency record exists under this key (docs/adr/0017). */
  | { on: "idempotency-key-free"; key: string };

export type CommitOp =
  /** Create or replace; revision := seq. A new one is appended to its kind's order. */
  | { op: "put-identifiable"; kind: IdentifiableKind; id: string; json: string }
  /** Delete; for a submodel this also deletes all its element records at once. */
  | { op: "delete-identifiable"; kind: IdentifiableKind; id: string }
  /**
   * Write an element record (shallow JSON); revision := seq.
   * `insert` (only for a new element) adds it to its parent's children: `segment` is the idShort
   * (or `[i]` for a list item) and the store assigns the orderKey. A list item is appended after
   * the list's last item (`index` is informative: it should be the list's length).
   */
  | {
      op: "put-element";
      submodelId: string;
      path: string;
      json: string;
      insert?: { parentPath: string; segment: string; index?: number };
    }
  /**
   * Delete one element record (not its descendants: the engine lists every record to delete, in
   * reverse document order, since deleting a list item shifts the indexes of the items after it).
   */
  | { op: "delete-element"; submodelId: string; path: string; orderKey: string }
  /** Set revision := seq on an element without rewriting it (used for ancestors of a change). */
  | { op: "touch-element"; submodelId: string; path: string }
  /** Set revision := seq on an identifiable without rewriting it (a submodel whose element changed). */
  | { op: "touch-identifiable"; kind: IdentifiableKind; id: string };

export interface Commit {
  preconditions: CommitPrecondition[];
  ops: CommitOp[];
  /** The one event this commit produces; the store stamps seq and revision onto it. */
  event: ChangeEventDraft;
  /**
   * Writes the idempotency record of the command this commit belongs to, atomically with the
   * commit (docs/adr/0017): `{ fingerprint, seq, committedAt, event }`, expiring after `ttlMs`.
   * Goes with an `idempotency-key-free` precondition on the same key.
   */
  idempotency?: IdempotencyClaim;
}

export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
  ttlMs: number;
}

/** What is remembered under an Idempotency-Key (docs/adr/0017). */
export interface IdempotencyRecord {
  fingerprint: string;
  /** Set by the commit that claimed the key: its sequence number, time (ms) and event draft (JSON). */
  seq?: number;
  committedAt?: number;
  event?: string;
  /** The command's reply as JSON text, stored once the command answered. */
  reply?: string;
}

export type CommitResult =
  | { ok: true; seq: number; event: ChangeEvent }
  /** Which precondition failed (index into `preconditions`); nothing was written. */
  | { ok: false; failed: number };

/** The placeholder revision for "the seq of commit `index` (0-based) of this batch". */
export function batchRevision(index: number): number {
  return -(index + 1);
}

/** The batch index a placeholder revision names, or undefined for a real revision (or null). */
export function batchIndexOf(revision: number | null): number | undefined {
  return revision !== null && revision < 0 ? -revision - 1 : undefined;
}

/** An operation handle as stored: JSON text the engine owns, and a version for compare-and-set. */
export interface StoredOperationHandle {
  json: string;
  /** 1 after the first write, +1 on each write. */
  version: number;
}

export interface Repository {
  getIdentifiable(kind: IdentifiableKind, id: string): Promise<StoredIdentifiable | undefined>;
  /** Which kind of identifiable holds this id, if any (ids are unique across kinds). */
  kindOf(id: string): Promise<IdentifiableKind | undefined>;
  /** Identifiables of one kind in creation order, keyset-paged. */
  listIdentifiables(
    kind: IdentifiableKind,
    page: { cursor?: string; limit: number },
  ): Promise<RepositoryPage<StoredIdentifiable>>;
  countIdentifiables(kind: IdentifiableKind): Promise<number>;
  /**
   * Candidates of a filtered list (docs/adr/0035): identifiables of one kind that carry the rarest
   * of `terms` (index-terms.ts), in creation order, keyset-paged with the cursors of
   * listIdentifiables (either method continues the other's page). Every identifiable carrying ALL
   * the terms is among them; others may be too, so the caller checks each with its exact filter.
   * The index is kept in the commit's atomic step, so a page costs O(page + log n).
   */
  listIdentifiablesByTerms(
    kind: IdentifiableKind,
    terms: readonly string[],
    page: { cursor?: string; limit: number },
  ): Promise<RepositoryPage<StoredIdentifiable>>;

  /** Point reads of element records (undefined where missing), in the order asked. */
  getElements(submodelId: string, paths: string[]): Promise<(StoredElement | undefined)[]>;
  /**
   * Direct children of `parentPath` ("" = the submodel's root), in order, keyset-paged.
   * Returns their records.
   */
  listChildren(
    submodelId: string,
    parentPath: string,
    page: { cursor?: string; limit: number },
  ): Promise<RepositoryPage<StoredElement>>;
  /** How many direct children `parentPath` has (a list's length), O(log n). */
  countChildren(submodelId: string, parentPath: string): Promise<number>;
  /**
   * The records of `path` and all its descendants (path "" = every element of the submodel), in
   * document order: a parent before its children, siblings in order. `maxDepth` 0 = only `path`
   * itself (or nothing for ""), 1 = plus its children, undefined = unlimited.
   */
  getSubtree(submodelId: string, path: string, maxDepth?: number): Promise<StoredElement[]>;

  /**
   * true where a commit costs no I/O (the memory store): group commit (commit-runner.ts `batched`)
   * then saves nothing and its extra turns cost the HTTP answer more than they save (ADR 0054).
   */
  readonly commitsInProcess?: boolean;
  /** Apply all ops atomically if every precondition holds; assigns the next sequence number. */
  commit(commit: Commit): Promise<CommitResult>;
  /**
   * Several commits in one step (one round trip, one fsync in Redis), applied in order, each on its
   * own: atomic, with its own preconditions, seq and event. A commit whose precondition fails writes
   * nothing and takes no seq; later commits still run (those that name its placeholder revision
   * then fail too). Results come in the order of `commits`.
   */
  commitBatch(commits: Commit[]): Promise<CommitResult[]>;
  /** The sequence number of the last commit (0 when none). */
  currentSeq(): Promise<number>;
  /**
   * Committed events after `after`, in seq order, at most `limit`, from the store's event log (the
   * Redis outbox, or the memory store's bounded log). Absent where the store keeps no log.
   */
  readEvents?(after: number, limit: number): Promise<ChangeEvent[]>;
  /**
   * The oldest seq the event log still holds and the store's current seq, read together (so an
   * event committed meanwhile cannot look like a trimmed one). With readEvents.
   */
  eventLogBounds?(): Promise<EventLogBounds>;
  /**
   * Operation handles (asynchronous invocations), shared by every model-store replica so any gateway
   * answers for any handle. A write is a compare-and-set on the version (`null` = must not exist)
   * that also (re)sets the time to live; it answers the new version, or undefined when the stored
   * version differed (nothing written). Not part of commits: a handle is not model state and has no
   * revision, and its writes must not wait behind a large model write.
   */
  putOperationHandle(
    handleId: string,
    json: string,
    options: { ttlMs: number; expectedVersion: number | null },
  ): Promise<number | undefined>;
  getOperationHandle(handleId: string): Promise<StoredOperationHandle | undefined>;
  /** Delete every handle (/reset); answers how many there were. */
  deleteOperationHandles(): Promise<number>;
  /**
   * The lease of a process that runs asynchronous invocations: renewed while it runs some. A handle
   * whose runner's lease is gone (the process died) is marked Failed by whoever reads it.
   */
  renewOperationRunner(runnerId: string, ttlMs: number): Promise<void>;
  isOperationRunnerAlive(runnerId: string): Promise<boolean>;

  /** The idempotency record under `key`, if it exists and has not expired (docs/adr/0017). */
  getIdempotencyRecord(key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Store a command's reply under `key` (creating the record when no commit claimed it) and let it
   * expire `ttlMs` from now. A record that holds another fingerprint is left alone.
   */
  putIdempotencyReply(key: string, fingerprint: string, reply: string, ttlMs: number): Promise<void>;

  /** Remove everything (used by tests and, later, /reset). Does not reset the sequence. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Thrown by a Repository whose backend cannot be reached (Redis down, a read timed out). The engine
 * answers such a command with code "unavailable" (HTTP 503) instead of hanging or crashing. A commit
 * throws it only when the commit surely was not applied (it was never sent).
 * Matched by `name`, so an implementation may subclass it.
 */
export class RepositoryUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RepositoryUnavailableError";
  }
}

/**
 * Thrown by `commit` when the commit was sent but no answer came (a command timeout, the connection
 * lost meanwhile): it may or may not have been applied. Answered as "timeout" (HTTP 504) with a
 * message saying the outcome is unknown (docs/adr/0017). Matched by `name`.
 */
export class RepositoryOutcomeUnknownError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RepositoryOutcomeUnknownError";
  }
}
