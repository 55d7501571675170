export * from "./ports/index.ts";
export * from "./memory/in-process-event-bus.ts"; export * from "./memory/direct-store-client.ts";
