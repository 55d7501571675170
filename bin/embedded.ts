import { hostname } from "node:os";
import { EventHub, rulesGrantBySemanticId, startHttpEndpoint } from "@twinport/http-gateway";
import type { RedisRepository } from "@twinport/model-store";
import {
  aasxLimitsOf,
  type CommandHandler,
  ConfigError,
  compileAccessPolicy,
  connectNats,
  createCachingStoreClient,
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createMemoryRepository,
  createNatsEventBus,
  createOperationProviderRegistry,
  displayUrl,
  type EventBus,
  eventLogReader,
  eventsConfigOf,
  FILE_STORAGE_FILESYSTEM_CLASS,
  forgetPackageRecords,
  importProgressLines,
  isHttpEndpoint,
  isOpcUaEndpoint,
  isoDurationToMs,
  loadModelFiles,
  MESSAGE_BUS_NATS_CLASS,
  type MutableOperationProviderRegistry,
  meteredCommandHandler,
  meteredEventBus,
  mqttPublishingFor,
  type NatsConnection,
  natsConnectionState,
  PERSISTENCE_REDIS_CLASS,
  packageSweepLine,
  type ReadinessCheck,
  type Repository,
  type RoleContext,
  type RunningRole,
  type StartSummary,
  startProgress,
  withStreamsFrom,
} from "@twinport/shared";
import { openEmbeddedFileStore } from "./open-file-store.ts";

const API_PREFIX = "/api/v3.0";

/** Closes in reverse order of opening; failures of one step do not keep the others open. */
class Closer {
  private readonly steps: (() => Promise<unknown>)[] = [];
  add(step: () => Promise<unknown>): void {
    this.steps.unshift(step);
  }
  async closeAll(): Promise<void> {
    for (const step of this.steps.splice(0)) await step().catch(() => undefined);
  }
}

/**
 * Embedded mode, the one place the three services meet: the engine with its repository (memory,
 * or Redis when the configuration names it) and bus (in-process, or NATS), reached by a direct
 * call from every configured endpoint.
 */
export interface EmbeddedOptions {
  /** Who runs Operations: asset connections register into it. Default: a new, empty registry. */
  operationProviders?: MutableOperationProviderRegistry;
  /** How long an interrupted package write's heartbeat stands still before it is rolled back (engine default 2 min; tests shorten it). */
  packageIntentStaleMs?: number;
}

