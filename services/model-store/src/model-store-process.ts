import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  aasxLimitsOf,
  type CommandHandler,
  ConfigError,
  compileAccessPolicy,
  connectNats,
  createDirectStoreClient,
  createEngine,
  createNatsEventBus,
  createOperationProviderRegistry,
  displayUrl,
  eventLogReader,
  eventsConfigOf,
  importProgressLines,
  isHttpEndpoint,
  isoDurationToMs,
  type Logger,
  MESSAGE_BUS_NATS_CLASS,
  type ModelFile,
  type MutableOperationProviderRegistry,
  meteredCommandHandler,
  natsConnectionState,
  PERSISTENCE_REDIS_CLASS,
  type ProcessMetrics,
  packageSweepLine,
  type ReadinessCheck,
  type RunningRole,
  serveCommandsOverNats,
  startProgress,
  type TwinportConfig,
} from "@twinport/shared";
import { dropConfiguredConnectionsOnReset } from "./asset-connections/configured-connections-reset.ts";
import { redisConnectionLeases } from "./asset-connections/connection-lease.ts";
import { forgetForwardedPositions } from "./asset-connections/forwarded-position.ts";
import { startAssetConnections } from "./asset-connections/start-asset-connections.ts";
import { commandRefusals } from "./command-refusals.ts";
import { startEventPublishing } from "./event-publishing/start-event-publishing.ts";
import { openModelStoreFileStore } from "./open-file-store.ts";
import { keeperProblems } from "./outbox/keeper-problems.ts";
import { startOutboxKeeper } from "./outbox/outbox-keeper.ts";
import { watchRedisAnswers } from "./redis/redis-answers.ts";
import { createRedisRepository, type RedisRepository } from "./redis/redis-repository.ts";
import { isStoreLost } from "./redis/store-incarnation.ts";
import { announceStoreLost, storeLostMessage, watchStoreLost } from "./redis/store-lost-watch.ts";
import { waitForRedis } from "./redis/wait-for-redis.ts";
import { startRegistrySync } from "./registry-sync/registry-sync.ts";
import { redisRegistrySyncLease } from "./registry-sync/sync-lease.ts";
import { seedModels } from "./seed-models.ts";

/** After Redis failed a seeding attempt, the pause before the next (it may still be going away). */
const SEED_RETRY_MS = 1000;

/**
 * Redis could not be reached, or a commit got no answer (its outcome unknown, so it may be applied:
 * the next seeding attempt steps over what is there). Matched by name through the causes, as the
 * engine may wrap them.
 */
function redisFailed(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause)
    if (e.name === "RepositoryUnavailableError" || e.name === "RepositoryOutcomeUnknownError") return true;
  return false;
}

export interface ModelStoreOptions {
  /** Seed models: loaded once, under a lock, only into an empty store. */
  models?: readonly ModelFile[];
  validateOnLoad?: boolean;
  /** Unique per replica; names the holder of the relay and seed leases. Default: host-pid-random. */
  owner?: string;
  log?: (line: string) => void;
  /**
   * Who runs Operations in this replica: asset connections register their operation providers into
   * it. Default: a new, empty registry (every invocation then fails with "no operation provider").
   */
  operationProviders?: MutableOperationProviderRegistry;
  /** Lease of this replica while it runs asynchronous invocations (engine default 10 s; tests shorten it). */
  operationLeaseMs?: number;
  /** How long an interrupted package write's heartbeat stands still before it is rolled back (engine default 2 min; tests shorten it). */
  packageIntentStaleMs?: number;
  /** From runRole: commands per type and failures per code, NATS/Redis state, command logs. */
  metrics?: ProcessMetrics;
  logger?: Logger;
  /**
   * From runRole: end the process with this error line (crash-only, docs/adr/0018 amendment "Redis
   * that comes back empty"). Without it (a model-store inside a test) the line is logged and /ready
   * answers 503 for good.
   */
  fail?: (message: string) => void;
}

/**
 * The model-store process: the engine on the Redis repository, serving commands from the
 * gateways over NATS (queue group: each command reaches one replica). Each replica publishes the
 * events of its own commits right after they commit; the Redis outbox is the event log subscribers
 * fill gaps from, and one replica at a time (the outbox keeper) sends heartbeats and trims it
 * (docs/adr/0018).
 */
