import {
  ConfigError,
  connectNats,
  createNatsEventBus,
  createNatsStoreClient,
  displayUrl,
  eventLogReader,
  isOpcUaEndpoint,
  type Logger,
  MESSAGE_BUS_NATS_CLASS,
  meteredEventBus,
  natsConnectionState,
  type ProcessMetrics,
  type RunningRole,
  SYSTEM,
  type TwinportConfig,
} from "@twinport/shared";
import type { LogLine } from "./node-opcua-logging.ts";
import { refuseOpenMirrorOfSecuredStore } from "./security/open-mirror-check.ts";
import { type RunningOpcuaGateway, startOpcuaGateway } from "./start-opcua-gateway.ts";

export interface OpcuaGatewayProcessOptions {
  log?: LogLine;
  /** From runRole: sessions/subscriptions, event lag and NATS state; absent in tests without a process. */
  metrics?: ProcessMetrics;
  logger?: Logger;
}

/**
 * The opcua-gateway process: every OpcUaEndpoint of the configuration, with the model-store
 * reached over NATS (commands) and its change events (address-space sync).
 */
export async function startOpcuaGatewayProcess(
  config: TwinportConfig,
  options: OpcuaGatewayProcessOptions = {},
): Promise<RunningRole> {
  const { messageBus } = config;
  if (messageBus["@class"] !== MESSAGE_BUS_NATS_CLASS) {
    throw new ConfigError(
      `The opcua-gateway reaches the model-store over NATS: messageBus must be ${MESSAGE_BUS_NATS_CLASS} (it is ${messageBus["@class"]})`,
    );
  }
  const endpoints = config.endpoints.filter(isOpcUaEndpoint);
  if (endpoints.length === 0)
    throw new ConfigError(
      "The configuration has no OPC UA endpoint (endpoint.opcua.OpcUaEndpoint) for the opcua-gateway to serve",
    );

  const { metrics, logger } = options;
  const nats = metrics && logger ? natsConnectionState(metrics, logger) : undefined;
  const connection = await connectNats({
    url: messageBus.url,
    name: "opcua-gateway",
    ...(nats ? { onChange: nats.onChange } : {}),
  });
  nats?.connected();
  const store = createNatsStoreClient({ connection, requestTimeoutMs: messageBus.requestTimeoutMs });
  const natsBus = createNatsEventBus({ connection, fetchEvents: eventLogReader(() => store, SYSTEM) });
  const bus = metrics ? meteredEventBus(natsBus, metrics) : natsBus;
  const started: RunningOpcuaGateway[] = [];
  const disposers: (() => void)[] = [];
  // Each gateway waits secondsTillShutdown for its clients before closing (spec), all in parallel.
  const stop = async () => {
    for (const dispose of disposers.splice(0)) dispose();
    await Promise.allSettled(started.map((gateway) => gateway.stop()));
    await bus.close();
    await store.close();
    await connection.close();
  };
  try {
    // Without rules of its own, the gateway must not serve a SYSTEM-built mirror of a secured store.
    if (config.security === undefined)
      await refuseOpenMirrorOfSecuredStore(store, (line) =>
        logger ? logger.warn({ component: "opcua" }, line) : options.log?.(line),
      );
    for (const endpoint of endpoints) {
      // startOpcuaGateway resolves once the address space is built from a store snapshot.
      const gateway = await startOpcuaGateway({
        store,
        bus,
        endpoint,
        configPath: `endpoints[${config.endpoints.indexOf(endpoint)}]`,
        stateDir: config.core.stateDir,
        log: options.log,
        security: config.security,
        ...(logger ? { logger } : {}),
      });
      started.push(gateway);
      if (metrics) disposers.push(metrics.addOpcuaSource(() => gateway.load()));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    details: { opcua: started.map((gateway) => gateway.endpointUrl) },
    summary: { opcua: started.map((gateway) => gateway.summary), backends: { NATS: displayUrl(messageBus.url) } },
    stop,
    readiness: nats ? [nats.readiness] : [],
  };
}
