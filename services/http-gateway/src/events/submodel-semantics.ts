import { type ChangeEvent, isRawJson, type StoreClient, SYSTEM } from "@twinport/shared";

/**
 * What the event stream needs to know of a submodel: its semanticId (a Reference, AAS JSON), and
 * since which seq it holds. An event of the submodel from `since` on happened while the submodel
 * had this semanticId; an older one may be of an earlier state (another semanticId, or a deleted
 * submodel of the same id), so rules that grant by semanticId must not decide it (docs/adr/0029,
 * amendment "replayed events and the semanticId they happened under").
 */
export interface SubmodelSemantics {
  semanticId: unknown;
  since: number;
}

/** Submodels remembered at most; a forgotten one is read again when an event names it. */
const MAX_KNOWN = 10_000;
/** Deleted submodels remembered at most; the events of a forgotten one go by the grants by id. */
const MAX_DELETED = 10_000;
/** Submodels whose last change is remembered; a forgotten one counts as changed at `floor`. */
const MAX_CHANGES = 10_000;
/** How long a read of the store waits for the bus to bring the events it already reflects. */
const CATCH_UP_MS = 1_000;

/**
 * A deleted submodel: the semanticId it had from `since` up to its deletion at `until`. Its events
 * in that span (the deletion included) were of a submodel with that semanticId, whatever the id
 * names now.
 */
interface Tombstone extends SubmodelSemantics {
  until: number;
}

/**
 * What a submodel event says of the semanticId the submodel has after it (a deletion: had): from
 * `submodelSemanticId`, else from the submodel it carries. Undefined when it says nothing (a write
 * of element values only, an event stored before the field existed).
 */
export function semanticIdOfEvent(event: ChangeEvent): { semanticId: unknown } | undefined {
  if (!event.kind.startsWith("submodel.")) return undefined;
  // null is "has none", as a read of the store finds it (no semanticId): undefined here.
  if (event.submodelSemanticId !== undefined) return { semanticId: event.submodelSemanticId ?? undefined };
  if (event.payload === undefined || event.payloadOmitted) return undefined;
  return { semanticId: (event.payload as { semanticId?: unknown }).semanticId };
}

const sameReference = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

interface Entry {
  reading: Promise<SubmodelSemantics | undefined>;
  /** Set once known: what a later update compares its semanticId with. */
  settled?: SubmodelSemantics;
}

/**
 * The semanticIds of submodels, for the stream's `semanticId` filter and the access rules that
 * grant by semanticId: an element event names only its submodel's id. Learned from the submodel
 * events that pass by (created/updated carry the submodel), otherwise read once from the store
 * (its metadata, no elements) and kept; a deletion forgets it, and keeps a tombstone of what it
 * was, so the events of the deleted submodel (its deletion too) can still be decided.
 *
 * Each is kept with the seq since which it holds. From an event, that is the event's seq (an
 * update that leaves the semanticId as it was keeps the earlier one: every submodel event says
 * which semanticId it left, or that it left the metadata alone). From a read of the store it
 * is bounded by two things the catalog knows: the submodel's revision (no write touched it since,
 * and every element write touches it) and, once the bus has brought every event up to that
 * revision, the last submodel event of that id the catalog saw since it started watching (none:
 * since it started). The earlier of the two holds.
 */
export class SubmodelSemanticsCatalog {
  private readonly known = new Map<string, Entry>();
  private readonly deleted = new Map<string, Tombstone>();
  /** The seq of the last submodel event per id since `watchedFrom` (created, updated or deleted). */
  private readonly changed = new Map<string, number>();
  /** Every submodel forgotten from `changed` counts as changed at this seq. */
  private floor = 0;
  /** Every event after it up to `learnedUpTo` was learned; undefined until the first one. */
  private watchedFrom: number | undefined;
  private learnedUpTo: number | undefined;
  private waiters: { seq: number; done: (caughtUp: boolean) => void }[] = [];

  constructor(private readonly store: StoreClient) {}

