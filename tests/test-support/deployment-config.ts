/**
 * What a container of a deployment would actually run with: its command line and environment fed
 * through the real configuration loader (@twinport/shared), with the config file it mounts. Finds
 * an override that names no setting (only a warning at startup), an endpoint bound to loopback
 * inside a container (unreachable), a port the deployment does not open, or an address that names
 * no service of the deployment.
 */
import { existsSync } from "node:fs";
import { type ConfigRole, isHttpEndpoint, isOpcUaEndpoint, loadConfig, parseCommandLine } from "@twinport/shared";
import type { ServiceView } from "./deployment-compose.ts";

/** Paths inside the image, and where the repository keeps them (Dockerfile: COPY examples /app/examples). */
export interface ContainerFiles {
  /** container path → file on this machine */
  [containerPath: string]: string;
}

/** Port of the management endpoint (docs/adr/0005) until the configuration schema names it. */
export const DEFAULT_MANAGEMENT_PORT = 9464;

function address(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

/** The configuration the container's process would run with (its command line, environment and mounted file). */
export function containerConfig(view: ServiceView, files: ContainerFiles) {
  const line = parseCommandLine(view.command ?? []);
  const configFile = line.configFile ? files[line.configFile] : undefined;
  return loadConfig({
    role: line.role ?? "embedded",
    configFile,
    overrides: line.overrides,
    env: view.env,
    endpointKinds: line.endpointKinds,
  }).config;
}

export function containerConfigProblems(
  name: string,
  view: ServiceView,
  context: {
    files: ContainerFiles;
    services: Record<string, ServiceView>;
    writableRoot: string;
    opcuaHostname?: string;
  },
): string[] {
  const problems: string[] = [];
  const line = parseCommandLine(view.command ?? []);
  const role: ConfigRole = line.role ?? "embedded";
  if (role !== name) problems.push(`${name}: runs the role ${role}`);
  const configFile = line.configFile ? context.files[line.configFile] : undefined;
  if (line.configFile && !configFile)
    return [`${name}: reads ${line.configFile}, which the deployment does not provide`];
  for (const model of line.modelFiles) {
    const source = context.files[model];
    if (!source || !existsSync(source)) problems.push(`${name}: model ${model} is not in the image`);
  }
  let loaded;
  try {
    loaded = loadConfig({
      role,
      configFile,
      overrides: line.overrides,
      env: view.env,
      endpointKinds: line.endpointKinds,
    });
  } catch (error) {
    return [...problems, `${name}: the configuration does not load: ${(error as Error).message}`];
  }
  const { config, warnings } = loaded;
  for (const warning of warnings) problems.push(`${name}: ${warning}`);

  const reachable = (url: string, service: string, what: string) => {
    const { host, port } = address(url);
    if (host !== service) problems.push(`${name}: ${what} ${url} does not name the ${service} service`);
    else if (!context.services[service]?.containerPorts.includes(port))
      problems.push(`${name}: ${what} ${url}: ${service} does not listen on ${port}`);
  };
  if (role === "model-store") {
    if (!("url" in config.persistence)) problems.push(`${name}: persistence is not Redis`);
    else reachable(config.persistence.url, "redis", "persistence.url");
  }
  if (!("url" in config.messageBus)) problems.push(`${name}: the message bus is not NATS`);
  else reachable(config.messageBus.url, "nats", "messageBus.url");

  const servedPorts: number[] = [];
  if (role === "http-gateway") {
    for (const endpoint of config.endpoints.filter(isHttpEndpoint)) {
      servedPorts.push(endpoint.port);
      if (endpoint.host !== "0.0.0.0" && endpoint.host !== "::")
        problems.push(`${name}: the HTTP endpoint binds ${endpoint.host}, unreachable from outside the container`);
    }
  }
  if (role === "opcua-gateway") {
    for (const endpoint of config.endpoints.filter(isOpcUaEndpoint)) {
      servedPorts.push(endpoint.tcpPort);
      if (endpoint.host !== "0.0.0.0" && endpoint.host !== "::")
        problems.push(`${name}: the OPC UA endpoint binds ${endpoint.host}, unreachable from outside the container`);
      if (context.opcuaHostname !== undefined && endpoint.hostname !== context.opcuaHostname) {
        problems.push(
          `${name}: the OPC UA endpoint advertises ${endpoint.hostname}, expected ${context.opcuaHostname}`,
        );
      }
      for (const folder of [endpoint.serverCertificateBasePath, endpoint.userCertificateBasePath]) {
        if (!folder.startsWith(`${context.writableRoot}/`))
          problems.push(`${name}: PKI folder ${folder} is outside the writable ${context.writableRoot}`);
      }
    }
  }
  for (const port of servedPorts)
    if (!view.containerPorts.includes(port))
      problems.push(`${name}: serves port ${port}, which the deployment does not open`);
  if (servedPorts.length === 0 && (role === "http-gateway" || role === "opcua-gateway"))
    problems.push(`${name}: configures no endpoint for its role`);
  if (!config.core.stateDir.startsWith(`${context.writableRoot}/`))
    problems.push(`${name}: core.stateDir ${config.core.stateDir} is outside the writable ${context.writableRoot}`);
  // The management port joins the schema later (issue 7): until then the default is the contract.
  const managementPort = Number((config.core as Record<string, unknown>).managementPort ?? DEFAULT_MANAGEMENT_PORT);
  if (view.health && view.health.port !== managementPort)
    problems.push(`${name}: the health check asks port ${view.health.port}, the management port is ${managementPort}`);
  if (!view.containerPorts.includes(managementPort))
    problems.push(`${name}: the management port ${managementPort} is not open`);
  return problems;
}
