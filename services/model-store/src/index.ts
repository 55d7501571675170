// The explicit surface of @twinport/model-store.

export { RepositoryUnavailableError } from "@twinport/shared";
export type { OwnedConnectionStatus } from "./asset-connections/asset-connection-manager.ts";
export {
  type ConfiguredConnectionsResetOptions,
  dropConfiguredConnectionsOnReset,
} from "./asset-connections/configured-connections-reset.ts";
export {
  type ConnectionLease,
  type ConnectionLeases,
  redisConnectionLeases,
  soleOwnerLeases,
} from "./asset-connections/connection-lease.ts";
export type { AssetConnectionStatus, ConnectionState } from "./asset-connections/connection-runner.ts";
export { forgetForwardedPositions } from "./asset-connections/forwarded-position.ts";
export {
  type AssetConnectionsOptions,
  type RunningAssetConnections,
  startAssetConnections,
} from "./asset-connections/start-asset-connections.ts";
export type { AssetInterfacesStatus } from "./asset-interfaces/aimc-processor.ts";
export type { EventPublishing } from "./event-publishing/event-publishing.ts";
export { type EventPublishingOptions, startEventPublishing } from "./event-publishing/start-event-publishing.ts";
export { type ModelStoreOptions, startModelStore } from "./model-store-process.ts";
export { keeperProblems } from "./outbox/keeper-problems.ts";
export { acquireLease, releaseLease, renewLease } from "./outbox/lease.ts";
export { type OutboxKeeper, type OutboxKeeperOptions, startOutboxKeeper } from "./outbox/outbox-keeper.ts";
export { createRedisFileStore, type RedisFileStoreOptions } from "./redis/file-store-redis.ts";
export { type RedisAnswers, watchRedisAnswers } from "./redis/redis-answers.ts";
export { type RedisLayout, redisLayout, type SubmodelKeys } from "./redis/redis-layout.ts";
export {
  createRedisRepository,
  DEFAULT_COMMAND_TIMEOUT_MS,
  type RedisRepository,
  type RedisRepositoryOptions,
} from "./redis/redis-repository.ts";
export { type IncarnationState, isStoreLost } from "./redis/store-incarnation.ts";
export { type StoreLostWatch, storeLostMessage, watchStoreLost } from "./redis/store-lost-watch.ts";
export {
  type RegistrySyncOptions,
  type RunningRegistrySync,
  startRegistrySync,
} from "./registry-sync/registry-sync.ts";
export { type RegistrySyncLeaseOptions, redisRegistrySyncLease } from "./registry-sync/sync-lease.ts";
