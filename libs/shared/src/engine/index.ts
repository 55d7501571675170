export * from "./ports/index.ts";
export { backoffDelay, type BackoffPolicy } from "./backoff.ts";
export { createEngine, DEFAULT_OPERATION_HANDLE_TTL_MS, DEFAULT_OPERATION_LEASE_MS, type Engine, type EngineOptions } from "./create-engine.ts";
export type { ValidationSettings } from "./engine-context.ts";
export * from "./memory/memory-repository.ts";
export * from "./memory/in-process-event-bus.ts";
export * from "./memory/direct-store-client.ts";
export * from "./memory/memory-file-store.ts";
export * from "./filesystem/filesystem-file-store.ts";
