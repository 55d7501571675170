import { resolve } from "node:path";
import { routeConsoleToLog } from "../operability/console-to-log.ts";
import { createLogger, type Logger, resolveLogFormat } from "../operability/logger.ts";
import { type ManagementServer, startManagementServer } from "../operability/management-server.ts";
import { createProcessMetrics, type ProcessMetrics } from "../operability/process-metrics.ts";
import { setProgressInterval } from "../operability/progress.ts";
import type { ReadinessCheck } from "../operability/readiness.ts";
import { renderStartBanner, type StartBanner, type StartSummary } from "../operability/start-banner.ts";
import { HELP_TEXT, parseCommandLine, UsageError } from "./command-line.ts";
import { ConfigError } from "./config-error.ts";
import { DEFAULT_MANAGEMENT_PORT, isoDurationToMs } from "./core.ts";
import { isHttpEndpoint } from "./endpoints.ts";
import { withFaaastEnvironment } from "./faaast-environment.ts";
import { FILE_STORAGE_FILESYSTEM_CLASS, FILE_STORAGE_REDIS_CLASS } from "./file-storage.ts";
import { type ConfigRole, loadConfig } from "./load-config.ts";
import { MESSAGE_BUS_NATS_CLASS } from "./message-bus.ts";
import { type ModelFile, ModelFileError, selectModelFiles } from "./model-files.ts";
import { openHttpAccessInWords } from "./open-access.ts";
import { PERSISTENCE_IN_MEMORY_CLASS } from "./persistence.ts";
import { managementHost, portClash, servedEndpoints } from "./role-listeners.ts";
import type { TwinportConfig } from "./validate-config.ts";

/** What a role's start function gets: everything decided from the command line and environment. */
export interface RoleContext {
  role: ConfigRole;
  config: TwinportConfig;
  /** Models to load (embedded and model-store; always empty for the gateways). */
  models: ModelFile[];
  /** Validate models while loading them: core.validationOnLoad, unless --no-validation. */
  validateOnLoad: boolean;
  /** One line for the operator (stderr, as a JSON log line at level info). */
  log(line: string): void;
  /** Structured logs (pino, JSON lines on stderr) at core.logLevel, with the role on every line. */
  logger: Logger;
  /** This process's Prometheus metrics, served on the management port. */
  metrics: ProcessMetrics;
  /**
   * A fault the running role cannot recover from in place (e.g. Redis lost the store's data): the
   * message is logged as an error and the process exits with code 1 at once, for its orchestrator
   * to restart it (crash-only: a fresh start is the one recovery path that is tested every day).
   */
  fail(message: string): never;
}

export interface RunningRole {
  /** JSON details for the ready line, e.g. `{ "http": ["https://127.0.0.1:8443/api/v3.0"] }`. */
  details: Record<string, unknown>;
  /**
   * Closes everything the role opened: stop accepting, let in-flight requests finish, then close
   * connections (graceful shutdown on SIGTERM).
   */
  stop(): Promise<void>;
  /**
   * Called once when the shutdown begins, before core.shutdownDelay: the role keeps serving but may
   * tell its clients to go elsewhere (HTTP answers Connection: close, so a kept-alive client
   * reconnects through its balancer to another replica instead of staying until the cut).
   */
  draining?(): void;
  /** What GET /ready asks once started (connected to NATS/Redis, mirror built, ...). Default: none. */
  readiness?: ReadinessCheck[];
  /** What the start banner shows about this role (endpoints, model, backends). */
  summary?: StartSummary;
}

type Signal = "SIGTERM" | "SIGINT";

/** The parts of `process` a role's program uses; main.ts passes `process` itself. */
export interface ProcessIo {
  env: NodeJS.ProcessEnv;
  cwd(): string;
  stdout: { write(text: string): unknown };
  /** `isTTY`: a person reads it, so logs are short lines and the banner a block (core.logFormat auto). */
  stderr: { write(text: string): unknown; isTTY?: boolean };
  on(signal: Signal, listener: (signal: Signal) => void): unknown;
  exit(code?: number): never;
}

