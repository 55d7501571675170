import {
  ConfigError,
  compileAccessPolicy,
  connectNats,
  createCachingStoreClient,
  createNatsEventBus,
  createNatsStoreClient,
  createRevalidatedReads,
  displayUrl,
  eventLogReader,
  eventsConfigOf,
  isHttpEndpoint,
  type Logger,
  MESSAGE_BUS_NATS_CLASS,
  type NatsConnection,
  natsConnectionState,
  type ProcessMetrics,
  type RunningRole,
  type StoreClient,
  SYSTEM,
  type TwinportConfig,
  withStreamsFrom,
} from "@twinport/shared";
import { EventHub } from "./events/event-hub.ts";
import { rulesGrantBySemanticId } from "./events/semantic-grants.ts";
import { unsecuredGatewayCheck } from "./events/unsecured-gateway-check.ts";
import { type RunningHttpEndpoint, startHttpEndpoint } from "./start-http-endpoint.ts";

/** The path every AAS API URL starts with (spec §4.1). */
export const API_PREFIX = "/api/v3.0";

export interface HttpGatewayOptions {
  /** From runRole: request metrics and logs; both absent when a test starts the gateway alone. */
  metrics?: ProcessMetrics;
  logger?: Logger;
}

/**
 * The http-gateway process: every HttpEndpoint of the configuration, answering through the
 * model-store over NATS. Holds no state; run as many replicas as needed.
 */
export async function startHttpGateway(config: TwinportConfig, options: HttpGatewayOptions = {}): Promise<RunningRole> {
  const { messageBus } = config;
  if (messageBus["@class"] !== MESSAGE_BUS_NATS_CLASS) {
    throw new ConfigError(
      `The http-gateway reaches the model-store over NATS: messageBus must be ${MESSAGE_BUS_NATS_CLASS} (it is ${messageBus["@class"]})`,
    );
  }
  const endpoints = config.endpoints.filter(isHttpEndpoint);
  if (endpoints.length === 0)
    throw new ConfigError(
      "The configuration has no HTTP endpoint (endpoint.http.HttpEndpoint) for the http-gateway to serve",
    );

  const { metrics, logger } = options;
  const nats = metrics && logger ? natsConnectionState(metrics, logger) : undefined;
  const connection: NatsConnection = await connectNats({
    url: messageBus.url,
    name: "http-gateway",
    ...(nats ? { onChange: nats.onChange } : {}),
  });
  nats?.connected();
  const remote = createNatsStoreClient({ connection, requestTimeoutMs: messageBus.requestTimeoutMs });
  // Reads answered from a cache the store's change events keep current (docs/adr/0014).
  const bus = createNatsEventBus({ connection, fetchEvents: eventLogReader(() => remote, SYSTEM) });
  const cache =
    messageBus.readCacheMaxAgeMs > 0
      ? await createCachingStoreClient(remote, {
          bus,
          maxAgeMs: messageBus.readCacheMaxAgeMs,
          maxBytes: messageBus.readCacheMaxBytes,
          log: (line) => logger?.warn({ component: "read-cache" }, line),
        })
      : undefined;
  // Without the cache every read still asks the store, naming the revision of the answer held from
  // last time: an unchanged answer does not cross NATS again (docs/adr/0026). Whole-model
  // serialization streams straight from the store either way (docs/adr/0034).
  const store: StoreClient = withStreamsFrom(
    cache ?? createRevalidatedReads(remote, { maxBytes: messageBus.readCacheMaxBytes }),
    remote,
  );
  const disposeCacheSource = cache && metrics ? metrics.addReadCacheSource(() => cache.stats()) : undefined;
  // GET /events of every endpoint: one subscription, replays from the model-store's log (issue 15).
  const events = new EventHub({
    bus,
    store: remote,
    settings: eventsConfigOf(config.events),
    ...(config.security
      ? { policy: compileAccessPolicy(config.security.rules) }
      : {
          checkUnfilteredStream: unsecuredGatewayCheck(remote, (line) => logger?.warn({ component: "events" }, line)),
        }),
  });
  if (rulesGrantBySemanticId(config.security?.rules)) await events.watch();
  const started: RunningHttpEndpoint[] = [];
  // Graceful: the endpoints drain their in-flight requests first, which still need NATS to answer.
  const stop = async () => {
    // Open event streams get their final event first; they would otherwise hold the drain.
    await events.close();
    await Promise.allSettled(started.map((endpoint) => endpoint.close()));
    disposeCacheSource?.();
    await store.close();
    await bus.close();
    await connection.close();
  };
  try {
    for (const endpoint of endpoints) {
      const { "@class": _class, ...settings } = endpoint;
      started.push(
        await startHttpEndpoint({
          store,
          settings,
          configPath: `endpoints[${config.endpoints.indexOf(endpoint)}]`,
          stateDir: config.core.stateDir,
          metrics,
          logger,
          security: config.security,
          events,
          storeMayHaveRules: true,
        }),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    details: { http: started.map((endpoint) => `${endpoint.url}${API_PREFIX}`) },
    summary: { http: started.map((endpoint) => endpoint.summary), backends: { NATS: displayUrl(messageBus.url) } },
    stop,
    draining: () => {
      for (const endpoint of started) endpoint.draining();
    },
    readiness: nats ? [nats.readiness] : [],
  };
}
