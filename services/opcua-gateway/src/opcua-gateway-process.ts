import {
  ConfigError,
  connectNats,
  createNatsEventBus,
  createNatsStoreClient,
  isOpcUaEndpoint,
  MESSAGE_BUS_NATS_CLASS,
  type RunningRole,
  type TwinportConfig,
} from "@twinport/shared";
import type { LogLine } from "./node-opcua-logging.ts";
import { startOpcuaGateway, type RunningOpcuaGateway } from "./start-opcua-gateway.ts";

/**
 * The opcua-gateway process: every OpcUaEndpoint of the configuration, with the model-store
 * reached over NATS (commands) and its change events (address-space sync).
 */
export async function startOpcuaGatewayProcess(config: TwinportConfig, options: { log?: LogLine } = {}): Promise<RunningRole> {
  const { messageBus } = config;
  if (messageBus["@class"] !== MESSAGE_BUS_NATS_CLASS) {
    throw new ConfigError(`The opcua-gateway reaches the model-store over NATS: messageBus must be ${MESSAGE_BUS_NATS_CLASS} (it is ${messageBus["@class"]})`);
  }
  const endpoints = config.endpoints.filter(isOpcUaEndpoint);
  if (endpoints.length === 0) throw new ConfigError("The configuration has no OPC UA endpoint (endpoint.opcua.OpcUaEndpoint) for the opcua-gateway to serve");

  const connection = await connectNats({ url: messageBus.url, name: "opcua-gateway" });
  const store = createNatsStoreClient({ connection, requestTimeoutMs: messageBus.requestTimeoutMs });
  const bus = createNatsEventBus({ connection });
  const started: RunningOpcuaGateway[] = [];
  const stop = async () => {
    await Promise.allSettled(started.map((gateway) => gateway.stop()));
    await bus.close();
    await store.close();
    await connection.close();
  };
  try {
    for (const endpoint of endpoints) {
      started.push(await startOpcuaGateway({ store, bus, endpoint, stateDir: config.core.stateDir, log: options.log }));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { details: { opcua: started.map((gateway) => gateway.endpointUrl) }, stop };
}
