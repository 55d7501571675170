import type { OpcUaEndpointConfig } from "@twinport/shared";
import { type OPCUAServer, RegisterServerMethod } from "node-opcua";
import type { LogLine } from "../node-opcua-logging.ts";

export interface DiscoveryRegistrationOptions {
  registerServerMethod: RegisterServerMethod;
  discoveryServerEndpointUrl?: string;
}

/** `discoveryServerUrl` empty (the default): no registration at all. */
export function discoveryRegistration(endpoint: OpcUaEndpointConfig): DiscoveryRegistrationOptions {
  return endpoint.discoveryServerUrl
    ? { registerServerMethod: RegisterServerMethod.LDS, discoveryServerEndpointUrl: endpoint.discoveryServerUrl }
    : { registerServerMethod: RegisterServerMethod.HIDDEN };
}

/**
 * node-opcua registers in the background after start() and, while the discovery server does not
 * answer, keeps retrying for as long as the server runs: an unreachable one neither blocks nor
 * fails the start. The operator still hears about it: one line when registration begins
 * (repeated attempts stay quiet), one when it succeeds.
 */
export function logDiscoveryRegistration(server: OPCUAServer, endpoint: OpcUaEndpointConfig, log: LogLine): void {
  if (!endpoint.discoveryServerUrl) return;
  let announced = false;
  server.on("serverRegistrationPending", () => {
    if (announced) return;
    announced = true;
    log(
      `opcua-gateway: registering with the discovery server ${endpoint.discoveryServerUrl} in the background (retried until it answers and accepts this server's certificate)`,
    );
  });
  server.on("serverRegistered", () =>
    log(`opcua-gateway: registered with the discovery server ${endpoint.discoveryServerUrl}`),
  );
}
