import {
  type ChangeEvent,
  type ElementScope,
  elementShown,
  type RightGrants,
  referenceKeyValues,
  referenceMatches,
} from "@twinport/shared";
import { partOfElementEvent } from "./element-part-event.ts";
import { type EventFilter, entityOf, matchesPlainFilters } from "./event-filter.ts";
import type { EventHub, EventLogPage, LiveListener } from "./event-hub.ts";
import { controlMessage, eventMessage, HEARTBEAT, SHUTDOWN } from "./event-message.ts";
import { atTime, type ExpiryTimer } from "./expiry-timer.ts";
import { PassedSubmodels } from "./passed-submodels.ts";
import { semanticIdOfEvent } from "./submodel-semantics.ts";

export interface EventStreamOptions {
  hub: EventHub;
  filter: EventFilter;
  /** The caller's READ grants (with a security section); absent: everything is readable. */
  read?: RightGrants;
  /**
   * The caller's EXECUTE grants, beside `read`: an Operation's arguments and result (the payload of
   * `operation.*` events) go only to who may invoke it and read its result over the API.
   */
  execute?: RightGrants;
  /** Last-Event-ID or `after`: replay every retained change after it first. Absent: live from now. */
  after?: number;
  /** Cuts the connection: a client that stopped reading never takes its final `overflow` event. */
  abort(): void;
  /**
   * Bytes the connection has handed on towards the client so far (its socket's completed writes):
   * grows while the client reads. After an overflow the cut waits while it grows. Absent: the
   * cut comes one grace after the overflow.
   */
  taken?(): number | undefined;
  /** When the caller's credentials expire (a bearer token's `exp`, ms): the stream ends then with `expired`. */
  expiresAt?: number;
}

/** Events one GetEvents read asks for (the store answers at most 1,000). */
const PAGE = 1_000;
/**
 * How long a client that overflowed may go without taking a byte before the connection is cut: a
 * client that keeps reading gets everything queued, its final `overflow` event included.
 */
const OVERFLOW_GRACE_MS = 5_000;
/**
 * What is queued goes out in pieces of at most this: the socket completes each piece as the client
 * takes it, so even a client slower than one whole event (up to 256 KiB) per grace shows progress.
 */
const PIECE_BYTES = 16_384;
/** Attempts to read the log while the store does not answer, 500 ms apart, before giving up. */
const LOG_ATTEMPTS = 10;
/** Submodels one stream remembers having told of a left-out event (tellUndecided). */
const MAX_TOLD = 10_000;
const encoder = new TextEncoder();

/**
 * One client's event stream (docs/adr/0029). Live events are queued from the moment the stream
 * attaches to the hub, before anything is read from the log; the stream then sends, in seq order,
 * whatever lies between its position and the next queued event from the log (the replay, and any
 * gap the bus left), then the queued event: nothing committed can fall between the replay and the
 * live events, and the seq check drops what both bring. Events the filters or the caller's rights
 * exclude advance the position without being sent.
 */
export class EventStream implements LiveListener {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  /** The last seq handled (sent or filtered out); undefined until the first live event (no `after`). */
  private position: number | undefined;
  private readonly queue: ChangeEvent[] = [];
  /** What the submodel events this stream handled said of their semanticIds. */
  private readonly passed = new PassedSubmodels();
  /** The last event semanticsThen was asked about, and its answer. */
  private semanticsAsked?: { event: ChangeEvent; answer: Promise<{ semanticId: unknown } | undefined> };
  /** Submodels this stream sent a `reset` for (tellUndecided). */
  private readonly toldUndecided = new Set<string>();
  /** Every event up to it is committed (from a heartbeat): the stream catches up to it from the log. */
  private committedSeq = 0;
  private replay: boolean;
  private pumping = false;
  private ended = false;
  private roomWaiter: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private abortTimer: NodeJS.Timeout | undefined;
  private expiryTimer: ExpiryTimer | undefined;

