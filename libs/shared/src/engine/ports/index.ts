export * from "./repository.ts";
export * from "./event-bus.ts";
export * from "./store-client.ts";
export * from "./clock.ts";
export * from "./file-store.ts";
export * from "./operation-provider.ts";
export * from "./list-item-paths.ts";