export interface RunRoleOptions {
  role: ConfigRole;
  /** Arguments after the program name; a leading role name is accepted when it is `role`. */
  argv: readonly string[];
  io: ProcessIo;
  start(context: RoleContext): Promise<RunningRole>;
  /** Past this (counted after core.shutdownDelay), a stop that hangs ends the process with code 1. Default 30 s. */
  stopTimeoutMs?: number;
  /** The same signal again within this is the echo of the first, not a second one (default SIGNAL_ECHO_MS). */
  signalEchoMs?: number;
  /** What --version prints (bin/twinport.js answers it before any role loads; this covers direct callers). */
  version?: string;
  /** The process is this role's own (the CLI): libraries' console output goes to its log (console-to-log.ts). */
  ownsConsole?: boolean;
}

const ROLES_WITH_MODELS: readonly ConfigRole[] = ["embedded", "model-store"];

/**
 * Ctrl-C on `npm start` delivers SIGINT twice within milliseconds: the terminal sends it to the whole
 * process group and npm forwards its own copy to node. A repeat of the first signal this soon is that
 * echo; only a later one (someone pressing Ctrl-C again because the stop takes long), or another
 * signal, means "exit now".
 */
export const SIGNAL_ECHO_MS = 1000;

/**
 * The life of one process: parse the command line, load configuration and models, start the
 * role, print the ready line, stop cleanly on SIGTERM/SIGINT. Every failure is one line on stderr
 * and an exit code (2: arguments or configuration; 1: could not start), never a stack trace.
 */
