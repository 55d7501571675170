import { type EndpointConfig, isHttpEndpoint, isOpcUaEndpoint } from "./endpoints.ts";
import type { ConfigRole } from "./load-config.ts";
import type { TwinportConfig } from "./validate-config.ts";

// What a process of one role listens on: its endpoints and its management port.

/** core.managementHost, else the one address all endpoints this role serves bind to, else 0.0.0.0. */
export function managementHost(config: TwinportConfig, role: ConfigRole): string {
  if (config.core.managementHost !== undefined) return config.core.managementHost;
  const served = servedEndpoints(config, role);
  const hosts = new Set(served.map((endpoint) => endpoint.host));
  return hosts.size === 1 ? [...hosts][0]! : "0.0.0.0";
}

/** The endpoints a process of this role serves (the model-store: none). */
export function servedEndpoints(config: TwinportConfig, role: ConfigRole): EndpointConfig[] {
  return config.endpoints.filter((endpoint) => {
    if (role === "embedded") return true;
    if (role === "http-gateway") return isHttpEndpoint(endpoint);
    if (role === "opcua-gateway") return isOpcUaEndpoint(endpoint);
    return false;
  });
}

/** Addresses that take every interface: a port bound there clashes with that port on any address. */
const EVERY_INTERFACE = new Set(["0.0.0.0", "::", "*", ""]);

function overlap(a: string, b: string): boolean {
  return a === b || EVERY_INTERFACE.has(a) || EVERY_INTERFACE.has(b);
}

/**
 * Two listeners of one process on one port of overlapping addresses, named by their settings; undefined
 * when there is none. Without this check the second bind failed with "in use … or stop the other
 * process" and exit 1, where the clash is in the configuration itself (a black-box finding). Port 0
 * (picked by the system) never clashes; an absent core.managementPort falls back to a free port
 * when its default is taken, so only an explicit one counts.
 */
export function portClash(config: TwinportConfig, role: ConfigRole): string | undefined {
  const listeners: { setting: string; host: string; port: number }[] = [];
  config.endpoints.forEach((endpoint, index) => {
    if (!servedEndpoints(config, role).includes(endpoint)) return;
    const port = isHttpEndpoint(endpoint) ? endpoint.port : isOpcUaEndpoint(endpoint) ? endpoint.tcpPort : undefined;
    if (port === undefined || port === 0) return;
    listeners.push({
      setting: `endpoints[${index}].${isHttpEndpoint(endpoint) ? "port" : "tcpPort"}`,
      host: endpoint.host,
      port,
    });
  });
  const management = config.core.managementPort;
  if (management !== undefined && management > 0)
    listeners.push({ setting: "core.managementPort", host: managementHost(config, role), port: management });
  for (let i = 0; i < listeners.length; i++)
    for (let j = i + 1; j < listeners.length; j++) {
      const [a, b] = [listeners[i]!, listeners[j]!];
      if (a.port === b.port && overlap(a.host, b.host))
        return `${a.setting} and ${b.setting} are both port ${a.port} (on ${a.host} and ${b.host}): one process cannot listen twice on one port; give one of them another port`;
    }
  return undefined;
}
