import type {
  AccessPolicy,
  ChangeEvent,
  CommandResult,
  EventBus,
  EventSubscription,
  EventsConfig,
  StoreClient,
} from "@twinport/shared";
import { SYSTEM } from "@twinport/shared";
import { SubmodelSemanticsCatalog } from "./submodel-semantics.ts";

/** One open event stream, as the hub sees it (event-stream.ts). */
export interface LiveListener {
  /** A committed event, in seq order (a gap only where the bus lost one: the listener fills it). */
  live(event: ChangeEvent): void;
  /** The store's seq from the keeper's heartbeat: every event up to it is committed. */
  committed(seq: number): void;
  /** The server is stopping: say goodbye and end. */
  shutdown(): void;
}

export interface EventHubDeps {
  /** The ordered, gap-filling subscription (bus/event-order.ts over NATS, or the in-process bus). */
  bus: EventBus;
  /** Where GetEvents and submodel metadata are read, as the process itself (SYSTEM). */
  store: StoreClient;
  settings: EventsConfig;
  /** With a security section: the compiled rules each stream filters by (docs/adr/0024). */
  policy?: AccessPolicy;
  /**
   * Without one, in distributed mode: throws when a stream must not open (the model-store has rules
   * this process cannot filter by; unsecured-gateway-check.ts).
   */
  checkUnfilteredStream?: () => Promise<void>;
}

export type EventLogPage = CommandResult<"GetEvents">;

/**
 * The process's side of every event stream (docs/adr/0029): one bus subscription, taken when the
 * first stream opens and kept, fanned out to every open stream; the event log (GetEvents, served
 * by any model-store, or the engine in embedded mode) for what a stream must replay; the submodel
 * semanticIds the filters and rules need. Shared by all HTTP endpoints of the process.
 */
export class EventHub {
  readonly semantics: SubmodelSemanticsCatalog;
  private readonly listeners = new Set<LiveListener>();
  private subscription: Promise<EventSubscription> | undefined;
  private closed = false;

  constructor(readonly deps: EventHubDeps) {
    this.semantics = new SubmodelSemanticsCatalog(deps.store);
  }

  get settings(): EventsConfig {
    return this.deps.settings;
  }

  get policy(): AccessPolicy | undefined {
    return this.deps.policy;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Takes the bus subscription now rather than at the first stream, when access rules grant by
   * semanticId: the catalog knows since when a submodel's semanticId holds only from the events it
   * saw, so a replay decides by semanticId only what happened while the hub watched (docs/adr/0029).
   * A failure is not the process's: the first stream subscribes again.
   */
  async watch(): Promise<void> {
    await this.subscribe().catch(() => undefined);
  }

  /** Start hearing live events (before the stream reads the log, so nothing falls between). */
  async attach(listener: LiveListener): Promise<void> {
    await this.subscribe();
    this.listeners.add(listener);
  }

  private async subscribe(): Promise<void> {
    if (this.closed) throw new Error("the event hub is closed");
    this.subscription ??= this.deps.bus.subscribe({
      onEvent: (event) => {
        this.semantics.learn(event);
        for (const each of this.listeners) each.live(event);
      },
      onHeartbeat: (heartbeat) => {
        for (const each of this.listeners) each.committed(heartbeat.seq);
      },
    });
    try {
      await this.subscription;
    } catch (error) {
      this.subscription = undefined;
      throw error;
    }
  }

  detach(listener: LiveListener): void {
    this.listeners.delete(listener);
  }

  get openStreams(): number {
    return this.listeners.size;
  }

  /** Committed events after `after` from the log; undefined when the store does not answer. */
  async readLog(after: number, limit: number): Promise<EventLogPage | undefined> {
    const reply = await this.deps.store
      .execute({ type: "GetEvents", params: { after, limit }, principal: SYSTEM })
      .catch(() => undefined);
    return reply?.ok ? reply.value : undefined;
  }

  /** Ends every stream with a final `shutdown` event (SIGTERM, endpoint close). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const each of [...this.listeners]) each.shutdown();
    this.listeners.clear();
    const subscription = await this.subscription?.catch(() => undefined);
    await subscription?.unsubscribe().catch(() => undefined);
  }
}