  /** Called for every event in seq order, before any stream looks at it. */
  learn(event: ChangeEvent): void {
    if (this.learnedUpTo === undefined || event.seq !== this.learnedUpTo + 1) {
      // The first event, or the bus left a gap it could not fill (or started over): what was
      // learned may miss a change, so it is all forgotten and watching starts again here.
      this.known.clear();
      this.changed.clear();
      this.watchedFrom = event.seq - 1;
      this.floor = event.seq - 1;
    }
    this.learnedUpTo = event.seq;
    if (event.kind.startsWith("submodel.")) this.learnSubmodel(event);
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((waiter) => waiter.seq <= event.seq);
      this.waiters = this.waiters.filter((waiter) => waiter.seq > event.seq);
      for (const waiter of ready) waiter.done(true);
    }
  }

  private learnSubmodel(event: ChangeEvent): void {
    // Element values only (PATCH …/$value): the semanticId is as it was, and so is what is known.
    if (event.metadataKept) return;
    this.noteChange(event.id, event.seq);
    const told = semanticIdOfEvent(event);
    const before = this.known.get(event.id)?.settled;
    if (event.kind === "submodel.deleted") {
      this.known.delete(event.id);
      this.bury(event.id, event.seq, told, before);
      return;
    }
    if (told === undefined) {
      // Says nothing of its semanticId (an event from before the store said it): read again when
      // needed (the read's `since` is then not before this event).
      this.known.delete(event.id);
      return;
    }
    // A re-creation always starts afresh: the deleted submodel's events are not this one's.
    const unchanged =
      event.kind === "submodel.updated" && before !== undefined && sameReference(before.semanticId, told.semanticId);
    const settled = { semanticId: told.semanticId, since: unchanged ? before.since : event.seq };
    this.remember(event.id, { reading: Promise.resolve(settled), settled });
  }

  /** Keeps what a deleted submodel was, from when it is known: at least its deletion (`told`). */
  private bury(
    id: string,
    seq: number,
    told: { semanticId: unknown } | undefined,
    before: SubmodelSemantics | undefined,
  ): void {
    const kept = before !== undefined && (told === undefined || sameReference(before.semanticId, told.semanticId));
    const grave = kept
      ? { semanticId: before.semanticId, since: before.since, until: seq }
      : told !== undefined
        ? { semanticId: told.semanticId, since: seq, until: seq }
        : undefined;
    this.deleted.delete(id);
    if (grave === undefined) return;
    this.deleted.set(id, grave);
    if (this.deleted.size > MAX_DELETED) this.deleted.delete(this.deleted.keys().next().value!);
  }

  /**
   * The submodel's semanticId when the event at `seq` happened, when the catalog knows it:
   * undefined for an event before the current semanticId's `since` (or of a submodel that cannot
   * be read). An event the bus has not brought yet (a replay read ahead of it) waits for it
   * briefly: until then a change of the semanticId just before it may not be learned.
   */
  async semanticsAt(submodelId: string, seq: number): Promise<SubmodelSemantics | undefined> {
    if (this.learnedUpTo !== undefined && seq > this.learnedUpTo && !(await this.learnedThrough(seq))) return undefined;
    // Up to its deletion, the id named the deleted submodel: decided by what it was (no read needed).
    const grave = this.deleted.get(submodelId);
    if (grave !== undefined && seq <= grave.until) return grave.since <= seq ? grave : undefined;
    const semantics = await this.semanticsOf(submodelId);
    return semantics !== undefined && semantics.since <= seq ? semantics : undefined;
  }

  /** The submodel's current semanticId (what the stream's `semanticId` filter matches). */
  semanticsOf(submodelId: string): Promise<SubmodelSemantics | undefined> {
    const known = this.known.get(submodelId);
    if (known) return known.reading;
    const entry: Entry = { reading: this.read(submodelId) };
    this.remember(submodelId, entry);
    entry.reading.then((found) => {
      if (found !== undefined) entry.settled = found;
      // A failed read is not remembered: the next event asks again.
      else if (this.known.get(submodelId) === entry) this.known.delete(submodelId);
    });
    return entry.reading;
  }

  private noteChange(id: string, seq: number): void {
    this.changed.delete(id);
    this.changed.set(id, seq);
    if (this.changed.size > MAX_CHANGES) {
      const [oldest, at] = this.changed.entries().next().value!;
      this.changed.delete(oldest);
      this.floor = Math.max(this.floor, at);
    }
  }

  private remember(id: string, entry: Entry): void {
    this.known.delete(id);
    this.known.set(id, entry);
    if (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
  }

  private async read(submodelId: string): Promise<SubmodelSemantics | undefined> {
    try {
      const reply = await this.store.execute({
        type: "GetSubmodelById",
        params: { submodelId, modifiers: { content: "metadata" } },
        principal: SYSTEM,
      });
      if (!reply.ok) return undefined;
      const value = isRawJson(reply.value) ? JSON.parse(reply.value.rawJson) : reply.value;
      const semanticId = (value as { semanticId?: unknown } | null)?.semanticId;
      return { semanticId, since: await this.sinceOfRead(submodelId, reply.revision) };
    } catch {
      return undefined;
    }
  }

  /**
   * Since when the semanticId a read found holds. The revision alone is always right (nothing
   * wrote the submodel after it), but it moves with every element write: the submodel's last
   * change the catalog saw is far earlier as a rule, and right once every event up to the
   * revision has been learned (the bus is usually a few ms behind the store: waited for, briefly).
   */
  private async sinceOfRead(submodelId: string, revision: number | undefined): Promise<number> {
    if (revision === undefined) return Number.POSITIVE_INFINITY;
    if (this.watchedFrom === undefined || !(await this.learnedThrough(revision))) return revision;
    const watchedFrom = this.watchedFrom;
    if (watchedFrom === undefined) return revision;
    const lastChange = this.changed.get(submodelId);
    // Changed after what the read found: the read is already out of date.
    if (lastChange !== undefined && lastChange > revision) return Number.POSITIVE_INFINITY;
    return Math.min(revision, Math.max(watchedFrom + 1, lastChange ?? this.floor));
  }

  private learnedThrough(seq: number): Promise<boolean> {
    if (this.learnedUpTo !== undefined && this.learnedUpTo >= seq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        seq,
        done: (caughtUp: boolean) => {
          clearTimeout(timer);
          resolve(caughtUp);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((each) => each !== waiter);
        resolve(false);
      }, CATCH_UP_MS);
      timer.unref?.();
      this.waiters.push(waiter);
    });
  }
}
