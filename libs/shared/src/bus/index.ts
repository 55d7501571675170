// NATS implementations of the EventBus and StoreClient ports, and the model-store's responder.
// The only place that imports the NATS client (@nats-io/transport-node, @nats-io/nats-core), so a
// change of client touches this folder only.

export { MAX_CHUNK_BYTES } from "./chunking.ts";
export * from "./command-responder.ts";
export * from "./connect-nats.ts";
export * from "./connection-watch.ts";
export * from "./event-log-reader.ts";
export * from "./nats-event-bus.ts";
export * from "./nats-store-client.ts";
export * from "./read-cache.ts";
export * from "./revalidated-reads.ts";
export * from "./store-access-stance.ts";