export async function startModelStore(config: TwinportConfig, options: ModelStoreOptions = {}): Promise<RunningRole> {
  const { persistence, messageBus } = config;
  if (persistence["@class"] !== PERSISTENCE_REDIS_CLASS) {
    throw new ConfigError(
      `The model-store keeps its state in Redis: persistence must be ${PERSISTENCE_REDIS_CLASS} (it is ${persistence["@class"]})`,
    );
  }
  if (messageBus["@class"] !== MESSAGE_BUS_NATS_CLASS) {
    throw new ConfigError(
      `The model-store serves the gateways over NATS: messageBus must be ${MESSAGE_BUS_NATS_CLASS} (it is ${messageBus["@class"]}); to publish change events to MQTT as well, add an "mqtt" object to it (docs/events-mqtt.md)`,
    );
  }
  const owner = options.owner ?? `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
  const log = options.log ?? (() => {});
  const validateOnLoad = options.validateOnLoad ?? config.core.validationOnLoad;
  const closing: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const step of closing.splice(0).reverse())
      await step().catch((error: unknown) => log(`twinport model-store: while stopping: ${(error as Error).message}`));
  };

  // A cluster shows its nodes (docs/redis-cluster.md).
  const redisShown = persistence.cluster
    ? persistence.cluster.nodes.map(displayUrl).join(",")
    : displayUrl(persistence.url);
  try {
    const { metrics, logger } = options;
    // A line of the start-up: through the logger when the process has one (the CLI), else plain.
    const say = (level: "info" | "warn", line: string) =>
      logger ? logger[level]({ redis: redisShown }, line) : log(`twinport model-store: ${line}`);
    // Redis may come up after the model-store (Kubernetes has no depends_on; Redis restarted or is
    // loading its data): seeding, the filter index build and the leases need it, so the start waits
    // for it instead of failing; /health answers meanwhile and /ready says 503 (docs/operations.md).
    let waitingSince: number | undefined;
    const waitingForRedis = (problem: string) => {
      waitingSince ??= Date.now();
      metrics?.setBackendUp("redis", false);
      say(
        "warn",
        `Redis at ${redisShown} does not answer (${problem}); the model-store waits for it and starts once it does`,
      );
    };
    // Redis lost the store's data once this replica serves (store-incarnation.ts): set further down.
    let storeLostNow: () => void = () => {};
    const repository = await createRedisRepository({
      onStoreLost: () => storeLostNow(),
      url: persistence.url,
      keyPrefix: persistence.keyPrefix,
      waitForRedis: waitingForRedis,
      ...(persistence.cluster ? { cluster: persistence.cluster } : {}),
      onTermIndexBuild: (report) =>
        report.state === "built"
          ? logger?.info(
              { indexed: report.indexed, ms: report.ms },
              "filter index built for a store written before it (docs/adr/0035)",
            )
          : logger?.warn(
              { err: report.error, retryInMs: report.retryInMs },
              "filter index build failed; filtered lists scan until it is built; retrying",
            ),
      ...(metrics
        ? {
            onCommitCall: (commits: number, seconds: number, failed: boolean) =>
              metrics.observeCommitCall(commits, seconds, failed),
          }
        : {}),
    });
    closing.push(() => repository.close());
    if (waitingSince !== undefined) {
      say(
        "info",
        `Redis at ${redisShown} answers after ${Math.round((Date.now() - waitingSince) / 1000)} s of waiting; starting`,
      );
    }
    // Ready means Redis answers, not just that its connection is up (redis-answers.ts).
    // The gauge follows both: a Redis that stops answering (onChange) and ioredis' own reconnects.
    const redisAnswers = watchRedisAnswers(repository.redis, {
      onChange: (ready) => metrics?.setBackendUp("redis", ready),
    });
    closing.push(async () => redisAnswers.stop());
    const redisReady = () => redisAnswers.ready();
    if (metrics) {
      metrics.setBackendUp("redis", redisReady());
      for (const change of ["ready", "close", "end", "reconnecting"])
        repository.redis.on(change, () => metrics.setBackendUp("redis", redisReady()));
    }
    const nats = metrics && logger ? natsConnectionState(metrics, logger) : undefined;
    const connection = await connectNats({
      url: messageBus.url,
      name: "model-store",
      ...(nats ? { onChange: nats.onChange } : {}),
    });
    nats?.connected();
    closing.push(() => connection.drain());
    // Gaps are filled from the log through this replica's own engine (set below, before any event).
    let engineForGaps: CommandHandler | undefined;
    const bus = createNatsEventBus({ connection, fetchEvents: eventLogReader(() => engineForGaps) });
    closing.push(() => bus.close());
    const fileStore = await openModelStoreFileStore(config, persistence);
    closing.push(() => fileStore.close());
    const operationProviders = options.operationProviders ?? createOperationProviderRegistry();
    // Progress lines while the model files load (a large model takes a while).
    const importLines = importProgressLines((fields, line) => logger?.info(fields, line), "loading the model files");
    // Components started later (asset connections) push theirs: the engine keeps this array.
    // After the hooks components add in front (asset connections stop first): the saved forwarded
    // positions go, so no holder forwards a change made before the reset (docs/adr/0059).
    const resetHooks: (() => Promise<void>)[] = [
      () => forgetForwardedPositions(repository.redis, (name) => repository.key(name)),
    ];
    const engine = createEngine({
      importProgress: importLines.onCommit,
      resetHooks,
      repository,
      operationProviders,
      operationHandleTtlMs: isoDurationToMs(config.core.operationHandleTtl),
      maxRunningOperations: config.core.maxRunningOperations,
      idempotencyWindowMs: isoDurationToMs(config.core.idempotencyWindow),
      operationLeaseMs: options.operationLeaseMs,
      ...(options.packageIntentStaleMs !== undefined ? { packageIntentStaleMs: options.packageIntentStaleMs } : {}),
      onPackageSweep: (report) => {
        const { level, message } = packageSweepLine(report);
        logger?.[level]({ component: "packages", ...report }, message);
      },
      bus,
      publishEvents: true,
      recordCacheSize: 10_000,
      renderedSubmodelBytes: 64 * 1024 * 1024,
      validation: {
        onLoad: validateOnLoad,
        onCreate: config.core.validationOnCreate,
        onUpdate: config.core.validationOnUpdate,
      },
      fileStore,
      aasxLimits: aasxLimitsOf(config.core),
      maxNestingDepth: config.core.maxNestingDepth,
      // With a security section every command that carries a principal is checked (docs/adr/0024).
      ...(config.security ? { access: compileAccessPolicy(config.security.rules) } : {}),
    });
    closing.push(() => engine.close());
    engineForGaps = engine;
    const keeper = await startOutboxKeeper({
      repository,
      bus,
      owner,
      retention: eventsConfigOf(config.events).retentionMaxEvents,
      retentionMaxAgeMs: eventsConfigOf(config.events).retentionMaxAgeMs,
      onError: logger
        ? keeperProblems(logger)
        : (error) => log(`twinport model-store: outbox keeper: ${(error as Error).message}`),
    });
    closing.push(() => keeper.stop());

    // One replica at a time publishes to MQTT, from the event log (docs/adr/0030).
    let mqttBroker: string | undefined;
    if (messageBus.mqtt) {
      const publishing = await startEventPublishing({
        config: messageBus.mqtt,
        bus,
        redis: { repository, fetchEvents: eventLogReader(() => engine), owner },
        log: (message) => log(`twinport model-store: ${message}`),
      });
      closing.push(() => publishing.stop());
      mqttBroker = publishing.broker;
    }

    const models = options.models ?? [];
    const loading = startProgress((fields, line) => logger?.info(fields, line), {
      task: "loading the model files",
      finished: "loaded the model files",
      unit: "elements",
    });
    // Redis going away while the model files load (a restart, a failover) is waited out like a late
    // start; the seed lock (ours still) and the markers let the next attempt load what is missing.
    const seedWhileRedisAnswers = async () => {
      for (;;) {
        try {
          return await seedModels(repository, owner, engine, models, validateOnLoad);
        } catch (error) {
          // Nothing has been served yet, so a Redis that came back empty is a fresh start: a new
          // incarnation, and the seed lock and markers (gone with the data) load everything again.
          if (isStoreLost(error)) {
            say(
              "warn",
              "Redis came back without the store's data while the model files were loading; loading them again",
            );
            await repository.readoptIncarnation();
            continue;
          }
          if (repository.redis.status === "ready" && !redisFailed(error)) throw error;
          say(
            "warn",
            `Redis went away while the model files were loading (${(error as Error).message}); loading what is missing once it answers`,
          );
          await new Promise((resolve) => setTimeout(resolve, SEED_RETRY_MS));
          await waitForRedis(repository.redis, waitingForRedis);
        }
      }
    };
    const seeded = models.length > 0 ? await importLines.during(seedWhileRedisAnswers) : undefined;
    if (seeded && !seeded.skipped) {
      loading.finish(
        `${seeded.shells} shells, ${seeded.submodels} submodels, ${seeded.conceptDescriptions} concept descriptions`,
        seeded.elements,
      );
    }
    if (seeded?.skipped) log("twinport model-store: the store already holds data; the model files were not loaded");
    if (seeded?.resumed)
      log(
        "twinport model-store: an earlier model-store died while loading the model files; the missing identifiables were loaded now",
      );

    // From here on this replica serves: data lost in Redis ends it (crash-only, store-lost-watch.ts).
    let storeLost = false;
    let stopServing = async (): Promise<void> => {};
    const onStoreLost = (state: "lost" | "replaced") => {
      if (storeLost) return;
      storeLost = true;
      const message = storeLostMessage(redisShown, state, repository.incarnation());
      // No more commands here (a gateway resyncing now must not wait on a process about to end, it
      // gets "no model-store" at once and retries), then subscribers hear it at once, not when the
      // restarted store beats: caches and positions go now.
      void announceStoreLost(bus, repository.incarnation(), stopServing).finally(() => {
        if (options.fail) return options.fail(message);
        if (logger) logger.error({ redis: redisShown }, message);
        else log(`twinport model-store: ${message}`);
      });
    };
    storeLostNow = () =>
      void repository.incarnationState().then(
        (state) => state !== "held" && onStoreLost(state),
        () => onStoreLost("lost"),
      );
    const lostWatch = watchStoreLost(repository, onStoreLost);
    closing.push(async () => lostWatch.stop());

    const handler = metrics && logger ? meteredCommandHandler(engine, metrics, logger) : engine;
    // With security configured, a command that comes without a principal is anonymous (issue 13).
    // Each refusal is a 503 at some gateway: the log says why, a line per burst (command-refusals.ts).
    const refusals = logger ? commandRefusals(logger) : undefined;
    const responder = await serveCommandsOverNats({
      connection,
      handler,
      anonymousWithoutPrincipal: config.security !== undefined,
      ...(refusals ? { onRefused: refusals.note } : {}),
    });
    closing.push(async () => {
      await responder.close();
      refusals?.flush();
    });
    stopServing = () => responder.close();

    // Every replica registers the operation providers; the lease holder of each connection reads and writes its values.
    const assets =
      config.assetConnections.length === 0 && config.submodelTemplateProcessors.length === 0
        ? undefined
        : await startAssetConnections({
            connections: config.assetConnections,
            processors: config.submodelTemplateProcessors,
            store: createDirectStoreClient(engine),
            bus,
            operationProviders,
            leases: redisConnectionLeases({ redis: repository.redis, key: (name) => repository.key(name), owner }),
            retryIntervalMs: config.core.assetConnectionRetryInterval,
            readTimeoutMs: config.core.assetConnectionReadTimeout,
            log,
            ...(logger
              ? { logger, warn: (line: string) => logger.warn({ component: "asset-connections" }, line) }
              : {}),
          });
    if (assets) closing.push(() => assets.stop());
    // /reset drops the configuration file's connections in every replica (spec §4.2).
    if (assets) {
      const redis = { redis: repository.redis, key: (name: string) => repository.key(name), owner };
      closing.push(await dropConfiguredConnectionsOnReset({ connections: assets, resetHooks, redis, log }));
    }

    // Every replica is ready to; the holder of the one registry-sync lease talks to the registries.
    const registries = startRegistrySync({
      core: config.core,
      httpEndpoints: config.endpoints.filter(isHttpEndpoint),
      store: createDirectStoreClient(engine),
      bus,
      lease: redisRegistrySyncLease({ redis: repository.redis, key: (name) => repository.key(name), owner }),
      log,
      ...(options.logger ? { warn: (line: string) => options.logger!.warn({ component: "registry-sync" }, line) } : {}),
    });
    if (registries) closing.push(() => registries.stop());

    return {
      details: {
        redis: redisShown,
        keyPrefix: persistence.keyPrefix,
        nats: displayUrl(messageBus.url),
        ...(mqttBroker ? { mqtt: mqttBroker } : {}),
        ...(registries ? { registryDescriptorsPointAt: registries.advertised } : {}),
        ...(assets
          ? { assetConnections: assets.status().map(({ name, kind, endpoint }) => ({ name, kind, endpoint })) }
          : {}),
        ...(assets && config.submodelTemplateProcessors.length > 0 ? { assetInterfaces: assets.interfaces() } : {}),
        ...(seeded
          ? {
              model: seeded.skipped
                ? "kept (store not empty)"
                : {
                    files: seeded.files,
                    shells: seeded.shells,
                    submodels: seeded.submodels,
                    conceptDescriptions: seeded.conceptDescriptions,
                  },
            }
          : {}),
      },
      summary: {
        backends: { Redis: redisShown, NATS: displayUrl(messageBus.url) },
        ...(seeded
          ? {
              model: seeded.skipped
                ? { kept: "the store already holds data; the model files were not loaded" }
                : {
                    files: seeded.files,
                    shells: seeded.shells,
                    submodels: seeded.submodels,
                    elements: seeded.elements,
                    conceptDescriptions: seeded.conceptDescriptions,
                  },
            }
          : {}),
      },
      stop,
      // Started means seeded; serving needs both backends (each answers 503 when it is gone).
      readiness: [
        { name: "redis", ready: redisReady },
        // Stays false once Redis lost the store's data (when the process is not ended for it).
        { name: "storeData", ready: () => !storeLost },
        ...(nats ? [nats.readiness] : []),
      ] satisfies ReadinessCheck[],
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
