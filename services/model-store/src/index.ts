// The explicit surface of @twinport/model-store.
export { createRedisRepository, DEFAULT_COMMAND_TIMEOUT_MS, type RedisRepository, type RedisRepositoryOptions } from "./redis/redis-repository.ts";
export { redisLayout, type RedisLayout, type SubmodelKeys } from "./redis/redis-layout.ts";
export { RepositoryUnavailableError } from "@twinport/shared";
export { startOutboxKeeper, type OutboxKeeper, type OutboxKeeperOptions } from "./outbox/outbox-keeper.ts";
export { acquireLease, renewLease, releaseLease } from "./outbox/lease.ts";
export { startModelStore, type ModelStoreOptions } from "./model-store-process.ts";
export { createRedisFileStore, type RedisFileStoreOptions } from "./redis/file-store-redis.ts";
export { startAssetConnections, type AssetConnectionsOptions, type RunningAssetConnections } from "./asset-connections/start-asset-connections.ts";
export { redisConnectionLeases, soleOwnerLeases, type ConnectionLeases, type ConnectionLease } from "./asset-connections/connection-lease.ts";
export type { AssetConnectionStatus, ConnectionState } from "./asset-connections/connection-runner.ts";
export type { OwnedConnectionStatus } from "./asset-connections/asset-connection-manager.ts";
export type { AssetInterfacesStatus } from "./asset-interfaces/aimc-processor.ts";
export { startRegistrySync, type RegistrySyncOptions, type RunningRegistrySync } from "./registry-sync/registry-sync.ts";
export { redisRegistrySyncLease, type RegistrySyncLeaseOptions } from "./registry-sync/sync-lease.ts";