export async function runRole(options: RunRoleOptions): Promise<void> {
  const { role, io } = options;
  let logger: Logger | undefined;
  // The structured logger gathers a turn's lines (coalescing-destination.ts): what it holds goes
  // first, so lines keep their order.
  const log = (line: string) => {
    logger?.flush();
    io.stderr.write(`${line}\n`);
  };
  let running: RunningRole | undefined;
  let management: ManagementServer | undefined;
  // Closing the management server releases its socket at once, so a process (or a test's fake
  // process) exits without waiting for a probe's keep-alive connection.
  const exit = (code: number): never => {
    void management?.close();
    logger?.flush();
    return io.exit(code);
  };

  // core.shutdownDelay, known once the configuration is loaded (a signal before that finds nothing running).
  let shutdownDelayMs = 0;
  let first: { signal: Signal; at: number } | undefined;
  const onSignal = (signal: Signal) => {
    if (!running) {
      // Nothing served yet, nothing to hand back (e.g. a model-store still waiting for Redis).
      logger?.info({ signal }, "stopped before it was ready");
      return exit(0);
    }
    if (first) {
      if (signal === first.signal && Date.now() - first.at < (options.signalEchoMs ?? SIGNAL_ECHO_MS)) return;
      const again = signal === first.signal ? `${signal} again` : `${signal} after ${first.signal}`;
      log(`twinport ${role}: ${again}, exiting without waiting for the shutdown`);
      return exit(1);
    }
    first = { signal, at: Date.now() };
    // First of all: /ready turns 503, so load balancers and the compose proxy stop sending traffic.
    // Everything keeps serving for the delay, since a balancer only notices at its next checks (and
    // Kubernetes takes the pod out of its Services while the signal is already on its way); closing
    // the listeners at once would refuse the connections it still sends meanwhile (docs/adr/0052).
    management?.stopping();
    running.draining?.();
    const shutDown = () => {
      logger?.info({ signal }, "stopping: draining in-flight requests, then closing connections");
      const timer = setTimeout(() => {
        log(`twinport ${role}: shutdown did not finish within ${options.stopTimeoutMs ?? 30_000} ms`);
        exit(1);
      }, options.stopTimeoutMs ?? 30_000);
      timer.unref();
      running!.stop().then(
        () => {
          logger?.info("stopped");
          exit(0);
        },
        (error: unknown) => {
          log(`twinport ${role}: shutdown failed: ${(error as Error).message ?? String(error)}`);
          exit(1);
        },
      );
    };
    if (shutdownDelayMs === 0) return shutDown();
    logger?.info(
      { signal, shutdownDelayMs },
      `stopping: /ready answers 503; serving on for ${shutdownDelayMs / 1000} s (core.shutdownDelay) while balancers move new connections elsewhere`,
    );
    setTimeout(shutDown, shutdownDelayMs);
  };
  io.on("SIGTERM", onSignal);
  io.on("SIGINT", onSignal);

  try {
    const commandLine = parseCommandLine(options.argv);
    if (commandLine.help) {
      io.stdout.write(HELP_TEXT);
      return io.exit(0);
    }
    if (commandLine.version) {
      io.stdout.write(`twinport ${options.version ?? "(version unknown)"}\n`);
      return io.exit(0);
    }
    if (commandLine.role && commandLine.role !== role)
      throw new UsageError(`This program runs '${role}', not '${commandLine.role}'.`);
    if (
      !ROLES_WITH_MODELS.includes(role) &&
      (commandLine.modelFiles.length > 0 || commandLine.emptyModel || commandLine.noValidation)
    ) {
      throw new UsageError(
        "-m/--model, --empty-model and --no-validation apply to embedded mode and the model-store only.",
      );
    }
    // FA³ST's faaast_config, faaast_model, faaast_no_validation read as ours (faaast-environment.ts).
    const faaast = withFaaastEnvironment(io.env);
    const noValidation = commandLine.noValidation || (ROLES_WITH_MODELS.includes(role) && faaast.noValidation);
    const loaded = loadConfig({
      role,
      configFile: commandLine.configFile,
      overrides: commandLine.overrides,
      env: faaast.env,
      endpointKinds: commandLine.endpointKinds,
    });
    const { config } = loaded;
    // Two listeners of this process on one port: the second bind would fail as if another process held it.
    const clash = portClash(config, role);
    if (clash !== undefined) throw new ConfigError(clash);
    const warnings = [...faaast.warnings, ...loaded.warnings];
    const models = ROLES_WITH_MODELS.includes(role)
      ? selectModelFiles({
          modelFiles: commandLine.modelFiles,
          emptyModel: commandLine.emptyModel,
          env: faaast.env,
          cwd: io.cwd(),
          initialModelFile:
            config.persistence["@class"] === PERSISTENCE_IN_MEMORY_CLASS
              ? config.persistence.initialModelFile
              : undefined,
        })
      : [];
    setProgressInterval(config.core.progressIntervalMs);
    shutdownDelayMs = isoDurationToMs(config.core.shutdownDelay);
    const terminal = io.stderr.isTTY === true;
    const logFormat = resolveLogFormat(config.core.logFormat, terminal);
    const roleLogger = createLogger({
      role,
      level: config.core.logLevel,
      destination: io.stderr,
      format: logFormat,
      terminal,
      coalesce: true,
    });
    logger = roleLogger;
    if (options.ownsConsole) routeConsoleToLog(roleLogger);
    // Through the logger, so they are JSON lines where the log is (a log pipeline reads them).
    for (const warning of warnings) roleLogger.warn({ component: "config" }, warning);
    const metrics = createProcessMetrics(role);
    management = await openManagementPort(config, role, metrics, roleLogger);
    const context: RoleContext = {
      role,
      config,
      models,
      validateOnLoad: config.core.validationOnLoad && !noValidation,
      log: (line) => roleLogger.info(line),
      logger: roleLogger,
      metrics,
      fail: (message) => {
        roleLogger.error(message);
        return exit(1);
      },
    };
    running = await options.start(context);
    management?.serving(running.readiness ?? []);
    // A port picked by the system (core.managementPort 0) is named here; a fixed one is known, and a
    // taken default that fell back is named in its warning log line.
    const details =
      management && config.core.managementPort === 0
        ? { ...running.details, management: management.url }
        : running.details;
    // The URL is loopback when the port listens everywhere: the banner says it is reachable beyond it.
    const managementShown =
      management && (management.everyInterface ? `${management.url}, on every interface` : management.url);
    const banner = startBanner(role, config, running.summary ?? {}, managementShown, io.cwd());
    if (logFormat === "pretty") io.stderr.write(renderStartBanner(banner));
    else roleLogger.info({ banner }, "started");
    // The one line on stdout: harnesses and operators wait for it (logs go to stderr).
    io.stdout.write(`twinport ${role} ready ${JSON.stringify(details)}\n`);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      log(`twinport: ${error.message}`);
      return exit(2);
    }
    const message = error instanceof ModelFileError ? error.message : ((error as Error)?.message ?? String(error));
    log(`twinport ${role}: ${message}`);
    return exit(1);
  }
}

