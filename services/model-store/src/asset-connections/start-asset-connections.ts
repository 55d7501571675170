import {
  ASSET_CONNECTION_KNOWN_PROPERTIES,
  HTTP_ASSET_CONNECTION_CLASS,
  isBelow,
  MQTT_ASSET_CONNECTION_CLASS,
  OPCUA_ASSET_CONNECTION_CLASS,
  providerTarget,
  type AssetConnectionConfig,
  type CertificateConfig,
  type ChangeEvent,
  type ElementJson,
  type EventBus,
  type EventSubscription,
  type HttpAssetConnectionConfig,
  type MqttAssetConnectionConfig,
  type MutableOperationProviderRegistry,
  type OpcUaAssetConnectionConfig,
  type StoreClient,
} from "@twinport/shared";
import type { AssetConnectionDriver, Log } from "./asset-connection-types.ts";
import { soleOwnerLeases, type ConnectionLeases } from "./connection-lease.ts";
import { ConnectionRunner, type AssetConnectionStatus } from "./connection-runner.ts";
import { ElementSync } from "./element-sync.ts";
import { createHttpDriver } from "./http-driver.ts";
import { findKeyStore, readKeyStore } from "./keystore.ts";
import { mergeConnections, type MergedConnection } from "./merge-connections.ts";
import { ASSET_ORIGIN, createModelPort } from "./model-port.ts";

export interface AssetConnectionsOptions {
  /** `assetConnections` of the configuration, validated. */
  connections: readonly AssetConnectionConfig[];
  /** Where values go and Operation declarations come from: this process's engine. */
  store: StoreClient;
  /** The store's change events: model changes made through an endpoint are forwarded to assets. */
  bus: EventBus;
  /** Operation providers are registered here in every process; the engine finds them on invoke. */
  operationProviders: MutableOperationProviderRegistry;
  /** Who runs each connection's reading and writing; default: this process (embedded on memory). */
  leases?: ConnectionLeases;
  /** core.assetConnectionRetryInterval: first retry delay, doubled up to ten times it. */
  retryIntervalMs: number;
  /** core.assetConnectionReadTimeout: bound of one HTTP request to an asset. */
  readTimeoutMs: number;
  log: Log;
}

export interface RunningAssetConnections {
  status(): AssetConnectionStatus[];
  stop(): Promise<void>;
}

/** Element changes that are written through to the asset (FA³ST: PATCH $value, PUT/PATCH and POST of elements). */
const ELEMENT_CHANGES = new Set(["element.value-changed", "element.updated", "element.created"]);
/** Whole-submodel writes: FA³ST reads the asset again instead of writing to it. */
const SUBMODEL_CHANGES = new Set(["submodel.created", "submodel.updated"]);

function unknownProperties(config: AssetConnectionConfig, index: number): string[] {
  const record = config as Record<string, unknown>;
  const kind = config["@class"] === HTTP_ASSET_CONNECTION_CLASS ? "http" : config["@class"] === MQTT_ASSET_CONNECTION_CLASS ? "mqtt" : "opcua";
  const known = ASSET_CONNECTION_KNOWN_PROPERTIES[kind];
  const providers = {
    valueProviders: ASSET_CONNECTION_KNOWN_PROPERTIES[`${kind}Value`],
    subscriptionProviders: ASSET_CONNECTION_KNOWN_PROPERTIES[`${kind}Subscription`],
    operationProviders: ASSET_CONNECTION_KNOWN_PROPERTIES[`${kind}Operation`],
  };
  const found = Object.keys(record)
    .filter((key) => !(known as readonly string[]).includes(key))
    .map((key) => `assetConnections[${index}].${key}`);
  for (const [kind, names] of Object.entries(providers)) {
    for (const [reference, provider] of Object.entries((record[kind] ?? {}) as Record<string, Record<string, unknown>>)) {
      for (const key of Object.keys(provider)) if (!(names as readonly string[]).includes(key)) found.push(`assetConnections[${index}].${kind}["${reference}"].${key}`);
    }
  }
  return found;
}

/** The PEM certificates of a connection's `trustedCertificates` key store (HTTP, and MQTT's TLS). */
function trustedCertificatesOf(settings: CertificateConfig | undefined, index: number): string[] | undefined {
  if (!settings?.keyStorePath) return undefined;
  const file = findKeyStore(settings.keyStorePath, ".");
  if (!file) throw new Error(`assetConnections[${index}].trustedCertificates: key store ${settings.keyStorePath} not found`);
  return readKeyStore(file, settings, `assetConnections[${index}].trustedCertificates`).certificates;
}

