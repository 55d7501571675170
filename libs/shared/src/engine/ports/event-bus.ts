import type { ChangeEvent, Heartbeat } from "../../contracts/index.ts";

export interface EventSubscription {
  unsubscribe(): Promise<void>;
}

export interface EventHandlers {
  /** Committed events in seq order (a gap only where the bus could not fill it). */
  onEvent(event: ChangeEvent): void;
  /**
   * An event arrived ahead of earlier ones and is held until they come (it will still reach onEvent
   * in order). For subscribers that must react at once, e.g. a cache that must stop serving what
   * the event changes.
   */
  onEventHeld?(event: ChangeEvent): void;
  onHeartbeat?(heartbeat: Heartbeat): void;
  /** The transport lost its connection: events are missed from now on, until onReconnect. */
  onDisconnect?(): void;
  /** The transport reconnected: events may have been missed, so the subscriber should resync. */
  onReconnect?(): void;
  /**
   * A heartbeat named a store incarnation this subscription had not seen (docs/adr/0018, amendment
   * "Redis that comes back empty"): Redis lost the store's data and the sequence began again, so
   * every position and everything held from before belongs to data that is gone. The bus has
   * forgotten its own position; the subscriber forgets its own and resyncs. Without this handler
   * the subscriber gets onReconnect.
   */
  onStoreReplaced?(): void;
}

/**
 * Change events, delivered in publish order to every subscriber (fan-out, not a queue).
 * Implementations: in-process (engine/memory), NATS (bus/).
 */
export interface EventBus {
  publish(event: ChangeEvent): Promise<void>;
  publishHeartbeat(heartbeat: Heartbeat): Promise<void>;
  subscribe(handlers: EventHandlers): Promise<EventSubscription>;
  /**
   * Resolves once every event the transport had routed to this process before the call has been
   * handed to its subscribers. Absent where delivery is already in step (in-process).
   */
  barrier?(): Promise<void>;
  close(): Promise<void>;
}
