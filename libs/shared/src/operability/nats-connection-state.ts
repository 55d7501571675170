import type { Logger } from "./logger.ts";
import type { ProcessMetrics } from "./process-metrics.ts";
import type { ReadinessCheck } from "./readiness.ts";

export interface NatsConnectionState {
  /** Pass as connectNats' `onChange` (the change names are nats' status types). */
  onChange(change: string, detail: string): void;
  /** The connection was made: connectNats resolves only once connected. */
  connected(): void;
  readiness: ReadinessCheck;
}

/**
 * Follows one NATS connection for /ready, the twinport_backend_up{backend="nats"} gauge and the
 * logs. A gateway whose NATS link is down cannot answer anything but 503, so it reports not ready
 * and a balancer sends the traffic to a replica that can.
 */
export function natsConnectionState(metrics: ProcessMetrics, logger: Logger): NatsConnectionState {
  let up = false;
  const set = (next: boolean) => {
    up = next;
    metrics.setBackendUp("nats", next);
  };
  set(false);
  return {
    onChange(change, detail) {
      if (change === "waiting") {
        logger.warn({ backend: "nats", servers: detail }, `waiting for NATS at ${detail} (no answer yet; retrying)`);
        return;
      }
      if (change === "disconnect") set(false);
      if (change === "reconnect") set(true);
      if (change === "disconnect" || change === "reconnect" || change === "error" || change === "ldm")
        logger.warn({ backend: "nats", change, detail }, `NATS ${change}`);
    },
    connected: () => set(true),
    readiness: { name: "nats", ready: () => up },
  };
}
