import { CommandError } from "../../contracts/index.ts";
import { indexTermsOfJson } from "../index-terms.ts";
import type {
  Commit,
  CommitOp,
  CommitPrecondition,
  CommitResult,
  IdentifiableKind,
  Repository,
  RepositoryPage,
  StoredElement,
  StoredIdentifiable,
} from "../ports/index.ts";
import { externalChildPath, listItemToken, resolvePath } from "../ports/list-item-paths.ts";
import { batchIndexOf } from "../ports/repository.ts";
import { childCursor, identifiableCursor, ordinalOfCursor, sortKeyOfCursor } from "../ports/repository-cursors.ts";
import { createMemoryEventLog, type MemoryEventLogRetention } from "./memory-event-log.ts";
import { createMemoryIdempotency } from "./memory-idempotency.ts";
import { createMemoryOperationHandles } from "./memory-operation-handles.ts";
import { firstOrdinalAfter, MemoryTermIndex } from "./memory-term-index.ts";

/**
 * The Repository port in process memory (embedded mode, tests). Only strings and numbers are
 * stored and every read builds fresh objects, so no caller can change stored state by mutating a
 * result. `commit` never awaits between checking and applying, so it is atomic in one process.
 *
 * Ordering mirrors the Redis implementation: identifiables by a creation ordinal; children of a
 * parent by `orderKey` (16 hex digits of a per-submodel counter), ties broken by path. Keyset
 * cursors name the last item returned, so inserts and deletes between pages never make a page
 * repeat or skip an item.
 *
 * Records are keyed by INTERNAL path: a list item lives under `L[#<orderKey>]` (list-item-paths.ts,
 * docs/adr/0020) and its index is its position in the parent's sorted children array, so deleting
 * item 0 of a 200,000-item list removes one array entry and that item's records, nothing else.
 */

interface IdentifiableRecord {
  json: string;
  revision: number;
  ordinal: number;
}

interface ElementRecord {
  json: string;
  revision: number;
  /** Set when the element was inserted into a parent's children; "" otherwise. */
  orderKey: string;
  /** The parent's internal path. */
  parentPath?: string;
}

/** A child entry: `sortKey` = orderKey + "\x01" + internal path, so siblings compare as plain strings. */
interface ChildEntry {
  sortKey: string;
  path: string;
}

interface SubmodelElements {
  records: Map<string, ElementRecord>;
  children: Map<string, ChildEntry[]>;
  nextOrdinal: number;
}

const KINDS: readonly IdentifiableKind[] = ["shell", "submodel", "concept-description"];

function orderKeyOf(ordinal: number): string {
  return ordinal.toString(16).padStart(16, "0");
}

