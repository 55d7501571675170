import type { EventEmitter } from "node:events";
import { RegisterServerMethod, type OPCUAServer } from "node-opcua";
import type { OpcUaEndpointConfig } from "@twinport/shared";
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
 * node-opcua registers in the background after start() and retries for as long as the server
 * runs, so an unreachable discovery server neither blocks nor fails the start. The operator
 * still hears about it: one line for the first failure, one when registration succeeds.
 */
export function logDiscoveryRegistration(server: OPCUAServer, endpoint: OpcUaEndpointConfig, log: LogLine): void {
  if (!endpoint.discoveryServerUrl) return;
  let reportedFailure = false;
  server.on("serverRegistered", () => {
    reportedFailure = false;
    log(`opcua-gateway: registered with the discovery server ${endpoint.discoveryServerUrl}`);
  });
  // Emitted by the manager but not re-emitted by the server, and missing from its typings.
  (server.registerServerManager as EventEmitter | undefined)?.on("serverRegistrationFailure", () => {
    if (reportedFailure) return;
    reportedFailure = true;
    log(`opcua-gateway: cannot register with the discovery server ${endpoint.discoveryServerUrl} yet (unreachable, or its certificate is not trusted: move it from rejected/ to certs/); retrying in the background`);
  });
}
