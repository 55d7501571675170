import type {
  ElementJson,
  HttpOperationProviderConfig,
  HttpSubscriptionProviderConfig,
  HttpValueProviderConfig,
  MqttSubscriptionProviderConfig,
  MqttValueProviderConfig,
  OpcUaOperationProviderConfig,
  OpcUaSubscriptionProviderConfig,
  OpcUaValueProviderConfig,
  OperationProvider,
  ProviderTarget,
} from "@twinport/shared";

/** A value read from an asset, turned into a model value once the element is known. */
export interface AssetReading {
  /** Equal keys mean equal values: a source passes on a value only when its key changed. */
  key: string;
  /** The ValueOnly body (JSON text) that gives the element this value; throws when it does not fit. */
  bodyFor(element: ElementJson): string;
}

export interface PushSink {
  reading(reading: AssetReading): void;
  /** A reading that could not be taken; the source goes on delivering. */
  error(error: unknown): void;
  /**
   * The source can deliver nothing more (an OPC UA monitored item whose node went away): the runner
   * stops it and starts it again with back-off, as one that could not start.
   */
  ended(error: unknown): void;
}

/**
 * Where asset values come from: polled (HTTP; `intervalMs` 0 = once each time the connection
 * becomes active) or pushed (OPC UA monitored items; `start` resolves to its stop function).
 */
export type ReadSource =
  | { mode: "poll"; intervalMs: number; read(signal: AbortSignal): Promise<AssetReading> }
  | { mode: "push"; start(sink: PushSink): Promise<() => Promise<void>>; readOnce?(): Promise<AssetReading> };

export interface ValueProviderRuntime {
  target: ProviderTarget;
  /** Absent when readWriteMode forbids reading. */
  read?: ReadSource;
  /** Absent when readWriteMode forbids writing. Throws AssetError. */
  write?(element: ElementJson): Promise<void>;
}

export interface SubscriptionProviderRuntime {
  target: ProviderTarget;
  read: ReadSource;
}

/** A failure talking to an asset. `retryable`: worth trying again later (unreachable, 5xx), not a refusal (4xx, Bad status). */
export class AssetError extends Error {
  readonly retryable: boolean;
  constructor(message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "AssetError";
    this.retryable = options.retryable;
  }
}

export type ProviderConfigs =
  | {
      kind: "http";
      value: HttpValueProviderConfig;
      subscription: HttpSubscriptionProviderConfig;
      operation: HttpOperationProviderConfig;
    }
  | {
      kind: "opcua";
      value: OpcUaValueProviderConfig;
      subscription: OpcUaSubscriptionProviderConfig;
      operation: OpcUaOperationProviderConfig;
    }
  | {
      kind: "mqtt";
      value: MqttValueProviderConfig;
      subscription: MqttSubscriptionProviderConfig;
      /** MQTT has none (the configuration refuses them, as FA³ST does). */
      operation: never;
    };

/**
 * One protocol's side of an asset connection. The runner decides when to connect (the lease
 * holder, with retries); providers are made once and work whenever the connection is open.
 */
export interface AssetConnectionDriver<C extends ProviderConfigs = ProviderConfigs> {
  readonly kind: C["kind"];
  /** The asset's address for logs and status (base URL, OPC UA endpoint). */
  readonly endpoint: string;
  /**
   * True when `connect` reaches nothing (HTTP only makes a client): the runner then says
   * "configured", and the driver itself says "connected" once a request to the asset succeeded.
   */
  readonly connectsOnFirstRequest?: boolean;
  /** Opens what reading needs (OPC UA: session and subscription); throws when the asset cannot be reached. */
  connect(): Promise<void>;
  /** Closes what `connect` opened. Operation calls may still open a connection of their own. */
  disconnect(): Promise<void>;
  /** Told when an open connection broke by itself, so the runner reconnects. */
  onLost(listener: (reason: string) => void): void;
  valueProvider(target: ProviderTarget, config: C["value"]): ValueProviderRuntime;
  subscriptionProvider(target: ProviderTarget, config: C["subscription"]): SubscriptionProviderRuntime;
  operationProvider(target: ProviderTarget, config: C["operation"]): OperationProvider;
  /** Releases everything, for good. */
  close(): Promise<void>;
}

export type Log = (line: string) => void;
