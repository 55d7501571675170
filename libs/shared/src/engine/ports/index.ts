export * from "./clock.ts";
export * from "./event-bus.ts";
export * from "./file-store.ts";
export * from "./list-item-paths.ts";
export * from "./operation-provider.ts";
export * from "./repository.ts";
export * from "./repository-cursors.ts";
export * from "./store-client.ts";
