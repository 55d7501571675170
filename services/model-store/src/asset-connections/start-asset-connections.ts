import {
  type AssetConnectionConfig,
  type EventBus,
  type Logger,
  type MutableOperationProviderRegistry,
  type StoreClient,
  type SubmodelTemplateProcessorConfig,
} from "@twinport/shared";
import {
  type AssetInterfacesStatus,
  type RunningAimcProcessor,
  startAimcProcessor,
} from "../asset-interfaces/aimc-processor.ts";
import { AssetConnectionManager, CONFIG_OWNER, type OwnedConnectionStatus } from "./asset-connection-manager.ts";
import type { Log } from "./asset-connection-types.ts";
import { checkConnectionNodeIds } from "./check-node-ids.ts";
import { operationTargetWarnings } from "./check-operation-targets.ts";
import { overlappingProviderWarnings } from "./check-overlapping-providers.ts";
import { checkConnectionQueries } from "./check-queries.ts";
import { driverFor } from "./connection-drivers.ts";
import type { ConnectionLeases } from "./connection-lease.ts";
import type { MergedConnection } from "./merge-connections.ts";
import { createModelPort } from "./model-port.ts";

export interface AssetConnectionsOptions {
  /** `assetConnections` of the configuration, validated. */
  connections: readonly AssetConnectionConfig[];
  /** `submodelTemplateProcessors` of the configuration: the AIMC processor derives more connections at runtime. */
  processors?: readonly SubmodelTemplateProcessorConfig[];
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
  /**
   * Warnings: settings that start but can never do anything, providers that read into one element,
   * and a lease holder's catch-up that could not forward every client write. Default: `log`.
   */
  warn?: Log;
  /** The process's structured logger: node-opcua-client's own lines go to it at their levels. */
  logger?: Logger;
}

export interface RunningAssetConnections {
  /** Every running connection, hand-configured ("config") and derived from AIMCs (owner = the AIMC's id). */
  status(): OwnedConnectionStatus[];
  /** Per AIMC: how many connections it runs and what it skipped (empty without the AIMC processor). */
  interfaces(): AssetInterfacesStatus[];
  /** Resolves once the AIMC processor has applied every change seen so far. */
  idle(): Promise<void>;
  /**
   * Stops the connections of the configuration file and unregisters their operation providers, for
   * good in this process (/reset, spec §4.2); those derived from AIMCs stay, they follow their
   * submodels. Returns the names of the stopped connections.
   */
  dropConfigured(): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Starts every configured asset connection in this process and, with an AIMC processor
 * configured, those its AIMC submodels describe; returns once they are set up: connecting,
 * retrying and reading happen in the background, so an unreachable asset never delays start-up.
 *
 * - Operation providers are registered in every process (any model-store replica may execute an
 *   invocation); an OPC UA one opens a session on demand where the connection does not run.
 * - Value and subscription providers run only where the connection's lease is held (one replica),
 *   reading into the model with origin "asset" and forwarding model changes from other origins.
 */
export async function startAssetConnections(options: AssetConnectionsOptions): Promise<RunningAssetConnections> {
  checkConnectionQueries(options.connections);
  checkConnectionNodeIds(options.connections);
  const manager = new AssetConnectionManager({
    store: options.store,
    bus: options.bus,
    operationProviders: options.operationProviders,
    leases: options.leases,
    retryIntervalMs: options.retryIntervalMs,
    log: options.log,
    ...(options.warn ? { warn: options.warn } : {}),
    async createDriver(connection, _owner, log) {
      return driverFor(
        connection,
        {
          store: options.store,
          readTimeoutMs: options.readTimeoutMs,
          ...(options.logger ? { logger: options.logger } : {}),
        },
        log,
      );
    },
  });
  let processor: RunningAimcProcessor | undefined;
  const nameOf = (connection: MergedConnection) => `assetConnections[${connection.merged.join(",")}]`;
  try {
    const configured = await manager.apply(CONFIG_OWNER, options.connections, nameOf);
    for (const line of configured.problems) options.log(`twinport asset-connections: ${line}`);
    const warn = options.warn ?? options.log;
    for (const line of overlappingProviderWarnings(options.connections)) warn(`twinport asset-connections: ${line}`);
    for (const line of await operationTargetWarnings(options.connections, createModelPort(options.store)))
      warn(`twinport asset-connections: ${line}`);
    const [aimc, ...others] = options.processors ?? [];
    if (others.length > 0)
      options.log(
        `twinport asset-interfaces: submodelTemplateProcessors lists ${others.length + 1} AIMC processors; the first one is used`,
      );
    if (aimc)
      processor = await startAimcProcessor({
        config: aimc,
        store: options.store,
        bus: options.bus,
        connections: manager,
        retryIntervalMs: options.retryIntervalMs,
        log: options.log,
        warn,
      });
  } catch (error) {
    await manager.stop();
    throw error;
  }
  return {
    status: () => manager.status(),
    interfaces: () => processor?.status() ?? [],
    idle: async () => processor?.idle(),
    dropConfigured: async () => (await manager.apply(CONFIG_OWNER, [], nameOf)).stopped,
    async stop() {
      await processor?.stop();
      await manager.stop();
    },
  };
}