/** First index whose sortKey is greater than `after` (entries are sorted by sortKey). */
function firstAfter(entries: ChildEntry[], after: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (entries[mid].sortKey <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

export interface MemoryRepositoryOptions {
  /** Retention of the in-memory event log behind GetEvents (memory-event-log.ts). */
  eventLog?: MemoryEventLogRetention;
}

export function createMemoryRepository(options: MemoryRepositoryOptions = {}): Repository {
  const eventLog = createMemoryEventLog(options.eventLog);
  const identifiables = new Map<IdentifiableKind, Map<string, IdentifiableRecord>>(KINDS.map((k) => [k, new Map()]));
  /** Per kind: [ordinal, id] pairs sorted by ordinal (new ones always get the largest ordinal). */
  const creationOrder = new Map<IdentifiableKind, { ordinals: number[]; ids: string[] }>(
    KINDS.map((k) => [k, { ordinals: [], ids: [] }]),
  );
  const kinds = new Map<string, IdentifiableKind>();
  const termIndex = new MemoryTermIndex();
  const submodels = new Map<string, SubmodelElements>();
  let seq = 0;
  let nextIdentifiableOrdinal = 1;
  const { clearOperationHandles, ...operationHandles } = createMemoryOperationHandles();
  const { isFree, claim, clearIdempotency, ...idempotency } = createMemoryIdempotency();

  const identifiablesOf = (kind: IdentifiableKind) => identifiables.get(kind)!;

  function elementsOf(submodelId: string, create: true): SubmodelElements;
  function elementsOf(submodelId: string, create?: false): SubmodelElements | undefined;
  function elementsOf(submodelId: string, create = false): SubmodelElements | undefined {
    let elements = submodels.get(submodelId);
    if (!elements && create) {
      elements = { records: new Map(), children: new Map(), nextOrdinal: 1 };
      submodels.set(submodelId, elements);
    }
    return elements;
  }

  /** External path → internal path (undefined when an index is past its list's end). */
  const resolve = (elements: SubmodelElements | undefined, path: string): string | undefined =>
    resolvePath(path, (parent, index) => elements?.children.get(parent)?.[index]?.path);

  const toStoredElement = (path: string, record: ElementRecord): StoredElement => ({
    path,
    json: record.json,
    revision: record.revision,
    orderKey: record.orderKey,
  });

  /** `batchSeqs`: the seqs earlier commits of the same batch got (undefined where one failed). */
  function holds(precondition: CommitPrecondition, batchSeqs: readonly (number | undefined)[]): boolean {
    if (precondition.on === "id-free") return !kinds.has(precondition.id);
    if (precondition.on === "idempotency-key-free") return isFree(precondition.key);
    let stored: { revision: number; orderKey?: string } | undefined;
    if (precondition.on === "identifiable") stored = identifiablesOf(precondition.kind).get(precondition.id);
    else {
      const elements = elementsOf(precondition.submodelId);
      const internal = resolve(elements, precondition.path);
      stored = internal === undefined ? undefined : elements?.records.get(internal);
    }
    if (precondition.revision === null) return stored === undefined;
    const index = batchIndexOf(precondition.revision);
    const expected = index === undefined ? precondition.revision : batchSeqs[index];
    if (
      precondition.on === "element" &&
      precondition.orderKey !== undefined &&
      stored?.orderKey !== precondition.orderKey
    )
      return false;
    return expected !== undefined && stored?.revision === expected;
  }

  function commitOne(commit: Commit, batchSeqs: readonly (number | undefined)[]): CommitResult {
    for (let i = 0; i < commit.preconditions.length; i++) {
      if (!holds(commit.preconditions[i], batchSeqs)) return { ok: false, failed: i };
    }
    const next = seq + 1;
    for (const op of commit.ops) apply(op, next);
    if (commit.idempotency) claim(commit.idempotency, next, JSON.stringify(commit.event));
    seq = next;
    const event = { ...commit.event, seq: next, revision: next };
    eventLog.append(event);
    return { ok: true, seq: next, event };
  }

  /** Next orderKey of a submodel; a list item's also sorts after its list's last item (a store from before ADR 0020 numbered items by index). */
  function nextOrderKey(elements: SubmodelElements, siblings: ChildEntry[] | undefined, listItem: boolean): string {
    let ordinal = elements.nextOrdinal++;
    const last = listItem ? siblings?.[siblings.length - 1] : undefined;
    if (last) {
      const lastOrdinal = parseInt(last.sortKey.slice(0, 16), 16);
      if (lastOrdinal >= ordinal) {
        ordinal = lastOrdinal + 1;
        elements.nextOrdinal = ordinal + 1;
      }
    }
    return orderKeyOf(ordinal);
  }

  function removeChild(elements: SubmodelElements, record: ElementRecord, path: string): void {
    if (record.parentPath === undefined) return;
    const siblings = elements.children.get(record.parentPath);
    if (!siblings) return;
    const sortKey = `${record.orderKey}\x01${path}`;
    const at = firstAfter(siblings, sortKey) - 1;
    if (at >= 0 && siblings[at].sortKey === sortKey) siblings.splice(at, 1);
    if (siblings.length === 0) elements.children.delete(record.parentPath);
  }

  function apply(op: CommitOp, revision: number): void {
    switch (op.op) {
      case "put-identifiable": {
        const byId = identifiablesOf(op.kind);
        const existing = byId.get(op.id);
        if (existing) {
          // The same text has the same terms: a rewrite that changed nothing indexed costs nothing here.
          if (existing.json !== op.json)
            termIndex.set(op.kind, op.id, existing.ordinal, indexTermsOfJson(op.kind, op.json));
          existing.json = op.json;
          existing.revision = revision;
        } else {
          const ordinal = nextIdentifiableOrdinal++;
          byId.set(op.id, { json: op.json, revision, ordinal });
          const order = creationOrder.get(op.kind)!;
          order.ordinals.push(ordinal);
          order.ids.push(op.id);
          termIndex.set(op.kind, op.id, ordinal, indexTermsOfJson(op.kind, op.json));
        }
        kinds.set(op.id, op.kind);
        return;
      }
      case "delete-identifiable": {
        const byId = identifiablesOf(op.kind);
        const existing = byId.get(op.id);
        if (existing) {
          byId.delete(op.id);
          termIndex.remove(op.kind, op.id, existing.ordinal);
          const order = creationOrder.get(op.kind)!;
          const at = firstOrdinalAfter(order.ordinals, existing.ordinal) - 1;
          if (at >= 0 && order.ordinals[at] === existing.ordinal) {
            order.ordinals.splice(at, 1);
            order.ids.splice(at, 1);
          }
        }
        if (kinds.get(op.id) === op.kind) kinds.delete(op.id);
        if (op.kind === "submodel") submodels.delete(op.id);
        return;
      }
      case "put-element": {
        const elements = elementsOf(op.submodelId, true);
        let internal = resolve(elements, op.path);
        const existing = internal === undefined ? undefined : elements.records.get(internal);
        if (existing) {
          // `insert` is only meant for new elements; an existing one keeps its place.
          existing.json = op.json;
          existing.revision = revision;
          return;
        }
        const record: ElementRecord = { json: op.json, revision, orderKey: "" };
        if (op.insert) {
          const parentPath = resolve(elements, op.insert.parentPath) ?? op.insert.parentPath;
          const listItem = op.insert.segment.startsWith("[");
          let siblings = elements.children.get(parentPath);
          record.orderKey = nextOrderKey(elements, siblings, listItem);
          record.parentPath = parentPath;
          // A list item is appended under its token; an idShort child keeps its segment.
          internal = listItem
            ? parentPath + listItemToken(record.orderKey)
            : parentPath + op.path.slice(op.insert.parentPath.length);
          if (!siblings) {
            siblings = [];
            elements.children.set(parentPath, siblings);
          }
          const entry = { sortKey: `${record.orderKey}\x01${internal}`, path: internal };
          // Appends are the common case (orderKeys only grow); keep the array sorted anyway.
          const last = siblings[siblings.length - 1];
          if (!last || last.sortKey < entry.sortKey) siblings.push(entry);
          else siblings.splice(firstAfter(siblings, entry.sortKey), 0, entry);
        }
        // Never inserted and past a list's end: there is nothing to write it under.
        if (internal === undefined) return;
        elements.records.set(internal, record);
        return;
      }
      case "delete-element": {
        const elements = elementsOf(op.submodelId);
        const internal = resolve(elements, op.path);
        const record = internal === undefined ? undefined : elements?.records.get(internal);
        if (!elements || !record) return;
        removeChild(elements, record, internal!);
        elements.records.delete(internal!);
        return;
      }
      case "touch-element": {
        const elements = elementsOf(op.submodelId);
        const internal = resolve(elements, op.path);
        const record = internal === undefined ? undefined : elements?.records.get(internal);
        if (record) record.revision = revision;
        return;
      }
      case "touch-identifiable": {
        const record = identifiablesOf(op.kind).get(op.id);
        if (record) record.revision = revision;
        return;
      }
    }
  }

  /** A keyset page of `order` (ids sorted by creation ordinal); the cursor is the last ordinal read. */
  function pageOf(
    kind: IdentifiableKind,
    order: { ordinals: number[]; ids: string[] },
    page: { cursor?: string; limit: number },
  ): RepositoryPage<StoredIdentifiable> {
    const byId = identifiablesOf(kind);
    let start = 0;
    if (page.cursor !== undefined) {
      start = firstOrdinalAfter(order.ordinals, ordinalOfCursor(kind, page.cursor));
    }
    const end = Math.min(start + Math.max(page.limit, 0), order.ids.length);
    const items: StoredIdentifiable[] = [];
    for (let i = start; i < end; i++) {
      const id = order.ids[i];
      const record = byId.get(id)!;
      items.push({ kind, id, json: record.json, revision: record.revision });
    }
    if (end >= order.ids.length || end === start) return { items };
    return { items, cursor: identifiableCursor(kind, order.ordinals[end - 1]!) };
  }

  const repository: Repository = {
    commitsInProcess: true,
    async getIdentifiable(kind, id) {
      const record = identifiablesOf(kind).get(id);
      return record ? { kind, id, json: record.json, revision: record.revision } : undefined;
    },

    async kindOf(id) {
      return kinds.get(id);
    },

    async listIdentifiables(kind, page): Promise<RepositoryPage<StoredIdentifiable>> {
      return pageOf(kind, creationOrder.get(kind)!, page);
    },

    async listIdentifiablesByTerms(kind, terms, page): Promise<RepositoryPage<StoredIdentifiable>> {
      return pageOf(kind, termIndex.rarest(kind, terms), page);
    },

    async countIdentifiables(kind) {
      return identifiablesOf(kind).size;
    },

    async getElements(submodelId, paths) {
      const elements = elementsOf(submodelId);
      return paths.map((path) => {
        const internal = resolve(elements, path);
        const record = internal === undefined ? undefined : elements?.records.get(internal);
        return record ? toStoredElement(path, record) : undefined;
      });
    },

    async countChildren(submodelId, parentPath) {
      const elements = elementsOf(submodelId);
      const internal = resolve(elements, parentPath);
      return internal === undefined ? 0 : (elements?.children.get(internal)?.length ?? 0);
    },

    async listChildren(submodelId, parentPath, page): Promise<RepositoryPage<StoredElement>> {
      const elements = elementsOf(submodelId);
      const parentInternal = resolve(elements, parentPath);
      const siblings = (parentInternal !== undefined && elements?.children.get(parentInternal)) || [];
      const start =
        page.cursor === undefined ? 0 : firstAfter(siblings, sortKeyOfCursor(submodelId, parentPath, page.cursor));
      const end = Math.min(start + Math.max(page.limit, 0), siblings.length);
      const items: StoredElement[] = [];
      for (let i = start; i < end; i++) {
        const record = elements!.records.get(siblings[i].path);
        if (record)
          items.push(toStoredElement(externalChildPath(parentPath, parentInternal!, siblings[i].path, i), record));
      }
      if (end >= siblings.length || end === start) return { items };
      return { items, cursor: childCursor(submodelId, parentPath, siblings[end - 1].sortKey) };
    },

    async getSubtree(submodelId, path, maxDepth) {
      const elements = elementsOf(submodelId);
      if (!elements) return [];
      const result: StoredElement[] = [];
      // Depth-first with an explicit stack (deep models must not exhaust the call stack); each entry
      // carries its internal path (the key) and its external one (what the port answers).
      const stack: { internal: string; external: string; depth: number }[] = [];
      const pushChildren = (internal: string, external: string, depth: number) => {
        if (maxDepth !== undefined && depth > maxDepth) return;
        const siblings = elements.children.get(internal) ?? [];
        for (let i = siblings.length - 1; i >= 0; i--) {
          stack.push({
            internal: siblings[i].path,
            external: externalChildPath(external, internal, siblings[i].path, i),
            depth,
          });
        }
      };
      if (path === "") pushChildren("", "", 1);
      else {
        const internal = resolve(elements, path);
        if (internal === undefined) return [];
        stack.push({ internal, external: path, depth: 0 });
      }
      while (stack.length > 0) {
        const next = stack.pop()!;
        const record = elements.records.get(next.internal);
        if (!record) continue;
        result.push(toStoredElement(next.external, record));
        pushChildren(next.internal, next.external, next.depth + 1);
      }
      return result;
    },

    async commit(commit: Commit): Promise<CommitResult> {
      return commitOne(commit, []);
    },

    async commitBatch(commits: Commit[]): Promise<CommitResult[]> {
      const seqs: (number | undefined)[] = [];
      return commits.map((commit) => {
        const result = commitOne(commit, seqs);
        seqs.push(result.ok ? result.seq : undefined);
        return result;
      });
    },

    async currentSeq() {
      return seq;
    },

    async readEvents(after, limit) {
      return eventLog.read(after, limit);
    },

    async eventLogBounds() {
      return eventLog.bounds(seq);
    },

    ...operationHandles,
    ...idempotency,

    async clear() {
      for (const kind of KINDS) {
        identifiablesOf(kind).clear();
        creationOrder.set(kind, { ordinals: [], ids: [] });
      }
      kinds.clear();
      termIndex.clear();
      submodels.clear();
      clearOperationHandles();
      clearIdempotency();
    },

    async close() {},
  };
  return repository;
}
