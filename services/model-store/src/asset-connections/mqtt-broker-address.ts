/** Where an MQTT connection goes, from its `serverUri` (already checked by the configuration schema). */
export interface MqttBrokerAddress {
  /** mqtt.js's name of the transport. */
  protocol: "mqtt" | "mqtts" | "ws" | "wss";
  hostname: string;
  port: number;
  /** The WebSocket path (ws, wss only). */
  path?: string;
  tls: boolean;
  /** The URI without user info, for logs and status. */
  display: string;
}

const DEFAULT_PORTS = { mqtt: 1883, mqtts: 8883, ws: 80, wss: 443 } as const;

/**
 * FA³ST writes broker URIs in Eclipse Paho's form (tcp://, ssl://, ws://, wss://); mqtt:// and
 * mqtts:// are the same transports under the names most other MQTT tools use. The ports a URI
 * leaves out are Paho's defaults. A WebSocket URI without a path connects to "/" as Paho does (not
 * mqtt.js's "/mqtt"): brokers that want "/mqtt" need it written in the URI.
 */
export function mqttBrokerAddress(serverUri: string): MqttBrokerAddress {
  const url = new URL(serverUri);
  const scheme = url.protocol.slice(0, -1);
  const protocol = scheme === "tcp" ? "mqtt" : scheme === "ssl" ? "mqtts" : (scheme as MqttBrokerAddress["protocol"]);
  if (!(protocol in DEFAULT_PORTS)) throw new Error(`unsupported broker URI scheme "${scheme}"`);
  const websocket = protocol === "ws" || protocol === "wss";
  url.username = "";
  url.password = "";
  return {
    protocol,
    // IPv6 literals come bracketed from URL; sockets want them bare.
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port ? Number(url.port) : DEFAULT_PORTS[protocol],
    ...(websocket ? { path: `${url.pathname || "/"}${url.search}` } : {}),
    tls: protocol === "mqtts" || protocol === "wss",
    display: url.href,
  };
}
