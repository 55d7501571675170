import { hostname as machineHostname } from "node:os";
import { resolve } from "node:path";
import {
  compileAccessPolicy,
  createLogger,
  type EventBus,
  type Logger,
  listenFailureOf,
  type OpcUaEndpointConfig,
  type OpcuaEndpointSummary,
  type SecurityConfig,
  type StoreClient,
} from "@twinport/shared";
import { OPCUAServer } from "node-opcua";
import { type AttachedAddressSpace, attachAddressSpace } from "./address-space/attach-address-space.ts";
import { reportDeletedNodesAsUnknown } from "./address-space/deleted-node-status.ts";
import { aasServerOptions } from "./address-space/server-options.ts";
import { type LogLine, routeNodeOpcuaLogsTo } from "./node-opcua-logging.ts";
import { prepareOpcuaSecurity } from "./security/opcua-security.ts";
import { guardReplacedPacketAssemblers } from "./transport/replaced-assembler-guard.ts";

export interface OpcuaGatewayDeps {
  /** Where reads, writes and method calls go (the address-space mapping uses it). */
  store: StoreClient;
  /** Change events that keep the address space in sync (the address-space mapping uses it). */
  bus: EventBus;
  endpoint: OpcUaEndpointConfig;
  /** Where the endpoint is in the configuration (`endpoints[1]`), for messages that name a setting. */
  configPath?: string;
  /** The process's state directory; PKI folders are configured separately (relative to the cwd). */
  stateDir: string;
  /** Where the gateway's own lines go (start-up, certificates, discovery); default: stderr. */
  log?: LogLine;
  /** The configuration's security section: sessions then see and do only what the rules grant them. */
  security?: SecurityConfig;
  /**
   * node-opcua's errors, warnings and debug lines go to child loggers of this one
   * (`{component: "node-opcua", module}`) at their own levels; default: a pino logger on stderr.
   */
  logger?: Logger;
}

export interface RunningOpcuaGateway {
  /** e.g. opc.tcp://127.0.0.1:4840 */
  endpointUrl: string;
  /** For the start banner: URL, policies, logins and PKI folders. */
  summary: OpcuaEndpointSummary;
  /** Waits `secondsTillShutdown` for clients, then closes the server and its PKI watchers. */
  stop(): Promise<void>;
  /** Open sessions and subscriptions, read from node-opcua's server engine (for /metrics). */
  load(): { sessions: number; subscriptions: number; materializedIdentifiables: number };
}

export { AAS_ENVIRONMENT_BROWSE_NAME } from "./address-space/attach-address-space.ts";

const stderrLine: LogLine = (line) => process.stderr.write(`${line}\n`);

/** Turns a failed start into a message naming the setting to change (`configPath`: `endpoints[1]`, when known). */
function startError(error: unknown, endpoint: OpcUaEndpointConfig, configPath?: string): Error {
  const text = `${(error as Error | undefined)?.message ?? String(error)}`;
  const where = `${endpoint.host}:${endpoint.tcpPort}`;
  const setting = (key: string) =>
    configPath === undefined ? `the OPC UA endpoint's "${key}" setting` : `${configPath}.${key}`;
  const failure = listenFailureOf(error, endpoint.host);
  if (failure === undefined) return new Error(`OPC UA endpoint cannot start on ${where}: ${text}`, { cause: error });
  const hint =
    failure.code === "EADDRINUSE"
      ? `Change ${setting("tcpPort")}, or stop the other process.`
      : failure.code === "EACCES"
        ? `Change ${setting("tcpPort")}.`
        : failure.code === "EADDRNOTAVAIL"
          ? `Change ${setting("host")}.`
          : `Change ${setting("host")} to an address of this machine (0.0.0.0: every interface).`;
  const message = `OPC UA endpoint cannot listen on ${where}: ${failure.reason}. ${hint}`;
  // A port the caller may retry on another (tests pick free ports) keeps its code.
  return failure.blame === "port"
    ? Object.assign(new Error(message, { cause: error }), { code: failure.code })
    : new Error(message, { cause: error });
}