function startBanner(
  role: ConfigRole,
  config: TwinportConfig,
  summary: StartSummary,
  management: string | undefined,
  cwd: string,
): StartBanner {
  const store = config.persistence["@class"] === PERSISTENCE_IN_MEMORY_CLASS ? "memory store" : "Redis store";
  const bus = config.messageBus["@class"] === MESSAGE_BUS_NATS_CLASS ? "NATS" : "in-process bus";
  const mode =
    role === "embedded" ? `embedded: every part in one process (${store}, ${bus})` : `distributed: the ${role}`;
  return {
    role,
    mode,
    ...summary,
    ...(management ? { management } : {}),
    security: securityInWords(config, role),
    stateDir: resolve(cwd, config.core.stateDir),
    ...(role === "embedded" || role === "model-store" ? { files: filesInWords(config, cwd) } : {}),
  };
}

/** Where this process keeps uploaded files, named so an operator sees a relative folder resolved. */
function filesInWords(config: TwinportConfig, cwd: string): string {
  const storage = config.fileStorage;
  if (storage["@class"] === FILE_STORAGE_FILESYSTEM_CLASS) return `folder ${resolve(cwd, storage.path)}`;
  if (storage["@class"] === FILE_STORAGE_REDIS_CLASS) return "Redis, beside the model";
  return config.persistence["@class"] === PERSISTENCE_IN_MEMORY_CLASS
    ? "memory (lost when the process stops, as the model)"
    : "memory: lost when the process stops, though the model is kept (set fileStorage)";
}

function securityInWords(config: TwinportConfig, role: ConfigRole): string {
  const { security } = config;
  if (!security)
    return `OPEN: no security section, so anyone who can reach an endpoint can ${openAccessInWords(config, role)}`;
  const { bearer, clientCertificates } = security.authentication;
  const who = [
    ...(bearer ? [`bearer tokens from ${bearer.issuer}`] : []),
    ...(clientCertificates ? ["HTTPS client certificates"] : []),
  ];
  const rules = `${security.rules.length} access rule${security.rules.length === 1 ? "" : "s"}`;
  return `secured: ${who.length > 0 ? `${who.join(" and ")}, ` : "anonymous callers only, "}${rules}`;
}

/**
 * What the endpoints this role serves let anyone do without security: the words of its HTTP
 * endpoints when they all say the same (read-only profiles: "read everything"); else, and whenever
 * OPC UA is served (it writes values and calls operations), the whole of it.
 */
function openAccessInWords(config: TwinportConfig, role: ConfigRole): string {
  const served = servedEndpoints(config, role);
  const words = new Set(
    served.map((endpoint) => (isHttpEndpoint(endpoint) ? openHttpAccessInWords(endpoint.profiles) : "")),
  );
  const [only] = words;
  return words.size === 1 && only !== "" && only !== undefined ? only : "read, change and delete everything";
}

/** core.managementPort: absent → 9464 (a taken default falls back to a free port), 0 → free, -1 → off. */
async function openManagementPort(
  config: TwinportConfig,
  role: ConfigRole,
  metrics: ProcessMetrics,
  logger: Logger,
): Promise<ManagementServer | undefined> {
  const configured = config.core.managementPort;
  if (configured === -1) return undefined;
  const host = managementHost(config, role);
  return startManagementServer({
    port: configured ?? DEFAULT_MANAGEMENT_PORT,
    host,
    ...(config.core.managementHost === undefined && host !== "0.0.0.0"
      ? {
          hostSetting:
            "the endpoints' host (core.managementHost is unset, so the management port binds where all endpoints do), or core.managementHost,",
        }
      : {}),
    metrics,
    fallbackToFreePort: configured === undefined,
    onFallback: (port, free) =>
      logger.warn(
        { port, managementPort: free },
        `management port ${port} is in use; serving /health, /ready and /metrics on ${free} (set core.managementPort to choose)`,
      ),
  });
}

export { managementHost };
