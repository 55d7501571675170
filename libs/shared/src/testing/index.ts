export {};
export * from "./event-bus-contract.ts";
export * from "./store-client-contract.ts";
export * from "./repository-contract.ts";
export * from "./engine-contract.ts";
export * from "./operations-contract.ts";
export * from "./operation-fixtures.ts";
export * from "./file-store-contract.ts";
export * from "./example-model.ts";