/**
 * Starts one OPC UA endpoint: a node-opcua server with the configured port, host name, security
 * policies, authentication and PKI folders, and the AASEnvironment object under Objects. The AAS
 * address-space mapping (nodes from the store, kept in sync by events) is a later issue.
 */
export async function startOpcuaGateway(deps: OpcuaGatewayDeps): Promise<RunningOpcuaGateway> {
  const { endpoint } = deps;
  routeNodeOpcuaLogsTo(deps.logger ?? createLogger({ role: "opcua-gateway" }));
  // Always explicit: node-opcua otherwise advertises the machine's FQDN and clients that connect by
  // IP fail to match the endpoint URL.
  const bindsEverywhere = endpoint.host === "0.0.0.0" || endpoint.host === "::";
  const hostname = endpoint.hostname ?? (bindsEverywhere ? machineHostname() : endpoint.host);
  // PKI stores, server certificate, policies, authentication, discovery (spec §2.4, §5.1).
  const security = await prepareOpcuaSecurity({ endpoint, hostname, log: deps.log ?? stderrLine }).catch(
    (error: unknown) => {
      throw startError(error, endpoint, deps.configPath);
    },
  );

  reportDeletedNodesAsUnknown();
  guardReplacedPacketAssemblers();
  const server = new OPCUAServer({
    port: endpoint.tcpPort,
    hostname,
    host: bindsEverywhere ? undefined : endpoint.host,
    ...(endpoint.hostname && endpoint.hostname !== endpoint.host && !bindsEverywhere
      ? { alternateHostname: [endpoint.host] }
      : {}),
    ...security.serverOptions,
    ...aasServerOptions(endpoint.maxSessions, endpoint.maxMonitoredItems),
    // Ours, not node-opcua's (its ProductUri and version, readable before any login through
    // GetEndpoints and the Server object): no software version, as no HTTP header carries one.
    buildInfo: {
      productName: "Twinport AAS OPC UA Server",
      manufacturerName: "Twinport",
      productUri: "urn:twinport:aas-opcua-server",
      softwareVersion: "",
      buildNumber: "",
    },
  });

  const disposeManagers = () => security.dispose();

  // The AAS address space: built from a store snapshot before clients connect, then kept in sync.
  let aas: AttachedAddressSpace | undefined;
  try {
    await server.initialize();
    security.applyTo(server);
    aas = await attachAddressSpace(server, {
      store: deps.store,
      bus: deps.bus,
      endpoint,
      log: deps.log ?? stderrLine,
      // Warnings at warn level where the process has a logger (a bound it cannot keep, ADR 0036).
      ...(deps.logger ? { warn: (line: string) => deps.logger!.warn({ component: "opcua" }, line) } : {}),
      ...(deps.security
        ? {
            access: {
              policy: compileAccessPolicy(deps.security.rules),
              roleAssignments: deps.security.roleAssignments,
            },
          }
        : {}),
    });
    await server.start();
  } catch (error) {
    await aas?.stop();
    await server.shutdown(0).catch(() => undefined);
    await disposeManagers();
    throw startError(error, endpoint, deps.configPath);
  }

  let stopping: Promise<void> | undefined;
  return {
    endpointUrl: server.getEndpointUrl(),
    summary: {
      url: server.getEndpointUrl(),
      securityPolicies: endpoint.supportedSecurityPolicies,
      authentications: endpoint.supportedAuthentications,
      pki: resolve(endpoint.serverCertificateBasePath),
      userPki: resolve(endpoint.userCertificateBasePath),
    },
    load: () => ({
      sessions: server.currentSessionCount,
      subscriptions: server.currentSubscriptionCount,
      materializedIdentifiables: aas?.lazy.materializedCount ?? 0,
      materializedElements: aas?.lazy.materializedElements ?? 0,
    }),
    stop() {
      stopping ??= (async () => {
        await aas?.stop();
        await server.shutdown(endpoint.secondsTillShutdown * 1000);
        await disposeManagers();
      })();
      return stopping;
    },
  };
}
