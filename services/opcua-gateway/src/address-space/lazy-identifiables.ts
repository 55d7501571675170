/** What a lazy identifiable is: the kind decides which store read and which NodeSpec make its nodes. */
export type IdentifiableKind = "shell" | "submodel" | "concept-description";

interface Entry {
  kind: IdentifiableKind;
  /** Whether the nodes below the identifiable's own node exist (the own node always does). */
  materialized: boolean;
  /** performance.now() of the last request that named one of its nodes. */
  lastUsed: number;
  /** The elements its nodes hold while made (a shell or concept description counts as one). */
  elements: number;
}

export interface LazyIdentifiablesOptions {
  /** Release the nodes of an identifiable nobody used for this long; 0 = never. */
  releaseAfterMs: number;
  /** At most this many elements made at once (ADR 0036 "Bounded"); 0 = no bound. */
  maxElements?: number;
  /** Where the warning goes when only watched identifiables are left to release. */
  warn?: (line: string) => void;
  now?: () => number;
}

/** The warning that the bound cannot be kept is logged at most once per this many ms. */
const WARN_EVERY_MS = 60_000;

/**
 * The idle sweep releases at most this many elements' nodes in one task (a single identifiable with
 * more goes alone). Deleting nodes costs ~40–60 µs of CPU per element (measured on the 2-core
 * machine: 20,000 elements in 0.85–1.2 s), so a sweep after a client walked a large model held the
 * event loop, and every event and request behind it, for a second or more in one piece (ADR 0043);
 * 100 elements are ~5 ms. Between two batches the sync applies waiting events and the loop serves I/O.
 */
export const RELEASE_BATCH_ELEMENTS = 100;

/** How nodes are made and released: set by attachAddressSpace, run between the sync's events. */
export interface LazyActions {
  materialize(id: string): Promise<void>;
  release(ids: string[]): Promise<void>;
}

/**
 * Which shells, submodels and concept descriptions have their nodes below their own node, and when
 * they were last used (ADR 0036). Every identifiable gets its own node (browse name, type, description)
 * at the snapshot; what hangs below it, the elements above all, is made when a request first needs it
 * and released when no request used it for `releaseAfterMs` and no monitored item watches one of its
 * nodes (a monitored item holds on to its node object: releasing it would silence the item).
 *
 * NodeIds come from ids and idShortPaths (node-ids.ts), so a node made again has the NodeId it had.
 */
export class LazyIdentifiables {
  private readonly entries = new Map<string, Entry>();
  /**
   * Materialized ids, least recently used first (a Map keeps insertion order; a use moves the id to
   * the end): the sweep looks only at these, and making room releases from the front.
   */
  private readonly materialized = new Map<string, Entry>();
  private elements = 0;
  /** Monitored items per identifiable id. */
  private readonly pins = new Map<string, number>();
  /** Requests waiting to be served per identifiable id: their nodes must still be there when served. */
  private readonly holds = new Map<string, number>();
  private lastWarning = Number.NEGATIVE_INFINITY;
  private readonly pending = new Map<string, Promise<void>>();
  private actions: LazyActions | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  private trimScheduled = false;
  private readonly now: () => number;

  constructor(private readonly options: LazyIdentifiablesOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Known to the address space (created or updated by the snapshot or an event). */
  set(id: string, kind: IdentifiableKind): void {
    const entry = this.entries.get(id);
    if (entry === undefined) this.entries.set(id, { kind, materialized: false, lastUsed: 0, elements: 0 });
    else entry.kind = kind;
  }

  forget(id: string): void {
    this.markMaterialized(id, false);
    this.entries.delete(id);
  }

  kindOf(id: string): IdentifiableKind | undefined {
    return this.entries.get(id)?.kind;
  }

  isKnown(id: string): boolean {
    return this.entries.has(id);
  }

  isMaterialized(id: string): boolean {
    return this.entries.get(id)?.materialized === true;
  }

  /** `elements`: how many elements its nodes hold (counted from what they were made of). */
  markMaterialized(id: string, materialized: boolean, elements = 1): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    if (entry.materialized) this.elements -= entry.elements;
    this.materialized.delete(id);
    entry.materialized = materialized;
    entry.elements = materialized ? elements : 0;
    if (materialized) {
      entry.lastUsed = this.now();
      this.materialized.set(id, entry);
      this.elements += elements;
    }
  }

  /** Its nodes were made again from the store (a resync): the element count may have changed. */
  recount(id: string, elements: number): void {
    const entry = this.materialized.get(id);
    if (entry === undefined) return;
    this.elements += elements - entry.elements;
    entry.elements = elements;
  }

  get materializedCount(): number {
    return this.materialized.size;
  }

  /** Elements whose nodes are made now (what maxElements bounds). */
  get materializedElements(): number {
    return this.elements;
  }

  /**
   * Identifiables to release, least recently used first, so that `elements` more fit within
   * maxElements (ADR 0036 "Bounded"). Never `id` itself, nor one a monitored item watches or a
   * waiting request holds: when only those are left, fewer are returned and the bound is exceeded
   * (a watched node must keep notifying), with a warning at most once a minute.
   */
  makeRoom(id: string, elements: number): string[] {
    const max = this.options.maxElements ?? 0;
    if (max === 0) return [];
    let excess = this.elements + elements - max;
    const victims: string[] = [];
    for (const [other, entry] of this.materialized) {
      if (excess <= 0) break;
      if (other === id || !this.isEvictable(other)) continue;
      victims.push(other);
      excess -= entry.elements;
    }
    if (excess > 0) {
      const now = this.now();
      if (now - this.lastWarning >= WARN_EVERY_MS) {
        this.lastWarning = now;
        this.options.warn?.(
          `opcua-gateway: ${this.elements + elements} elements in use exceed maxMaterializedElements=${max}: ` +
            "the rest is watched by monitored items or needed by waiting requests (raise maxMaterializedElements)",
        );
      }
    }
    return victims;
  }