  constructor(private readonly options: EventStreamOptions) {
    this.position = options.after;
    this.replay = options.after !== undefined;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        // The client took bytes and the queue has room: a replay waiting for it goes on (roomForMore).
        pull: () => {
          const waiting = this.roomWaiter;
          this.roomWaiter = undefined;
          waiting?.();
        },
        cancel: () => this.end(),
      },
      // The bound on what waits for a slow client: past it, `overflow` (see write()).
      new ByteLengthQueuingStrategy({ highWaterMark: options.hub.settings.maxBufferedBytes }),
    );
  }

  /** Attach to the live events, then replay; the response can be sent as soon as this resolves. */
  async open(): Promise<void> {
    // A reconnecting EventSource waits `retry` ms; a restarted replica is usually back within that.
    this.write("retry: 1000\n\n");
    await this.options.hub.attach(this);
    this.heartbeat = setInterval(() => this.write(HEARTBEAT), this.options.hub.settings.heartbeatIntervalMs);
    this.heartbeat.unref?.();
    const { expiresAt } = this.options;
    if (expiresAt !== undefined) {
      // The grants were checked with a token valid until then; after it, the caller must show a new one.
      this.expiryTimer = atTime(expiresAt, () =>
        this.finish(controlMessage("expired", { reason: "the access token expired; reconnect with a new one" })),
      );
    }
    this.pump();
  }

  live(event: ChangeEvent): void {
    if (this.ended) return;
    this.queue.push(event);
    if (this.queue.length > this.options.hub.settings.maxQueuedEvents) {
      this.overflow(`more than ${this.options.hub.settings.maxQueuedEvents} events waited while the stream replayed`);
      return;
    }
    this.pump();
  }

  committed(seq: number): void {
    if (this.ended || seq <= this.committedSeq) return;
    this.committedSeq = seq;
    this.pump();
  }

  shutdown(): void {
    this.finish(SHUTDOWN);
  }

  /**
   * Its client left (half-closed) before the answer's head went out: the stream ends after what is
   * queued (the retry line), no message of its own, so the client gets its answer and nothing more.
   */
  clientLeft(): void {
    if (this.ended) return;
    try {
      this.controller.close();
    } catch {
      // The client already went away.
    }
    this.end();
  }

  private pump(): void {
    if (this.pumping || this.ended) return;
    this.pumping = true;
    this.run()
      .catch((error: unknown) =>
        this.finish(controlMessage("failed", { reason: `the stream failed: ${(error as Error).message}` })),
      )
      .finally(() => {
        this.pumping = false;
      });
  }

  private async run(): Promise<void> {
    if (this.replay) {
      await this.catchUp(Number.POSITIVE_INFINITY);
      this.replay = false;
    }
    while (!this.ended) {
      const next = this.queue[0];
      if (this.position !== undefined) {
        // Everything before the next live event (or up to the last heartbeat) comes from the log.
        const upTo = next !== undefined ? next.seq - 1 : this.committedSeq;
        if (upTo > this.position) {
          await this.catchUp(upTo);
          continue;
        }
      }
      if (next === undefined) return;
      this.queue.shift();
      if (this.position === undefined || next.seq > this.position) await this.send(next);
    }
  }

  /** Reads the log from the position up to `upTo` (Infinity: until the log has nothing newer). */
  private async catchUp(upTo: number): Promise<void> {
    let failures = 0;
    while (!this.ended && this.position! < upTo) {
      const from = this.position!;
      const page = await this.options.hub.readLog(from, Math.min(PAGE, upTo - from));
      if (this.ended) return;
      if (page === undefined) {
        if (++failures >= LOG_ATTEMPTS) {
          this.finish(
            controlMessage("unavailable", { reason: "the event log cannot be read; reconnect later", lastSeq: from }),
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      failures = 0;
      if (page.reset) {
        this.reset(from, page.reset);
        continue;
      }
      if (page.events.length === 0) {
        if (upTo === Number.POSITIVE_INFINITY) return;
        // Committed (a later event or a heartbeat says so) yet not in the log: lost to the reader.
        this.reset(from, { latest: upTo });
        continue;
      }
      for (const event of page.events) {
        await this.roomForMore();
        if (this.ended) return;
        if (event.seq > this.position!) await this.send(event);
      }
    }
  }

  /**
   * What the log replays is paced by the client: the next event waits until at least half of
   * maxBufferedBytes is free again (an event carries at most 256 KiB), so a client reading at its
   * own speed catches up from any position instead of overflowing after the first MiB. Live events
   * are not paced: a client that cannot keep up with them still gets `overflow`.
   */
  private async roomForMore(): Promise<void> {
    const half = this.options.hub.settings.maxBufferedBytes / 2;
    while (!this.ended && (this.controller.desiredSize ?? 0) < half)
      await new Promise<void>((resolve) => {
        this.roomWaiter = resolve;
      });
  }

  /** The position is no longer in the log (or ahead of the store): the client must re-read. */
  private reset(after: number, bounds: NonNullable<EventLogPage["reset"]>): void {
    this.write(
      controlMessage(
        "reset",
        {
          after,
          ...(bounds.oldest !== undefined ? { oldest: bounds.oldest } : {}),
          latest: bounds.latest,
          reason:
            after > bounds.latest
              ? "the store's sequence is behind the requested position (an id from another store, or one emptied since: a memory store restarted, Redis data lost)"
              : "events after the requested position are no longer retained",
        },
        bounds.latest,
      ),
    );
    this.position = bounds.latest;
    // The events skipped may have changed a semanticId.
    this.passed.forget();
  }

  private async send(event: ChangeEvent): Promise<void> {
    this.passed.pass(event);
    const decision = await this.decide(event);
    if (this.ended) return;
    this.position = event.seq;
    if (decision === undefined) return;
    const shown = decision.partOf === undefined ? event : partOfElementEvent(event, decision.partOf);
    this.write(eventMessage(shown, decision.payload));
  }

  /**
   * Whether the filters and the caller's READ grants let the event through, and with its payload
   * (`partOf`: only the parts of the element that scope shows).
   */
  private async decide(event: ChangeEvent): Promise<{ payload: boolean; partOf?: ElementScope } | undefined> {
    const { filter, read, hub } = this.options;
    if (!matchesPlainFilters(event, filter)) return undefined;
    const entity = entityOf(event);
    let payload = true;
    let partOf: ElementScope | undefined;
    if (read !== undefined && !read.all) {
      if (entity === "shell") {
        if (!read.shell(event.id)) return undefined;
      } else if (entity === "concept-description") {
        if (!read.conceptDescription(event.id)) return undefined;
      } else {
        const scope = await this.submodelScope(read, event);
        if (scope === undefined) {
          await this.tellUndecided(read, event);
          return undefined;
        }
        // A partial reader gets a submodel event without the submodel (it holds elements they may not see).
        if (entity === "submodel") payload = scope.whole;
        else if (event.idShortPath === undefined ? !scope.whole : !scope.covers(event.idShortPath)) {
          // An element on the way to what the caller may read (`C` for a grant on `C.Ok`): a change
          // made through it may change that part, and a GET of it shows them that part, so the
          // event comes with only that part. An Operation has no readable parts below it.
          if (entity !== "element" || event.idShortPath === undefined || !scope.leadsBelow(event.idShortPath))
            return undefined;
          // Only an element that can hold the granted part is on the way (element-on-the-way.ts):
          // the events of a Property at `C` carried its value to a reader of `C.Ok` (a black-box
          // finding). An event without the element (a deletion, a large payload) names only paths.
          if (
            event.payload !== undefined &&
            !event.payloadOmitted &&
            elementShown(scope, event.idShortPath, (event.payload as { modelType?: unknown }).modelType) === undefined
          )
            return undefined;
          partOf = scope;
        }
        // Who may read an Operation learns that it ran; its arguments and result need EXECUTE, as
        // …/operation-results does (docs/security.md).
        if (entity === "operation" && !(await this.mayExecute(event))) payload = false;
      }
    }
    if (filter.semanticId !== undefined) {
      if (entity === "shell" || entity === "concept-description") return undefined;
      // A submodel event says which semanticId the submodel has (a deletion: had), even without it.
      const own =
        entity === "submodel"
          ? semanticIdOfEvent(event)?.semanticId
          : event.payloadOmitted
            ? undefined
            : (event.payload as { semanticId?: unknown } | undefined)?.semanticId;
      if (own === undefined || !referenceMatches(own, filter.semanticId)) {
        const semantics = await hub.semantics.semanticsOf(event.id);
        if (!referenceMatches(semantics?.semanticId, filter.semanticId)) return undefined;
      }
    }
    return partOf === undefined ? { payload } : { payload, partOf };
  }

  private async mayExecute(event: ChangeEvent): Promise<boolean> {
    const { execute } = this.options;
    if (execute === undefined || execute.all) return execute !== undefined;
    const scope = await this.submodelScope(execute, event);
    return scope !== undefined && (event.idShortPath === undefined ? scope.whole : scope.covers(event.idShortPath));
  }

  /**
   * What one right reached of the event's submodel when the event happened: by id first, by
   * semanticId when a grant names one and the semanticId the submodel had then is known. A
   * replayed event from before the submodel's current semanticId (it was another, or the id named
   * a submodel since deleted) goes by the grants by id alone (docs/events.md, Access control).
   */
  private async submodelScope(grants: RightGrants, event: ChangeEvent) {
    const byId = grants.submodelById(event.id);
    if (byId?.whole || !grants.bySemanticId) return byId;
    const semantics = await this.semanticsThen(event);
    if (semantics === undefined) return byId;
    return grants.submodel({ id: event.id, semanticIds: referenceKeyValues(semantics.semanticId) });
  }

  /**
   * The semanticId the event's submodel had when it happened, when known. A submodel event says it
   * itself (a deletion: the one the deleted submodel had); an element event goes by the submodel's
   * last event this stream passed, else asks the catalog.
   */
  private semanticsThen(event: ChangeEvent) {
    // Asked once per event: submodelScope asks, and tellUndecided again for an event it left out
    // (a catalog lookup, or a store read with up to a second of catch-up).
    if (this.semanticsAsked?.event !== event)
      this.semanticsAsked = {
        event,
        answer: (async () =>
          semanticIdOfEvent(event) ??
          this.passed.semanticsOf(event.id) ??
          (await this.options.hub.semantics.semanticsAt(event.id, event.seq)))(),
      };
    return this.semanticsAsked.answer;
  }

  /**
   * An event left out because no one knows whether a grant by semanticId covered it then (from
   * before the gateway started, say), of a submodel the caller may read now: a silent gap would
   * let the client go on with a state it missed a change of. It gets a `reset` at the event
   * instead (once per submodel and stream), naming the submodel to read again. A caller who may not
   * read the submodel now learns nothing.
   */
  private async tellUndecided(read: RightGrants, event: ChangeEvent): Promise<void> {
    if (!read.bySemanticId || this.toldUndecided.has(event.id)) return;
    if ((await this.semanticsThen(event)) !== undefined) return;
    const now = await this.options.hub.semantics.semanticsOf(event.id);
    if (now === undefined) return;
    const scope = read.submodel({ id: event.id, semanticIds: referenceKeyValues(now.semanticId) });
    const path = event.idShortPath;
    // The path alone (the event may carry no element): covered, or on the way to what is.
    if (scope === undefined || (path !== undefined && !scope.covers(path) && !scope.leadsBelow(path))) return;
    this.toldUndecided.add(event.id);
    if (this.toldUndecided.size > MAX_TOLD) this.toldUndecided.delete(this.toldUndecided.values().next().value!);
    this.write(
      controlMessage(
        "reset",
        {
          ...(this.position !== undefined ? { after: this.position } : {}),
          latest: event.seq,
          submodelId: event.id,
          reason:
            "an event of this submodel was left out: whether you could read it when it happened is not known; read the submodel again",
        },
        event.seq,
      ),
    );
  }

  /**
   * Queues text for the client. The queue is bounded in bytes (maxBufferedBytes, on top of what
   * the socket holds): a client that does not keep up gets `overflow` and the stream ends, rather
   * than the server buffering without limit.
   */
  private write(text: string): void {
    if (this.ended) return;
    this.enqueue(encoder.encode(text));
    if ((this.controller.desiredSize ?? 0) < 0)
      this.overflow(`more than ${this.options.hub.settings.maxBufferedBytes} bytes waited for the client`);
  }

  private enqueue(bytes: Uint8Array): void {
    if (bytes.length <= PIECE_BYTES) return this.controller.enqueue(bytes);
    for (let at = 0; at < bytes.length; at += PIECE_BYTES)
      this.controller.enqueue(bytes.subarray(at, at + PIECE_BYTES));
  }

  private overflow(reason: string): void {
    this.finish(
      controlMessage("overflow", { reason, ...(this.position !== undefined ? { lastSeq: this.position } : {}) }),
    );
    this.cutWhenStalled();
  }

  /**
   * After an overflow nothing more is queued; what is, the client may still take at its pace. The
   * connection is cut only once a whole grace passes in which it took nothing: a client that stopped
   * reading goes (its socket and buffers with it), one that reads slowly gets its `overflow` event.
   */
  private cutWhenStalled(): void {
    const { taken, abort } = this.options;
    let seen = taken?.();
    const check = () => {
      const now = taken?.();
      if (now === undefined || seen === undefined || now <= seen) return abort();
      seen = now;
      this.abortTimer = setTimeout(check, OVERFLOW_GRACE_MS);
      this.abortTimer.unref?.();
    };
    this.abortTimer = setTimeout(check, OVERFLOW_GRACE_MS);
    this.abortTimer.unref?.();
  }

  /** The last message, then the end of the response. */
  private finish(last: string): void {
    if (this.ended) return;
    try {
      this.enqueue(encoder.encode(last));
      this.controller.close();
    } catch {
      // The client already went away.
    }
    this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.roomWaiter?.();
    this.roomWaiter = undefined;
    clearInterval(this.heartbeat);
    this.expiryTimer?.cancel();
    this.queue.length = 0;
    this.options.hub.detach(this);
  }
}