async function driverFor(connection: MergedConnection, options: AssetConnectionsOptions, log: Log): Promise<AssetConnectionDriver | undefined> {
  const config = connection.config;
  switch (config["@class"]) {
    case HTTP_ASSET_CONNECTION_CLASS: {
      const http = config as HttpAssetConnectionConfig;
      const trustedCertificates = trustedCertificatesOf(http.trustedCertificates, connection.index);
      return createHttpDriver({ config: http, trustedCertificates, readTimeoutMs: options.readTimeoutMs, store: options.store, log });
    }
    case OPCUA_ASSET_CONNECTION_CLASS: {
      // node-opcua-client takes a second to load: only processes with an OPC UA connection pay for it.
      const { createOpcuaDriver } = await import("./opcua-driver.ts");
      return createOpcuaDriver({ config: config as OpcUaAssetConnectionConfig, store: options.store, log });
    }
    case MQTT_ASSET_CONNECTION_CLASS: {
      const mqttConfig = config as MqttAssetConnectionConfig;
      const trustedCertificates = trustedCertificatesOf(mqttConfig.trustedCertificates, connection.index);
      // mqtt.js is loaded only by processes with an MQTT connection.
      const { createMqttDriver } = await import("./mqtt-driver.ts");
      return createMqttDriver({ config: mqttConfig, trustedCertificates, timeoutMs: options.readTimeoutMs, log });
    }
    default:
      return undefined;
  }
}

/**
 * Starts every configured asset connection in this process and returns at once: connecting,
 * retrying and reading happen in the background, so an unreachable asset never delays start-up.
 *
 * - Operation providers are registered in every process (any model-store replica may execute an
 *   invocation); an OPC UA one opens a session on demand where the connection does not run.
 * - Value and subscription providers run only where the connection's lease is held (one replica),
 *   reading into the model with origin "asset" and forwarding model changes from other origins.
 */
export async function startAssetConnections(options: AssetConnectionsOptions): Promise<RunningAssetConnections> {
  const merged = mergeConnections(options.connections, (line) => options.log(`twinport asset-connections: ${line}`));
  const leases = options.leases ?? soleOwnerLeases;
  const model = createModelPort(options.store);
  const sync = new ElementSync(model, (line) => options.log(`twinport asset-connections: ${line}`));
  const runners: ConnectionRunner[] = [];
  const disposers: (() => void)[] = [];
  let subscription: EventSubscription | undefined;

  const stop = async () => {
    await subscription?.unsubscribe().catch(() => undefined);
    subscription = undefined;
    for (const dispose of disposers.splice(0)) dispose();
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  };

  try {
    for (const connection of merged) {
      const name = `assetConnections[${connection.merged.join(",")}]`;
      const log: Log = (line) => options.log(`twinport asset-connection ${name}: ${line}`);
      for (const index of connection.merged) {
        const ignored = unknownProperties(options.connections[index]!, index);
        if (ignored.length > 0) log(`ignored properties (FA³ST ignores them too): ${ignored.join(", ")}`);
      }
      const driver = await driverFor(connection, options, log);
      if (!driver) continue;
      const config = connection.config as HttpAssetConnectionConfig | OpcUaAssetConnectionConfig | MqttAssetConnectionConfig;
      const drive = driver as AssetConnectionDriver<never>;
      const values = Object.entries(config.valueProviders).map(([key, provider]) => drive.valueProvider(providerTarget(key), provider as never));
      const subscriptions = Object.entries(config.subscriptionProviders).map(([key, provider]) => drive.subscriptionProvider(providerTarget(key), provider as never));
      const operations = Object.entries(config.operationProviders);
      for (const [key, provider] of operations) {
        const target = providerTarget(key);
        disposers.push(options.operationProviders.register(target.submodelId, target.idShortPath, drive.operationProvider(target, provider as never)));
      }
      const runner = new ConnectionRunner({
        name,
        driver,
        values,
        subscriptions,
        operationCount: operations.length,
        sync,
        lease: leases.lease(connection.id),
        retryIntervalMs: options.retryIntervalMs,
        log,
      });
      runners.push(runner);
    }

    // Events arrive in commit order; they are handled one after another, so writes keep that order.
    let queue = Promise.resolve();
    const forward = async (event: ChangeEvent) => {
      if (event.origin === ASSET_ORIGIN) return;
      if (SUBMODEL_CHANGES.has(event.kind)) {
        for (const runner of runners) for (const target of runner.targets()) if (target.submodelId === event.id) void runner.modelChanged(target, undefined);
        return;
      }
      if (!ELEMENT_CHANGES.has(event.kind) || event.idShortPath === undefined) return;
      const path = event.idShortPath;
      for (const runner of runners) {
        for (const target of runner.targets()) {
          if (target.submodelId !== event.id || !(target.idShortPath === path || isBelow(target.idShortPath, path))) continue;
          const exact = target.idShortPath === path && event.payload !== undefined && !event.payloadOmitted;
          const element = exact ? (event.payload as ElementJson) : await model.read(target);
          // Not awaited: a slow asset must not hold up the events behind it (each element keeps its own order).
          if (element) void runner.modelChanged(target, element);
        }
      }
    };
    if (runners.length > 0) {
      subscription = await options.bus.subscribe({
        onEvent(event) {
          queue = queue.then(() => forward(event)).catch((error: unknown) => options.log(`twinport asset-connections: forwarding a change failed: ${(error as Error).message}`));
        },
      });
    }
    for (const runner of runners) runner.start();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    status: () => runners.map((runner) => runner.status()),
    stop,
  };
}