  /** Made, and neither watched, held by a waiting request nor being made. */
  isEvictable(id: string): boolean {
    return this.materialized.has(id) && !this.pins.has(id) && !this.holds.has(id) && !this.pending.has(id);
  }

  /** A request waits to be served: the nodes of `ids` stay until unhold(ids). */
  hold(ids: readonly string[]): void {
    for (const id of ids) this.holds.set(id, (this.holds.get(id) ?? 0) + 1);
  }

  unhold(ids: readonly string[]): void {
    for (const id of ids) {
      const count = this.holds.get(id) ?? 0;
      if (count <= 1) this.holds.delete(id);
      else this.holds.set(id, count - 1);
    }
    this.trimSoon();
  }

  /**
   * A request names a node of identifiable `id`: marks it used and tells whether its nodes must be
   * made first (undefined: ready, or not an identifiable the gateway knows).
   */
  touch(id: string): Promise<void> | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    entry.lastUsed = this.now();
    if (entry.materialized) {
      // Most recently used: last in line to be released to make room.
      this.materialized.delete(id);
      this.materialized.set(id, entry);
      return undefined;
    }
    return this.ensure(id);
  }

  /** Makes the nodes of `id` once, however many requests ask at the same time. */
  ensure(id: string): Promise<void> {
    const running = this.pending.get(id);
    if (running !== undefined) return running;
    if (this.actions === undefined) return Promise.resolve();
    const making = this.actions.materialize(id).finally(() => this.pending.delete(id));
    this.pending.set(id, making);
    return making;
  }

  pin(id: string): void {
    this.pins.set(id, (this.pins.get(id) ?? 0) + 1);
  }

  unpin(id: string): void {
    const count = this.pins.get(id) ?? 0;
    if (count <= 1) this.pins.delete(id);
    else this.pins.set(id, count - 1);
    this.trimSoon();
  }

  /**
   * Over maxElements (room was made while requests held or items watched what would have gone):
   * once those let go, what exceeds the bound is released in the next turn, least recently used
   * first. It stayed until the next make or the idle release (5 minutes by default): a burst of
   * requests over 40 submodels left 40 times the bound made (retest finding).
   */
  private trimSoon(): void {
    const max = this.options.maxElements ?? 0;
    if (max === 0 || this.elements <= max || this.trimScheduled || this.actions === undefined) return;
    this.trimScheduled = true;
    setImmediate(() => {
      this.trimScheduled = false;
      void this.sweep();
    });
  }

  /** Asked again just before releasing one of overBound(): still over the bound, and still evictable. */
  isOverBoundEvictable(id: string): boolean {
    const max = this.options.maxElements ?? 0;
    return max > 0 && this.elements > max && this.isEvictable(id);
  }

  /** What exceeds maxElements and may go, least recently used first. */
  private overBound(): string[] {
    const max = this.options.maxElements ?? 0;
    let excess = max === 0 ? 0 : this.elements - max;
    const victims: string[] = [];
    for (const [id, entry] of this.materialized) {
      if (excess <= 0) break;
      if (!this.isEvictable(id)) continue;
      victims.push(id);
      excess -= entry.elements;
    }
    return victims;
  }

  isPinned(id: string): boolean {
    return this.pins.has(id);
  }

  /** Materialized, idle for releaseAfterMs and watched by no monitored item. */
  releasable(): string[] {
    return [...this.materialized.keys()].filter((id) => this.isReleasable(id));
  }

  /** Asked again just before releasing: a request may have used it since the sweep looked. */
  isReleasable(id: string): boolean {
    const { releaseAfterMs } = this.options;
    const entry = this.entries.get(id);
    return (
      releaseAfterMs > 0 &&
      entry?.materialized === true &&
      entry.lastUsed <= this.now() - releaseAfterMs &&
      !this.pins.has(id) &&
      !this.holds.has(id) &&
      !this.pending.has(id)
    );
  }

  /** Starts making and releasing nodes; the sweep runs a few times per releaseAfterMs. */
  start(actions: LazyActions): void {
    this.actions = actions;
    const { releaseAfterMs } = this.options;
    if (releaseAfterMs === 0) return;
    const every = Math.min(Math.max(Math.floor(releaseAfterMs / 4), 25), 30_000);
    this.sweeper = setInterval(() => void this.sweep(), every).unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.actions = undefined;
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || this.actions === undefined) return;
    const ids = [...new Set([...this.overBound(), ...this.releasable()])];
    if (ids.length === 0) return;
    this.sweeping = true;
    try {
      for (const batch of this.batches(ids)) {
        if (this.actions === undefined) return;
        await this.actions.release(batch);
        // A turn of the loop between batches: requests and events that came meanwhile go first.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      // The sync stopped, or a node could not be deleted: the next sweep tries again.
    } finally {
      this.sweeping = false;
    }
  }

  /** `ids` in order, cut into batches of at most RELEASE_BATCH_ELEMENTS elements (at least one id each). */
  private batches(ids: string[]): string[][] {
    const batches: string[][] = [];
    let batch: string[] = [];
    let elements = 0;
    for (const id of ids) {
      const size = this.entries.get(id)?.elements ?? 1;
      if (batch.length > 0 && elements + size > RELEASE_BATCH_ELEMENTS) {
        batches.push(batch);
        batch = [];
        elements = 0;
      }
      batch.push(id);
      elements += size;
    }
    if (batch.length > 0) batches.push(batch);
    return batches;
  }
}
