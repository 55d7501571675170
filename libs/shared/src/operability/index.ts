// Operability of every process: the management port (/health, /ready, /metrics), Prometheus
// metrics, structured logs. Imports only contracts and engine ports of ours.

export * from "./console-to-log.ts";
export * from "./listen-failure.ts";
export * from "./logger.ts";
export * from "./management-server.ts";
export * from "./metered-command-handler.ts";
export * from "./metered-event-bus.ts";
export * from "./nats-connection-state.ts";
export * from "./node-opcua-logs.ts";
export * from "./process-metrics.ts";
export * from "./progress.ts";
export * from "./readiness.ts";
export * from "./start-banner.ts";