export async function startEmbedded(context: RoleContext, options: EmbeddedOptions = {}): Promise<RunningRole> {
  const { config } = context;
  const closer = new Closer();
  const details: Record<string, unknown> = {};
  const { metrics, logger } = context;
  // What /ready asks: the backends this configuration uses (memory and the in-process bus need none).
  const readiness: ReadinessCheck[] = [];
  try {
    let bus: EventBus;
    // Gaps in the NATS event stream are filled from the store's log through the engine made below.
    let engineForGaps: CommandHandler | undefined;
    if (config.messageBus["@class"] === MESSAGE_BUS_NATS_CLASS) {
      const nats = natsConnectionState(metrics, logger);
      const connection: NatsConnection = await connectNats({
        url: config.messageBus.url,
        name: "twinport-embedded",
        onChange: nats.onChange,
      });
      nats.connected();
      readiness.push(nats.readiness);
      closer.add(() => connection.close());
      bus = createNatsEventBus({ connection, fetchEvents: eventLogReader(() => engineForGaps) });
      details.nats = displayUrl(config.messageBus.url);
    } else {
      bus = createInProcessEventBus();
    }
    closer.add(() => bus.close());

    let repository: Repository;
    let redisRepository: RedisRepository | undefined;
    if (config.persistence["@class"] === PERSISTENCE_REDIS_CLASS) {
      // Loaded only when used: ioredis and node-opcua (about 2 s of start-up) stay out of a run without them.
      const {
        createRedisRepository,
        keeperProblems,
        startOutboxKeeper,
        storeLostMessage,
        watchRedisAnswers,
        watchStoreLost,
      } = await import("@twinport/model-store");
      // Loading the model and the outbox keeper need Redis: the start waits for it, as the
      // model-store's does (Redis may come up later or be loading its data).
      // A Redis Cluster is the distributed model-store's (docs/redis-cluster.md): this process's
      // file store, outbox keeper and lost-data watch talk to one Redis. Ignored, the setting left
      // the process on the default redis://127.0.0.1:6379, writing to whatever Redis is there (a
      // black-box finding).
      if (config.persistence.cluster !== undefined)
        throw new ConfigError(
          "persistence.cluster (a Redis Cluster) is served by the distributed mode's model-store (docs/redis-cluster.md); embedded mode keeps its model in one Redis at persistence.url: remove cluster, or run the model-store and gateways",
        );
      const redisShown = displayUrl(config.persistence.url);
      const redis = await createRedisRepository({
        // Redis lost the store's data (store-incarnation.ts): this process's caches, its OPC UA
        // mirror and its subscribers' positions all belong to the old data. Crash-only, as the
        // model-store: the error line, exit 1, and the restart opens the store afresh.
        onStoreLost: () =>
          void redis.incarnationState().then(
            (state) => state !== "held" && storeLost(state),
            () => storeLost("lost"),
          ),
        url: config.persistence.url,
        keyPrefix: config.persistence.keyPrefix,
        onCommitCall: (commits, seconds, failed) => metrics.observeCommitCall(commits, seconds, failed),
        waitForRedis: (problem) =>
          logger.warn(
            { redis: redisShown, problem },
            `Redis at ${redisShown} does not answer (${problem}); waiting for it, the start goes on once it does`,
          ),
      });
      redisRepository = redis;
      closer.add(() => redis.close());
      const storeLost = (state: "lost" | "replaced") =>
        context.fail(storeLostMessage(redisShown, state, redis.incarnation()));
      const lostWatch = watchStoreLost(redis, storeLost);
      closer.add(async () => lostWatch.stop());
      // As in the model-store (docs/adr/0018): the engine publishes each commit's event, the outbox
      // is the event log, and the keeper sends heartbeats and trims the log.
      const keeper = await startOutboxKeeper({
        repository: redis,
        bus,
        owner: `embedded-${hostname()}-${process.pid}`,
        retention: eventsConfigOf(config.events).retentionMaxEvents,
        retentionMaxAgeMs: eventsConfigOf(config.events).retentionMaxAgeMs,
        onError: keeperProblems(logger),
      });
      closer.add(() => keeper.stop());
      repository = redis;
      const redisClient = redis.redis;
      // As the model-store: ready means Redis answers a PING, not just that its connection is up (a
      // stopped or stuck Redis keeps its connection while every read and write fails), and
      // twinport_backend_up{backend="redis"} follows both that and ioredis' own reconnects.
      const redisAnswers = watchRedisAnswers(redisClient, {
        onChange: (ready) => metrics.setBackendUp("redis", ready),
      });
      closer.add(async () => redisAnswers.stop());
      readiness.push({ name: "redis", ready: () => redisAnswers.ready() });
      metrics.setBackendUp("redis", redisAnswers.ready());
      for (const change of ["ready", "close", "end", "reconnecting"])
        redisClient.on(change, () => metrics.setBackendUp("redis", redisAnswers.ready()));
      details.redis = redisShown;
    } else {
      const { retentionMaxEvents, retentionMaxAgeMs } = eventsConfigOf(config.events);
      repository = createMemoryRepository({ eventLog: { maxEvents: retentionMaxEvents, maxAgeMs: retentionMaxAgeMs } });
      closer.add(() => repository.close());
    }

    // Compiled once: the engine checks commands with it, the event stream filters events by it.
    const accessPolicy = config.security ? compileAccessPolicy(config.security.rules) : undefined;
    const fileStore = await openEmbeddedFileStore(config);
    closer.add(() => fileStore.close());
    // The model in memory went with the last stop; files kept in a folder did not. What that folder
    // says of the old model's packages and imports is dropped, the files themselves stay.
    if (!redisRepository && config.fileStorage["@class"] === FILE_STORAGE_FILESYSTEM_CLASS) {
      const forgotten = await forgetPackageRecords(fileStore);
      if (forgotten > 0)
        logger.warn(
          { component: "packages", forgotten },
          "the model is kept in memory and was lost at the last stop: the AASX package and import records of that run in fileStorage.path are dropped (their files stay)",
        );
    }
    const operationProviders = options.operationProviders ?? createOperationProviderRegistry();
    // Progress lines while the model files load (a large model takes a while).
    const importLines = importProgressLines((fields, line) => logger.info(fields, line), "loading the model files");
    // Components started later (asset connections) push theirs: the engine keeps this array.
    const resetHooks: (() => Promise<void>)[] = [];
    // On Redis, other processes may hold asset-connection leases: /reset forgets the positions they
    // forwarded up to, so no holder forwards a change made before it (docs/adr/0059).
    if (redisRepository) {
      const { forgetForwardedPositions } = await import("@twinport/model-store");
      const redis = redisRepository;
      resetHooks.push(() => forgetForwardedPositions(redis.redis, (name) => redis.key(name)));
    }
    const engine = createEngine({
      importProgress: importLines.onCommit,
      onPackageSweep: (report) => {
        const { level, message } = packageSweepLine(report);
        logger[level]({ component: "packages", ...report }, message);
      },
      resetHooks,
      repository,
      bus,
      publishEvents: true,
      validation: {
        onLoad: context.validateOnLoad,
        onCreate: config.core.validationOnCreate,
        onUpdate: config.core.validationOnUpdate,
      },
      fileStore,
      aasxLimits: aasxLimitsOf(config.core),
      maxNestingDepth: config.core.maxNestingDepth,
      operationProviders,
      operationHandleTtlMs: isoDurationToMs(config.core.operationHandleTtl),
      maxRunningOperations: config.core.maxRunningOperations,
      idempotencyWindowMs: isoDurationToMs(config.core.idempotencyWindow),
      ...(options.packageIntentStaleMs !== undefined ? { packageIntentStaleMs: options.packageIntentStaleMs } : {}),
      // With a security section every command that carries a principal is checked (docs/adr/0024).
      ...(accessPolicy ? { access: accessPolicy } : {}),
    });
    closer.add(() => engine.close());
    engineForGaps = engine;
    // Commands per type and failures per code, and one log line per write with its correlation id.
    const store = createDirectStoreClient(meteredCommandHandler(engine, metrics, logger));
    closer.add(() => store.close());

    // Change events to an MQTT broker (docs/events-mqtt.md): durable from the event log on Redis, else buffered in memory.
    const mqttPublishing = mqttPublishingFor(config.messageBus);
    if (mqttPublishing) {
      const { startEventPublishing } = await import("@twinport/model-store");
      const publishing = await startEventPublishing({
        config: mqttPublishing,
        bus,
        ...(redisRepository
          ? {
              redis: {
                repository: redisRepository,
                fetchEvents: eventLogReader(() => engine),
                owner: `embedded-${hostname()}-${process.pid}`,
              },
            }
          : {}),
        log: (message) => context.log(`twinport embedded: ${message}`),
      });
      closer.add(() => publishing.stop());
      details.mqtt = publishing.broker;
    }

    // A persistent store keeps what it has: the models only seed an empty one.
    const loading = startProgress((fields, line) => logger.info(fields, line), {
      task: "loading the model files",
      finished: "loaded the model files",
      unit: "elements",
    });
    const models = await importLines.during(() =>
      loadModelFiles(
        // The files are read by the engine itself, in chunks (docs/adr/0037), not sent whole in a command.
        {
          execute: (command) => store.execute(command),
          importModelFiles: (request) => engine.importModelFiles(request),
        },
        context.models,
        { validate: context.validateOnLoad, onlyIfEmpty: true },
      ),
    );
    if (!models.skipped && context.models.length > 0) {
      loading.finish(
        `${models.shells} shells, ${models.submodels} submodels, ${models.conceptDescriptions} concept descriptions`,
        models.elements,
      );
    }
    if (models.skipped) context.log("twinport embedded: the store already holds data; the model files were not loaded");

    if (config.assetConnections.length > 0 || config.submodelTemplateProcessors.length > 0) {
      // Connecting happens in the background: an unreachable asset never delays start-up.
      const { startAssetConnections, redisConnectionLeases, soleOwnerLeases, dropConfiguredConnectionsOnReset } =
        await import("@twinport/model-store");
      const owner = `embedded-${hostname()}-${process.pid}`;
      const assets = await startAssetConnections({
        connections: config.assetConnections,
        processors: config.submodelTemplateProcessors,
        store,
        bus,
        operationProviders,
        // Several embedded processes on one Redis run each connection once, like model-store replicas.
        leases: redisRepository
          ? redisConnectionLeases({ redis: redisRepository.redis, key: (name) => redisRepository!.key(name), owner })
          : soleOwnerLeases,
        retryIntervalMs: config.core.assetConnectionRetryInterval,
        readTimeoutMs: config.core.assetConnectionReadTimeout,
        log: context.log,
        warn: (line) => logger.warn({ component: "asset-connections" }, line),
        logger,
      });
      closer.add(() => assets.stop());
      // /reset drops the configuration file's connections, in every process on the same Redis (spec §4.2).
      closer.add(
        await dropConfiguredConnectionsOnReset({
          connections: assets,
          resetHooks,
          ...(redisRepository
            ? { redis: { redis: redisRepository.redis, key: (name) => redisRepository!.key(name), owner } }
            : {}),
          log: context.log,
        }),
      );
      details.assetConnections = assets.status().map(({ name, kind, endpoint }) => ({ name, kind, endpoint }));
      // What the AIMC processor derived at start-up and what it skipped (later changes are logged).
      if (config.submodelTemplateProcessors.length > 0) details.assetInterfaces = assets.interfaces();
    }

    if (config.core.aasRegistries.length > 0 || config.core.submodelRegistries.length > 0) {
      // In the background: an unreachable registry never delays start-up or a request.
      const { startRegistrySync, redisRegistrySyncLease } = await import("@twinport/model-store");
      const registries = startRegistrySync({
        core: config.core,
        httpEndpoints: config.endpoints.filter(isHttpEndpoint),
        store,
        bus,
        // Several embedded processes on one Redis register once, like model-store replicas.
        ...(redisRepository
          ? {
              lease: redisRegistrySyncLease({
                redis: redisRepository.redis,
                key: (name) => redisRepository!.key(name),
                owner: `embedded-${hostname()}-${process.pid}`,
              }),
            }
          : {}),
        log: context.log,
        warn: (line) => logger.warn({ component: "registry-sync" }, line),
      });
      if (registries) {
        closer.add(() => registries.stop());
        details.registryDescriptorsPointAt = registries.advertised;
      }
    }

    const http: string[] = [];
    // Told when the shutdown begins (RunningRole.draining): answers say Connection: close from then on.
    const drainers: (() => void)[] = [];
    const summary: StartSummary = {
      http: [],
      opcua: [],
      ...(models.skipped
        ? { model: { kept: "the store already holds data; the model files were not loaded" } }
        : context.models.length > 0
          ? {
              model: {
                files: models.files,
                shells: models.shells,
                submodels: models.submodels,
                elements: models.elements,
                conceptDescriptions: models.conceptDescriptions,
              },
            }
          : {}),
      backends: {
        ...(typeof details.redis === "string" ? { Redis: details.redis } : {}),
        ...(typeof details.nats === "string" ? { NATS: details.nats } : {}),
      },
    };
    const httpEndpoints = config.endpoints.filter(isHttpEndpoint);
    // HTTP reads answered from a cache the change events keep current (docs/adr/0014), as in the
    // http-gateway: a large submodel is assembled once per change instead of once per request.
    const { readCacheMaxAgeMs, readCacheMaxBytes } = config.messageBus;
    const httpCache =
      httpEndpoints.length > 0 && readCacheMaxAgeMs > 0
        ? await createCachingStoreClient(store, {
            bus,
            maxAgeMs: readCacheMaxAgeMs,
            maxBytes: readCacheMaxBytes,
            log: (line) => logger.warn({ component: "read-cache" }, line),
          })
        : undefined;
    // Whole-model serialization streams straight from the engine (docs/adr/0034).
    const httpStore = httpCache ? withStreamsFrom(httpCache, store) : store;
    if (httpCache) {
      const disposeCacheSource = metrics.addReadCacheSource(() => httpCache.stats());
      closer.add(async () => {
        disposeCacheSource();
        await httpCache.close();
      });
    }
    // GET /events (issue 15): replays from the store's log (memory or Redis) through the engine.
    const events = new EventHub({
      bus,
      store,
      settings: eventsConfigOf(config.events),
      ...(accessPolicy ? { policy: accessPolicy } : {}),
    });
    if (rulesGrantBySemanticId(config.security?.rules)) await events.watch();
    for (const configured of httpEndpoints) {
      const { "@class": _class, ...settings } = configured;
      const endpoint = await startHttpEndpoint({
        store: httpStore,
        settings,
        configPath: `endpoints[${config.endpoints.indexOf(configured)}]`,
        stateDir: config.core.stateDir,
        metrics,
        logger,
        security: config.security,
        events,
        // The memory store answers within the turn: the hot route gathers a turn's requests
        // (docs/adr/0056). A Redis repository answers from its own replies, grouped per call.
        gatherTurns: redisRepository === undefined,
      });
      closer.add(() => endpoint.close());
      drainers.push(() => endpoint.draining());
      http.push(`${endpoint.url}${API_PREFIX}`);
      summary.http!.push(endpoint.summary);
    }
    // Added after the endpoints, so it runs before them: open streams end with a final event
    // instead of holding the endpoints' drain.
    closer.add(() => events.close());
    const opcua: string[] = [];
    const opcuaEndpoints = config.endpoints.filter(isOpcUaEndpoint);
    if (opcuaEndpoints.length > 0) {
      const { startOpcuaGateway } = await import("@twinport/opcua-gateway");
      for (const endpoint of opcuaEndpoints) {
        // The mirror's subscription measures event lag (commit → delivery) for /metrics.
        const gateway = await startOpcuaGateway({
          store,
          bus: meteredEventBus(bus, metrics),
          endpoint,
          configPath: `endpoints[${config.endpoints.indexOf(endpoint)}]`,
          stateDir: config.core.stateDir,
          log: context.log,
          security: config.security,
          logger,
        });
        closer.add(() => gateway.stop());
        const disposeSource = metrics.addOpcuaSource(() => gateway.load());
        closer.add(async () => disposeSource());
        opcua.push(gateway.endpointUrl);
        summary.opcua!.push(gateway.summary);
      }
    }
    return {
      details: { http, opcua, ...details },
      summary,
      stop: () => closer.closeAll(),
      draining: () => {
        for (const drain of drainers) drain();
      },
      readiness,
    };
  } catch (error) {
    await closer.closeAll();
    throw error;
  }
}
