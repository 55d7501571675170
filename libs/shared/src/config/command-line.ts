import { parseArgs } from "node:util";
import type { EndpointKind } from "./endpoints.ts";
import type { ConfigRole } from "./load-config.ts";

/** A mistake in how the program was called; the CLI exits with code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const ROLES: readonly ConfigRole[] = ["embedded", "model-store", "http-gateway", "opcua-gateway"];
const ENDPOINT_KINDS: readonly EndpointKind[] = ["http", "opcua"];

export interface CommandLine {
  /** Named on the command line; absent = the caller's default (embedded for `twinport`). */
  role?: ConfigRole;
  help: boolean;
  version: boolean;
  configFile?: string;
  modelFiles: string[];
  emptyModel: boolean;
  noValidation: boolean;
  endpointKinds: EndpointKind[];
  /** `path=value` arguments, in order. */
  overrides: string[];
}

export const HELP_TEXT = `Usage: twinport [command] [options] [path=value ...]

Serves Asset Administration Shells (AAS v3.0) over HTTP(S) (AAS API v3.0.1) and OPC UA.

Commands:
  embedded        (default) everything in one process: in-memory store, in-process
                  events, every configured endpoint
  model-store     the store: state in Redis, serves commands and publishes change
                  events over NATS; starts no endpoint
  http-gateway    the configuration's HTTP endpoints, served through the model-store
  opcua-gateway   the configuration's OPC UA endpoints, served through the model-store

Options:
  -c, --config FILE    configuration file (JSON in FA³ST Service's shape: core,
                       endpoints, persistence, messageBus, fileStorage,
                       assetConnections); without one, built-in defaults
  -m, --model FILE     AAS model to load: JSON, XML or AASX (its files go to the
                       file storage); repeatable, the models are merged (an id
                       defined differently in two files is an error); embedded
                       and model-store only. Default: model.json, model.xml or
                       model.aasx in the working directory, if present. The
                       model-store seeds Redis once, only while it is empty
      --empty-model    start without a model even if a model.* file exists
      --no-validation  do not validate models while loading them
      --endpoint KIND  start only endpoints of this kind: http or opcua;
                       repeatable (a missing kind gets a default endpoint)
  -h, --help           show this help
  -v, --version        print the version

Overrides:
  path=value           set one configuration property, e.g. endpoints[0].port=8081
                       or persistence.url=redis://10.0.0.5:6379; the value is JSON
                       when it parses as JSON, else text

Environment:
  TWINPORT_CONFIG      configuration file (as -c)
  TWINPORT_MODEL       model files, comma-separated (as -m)
  TWINPORT_<PATH>      override a property, segments separated by _ and matched
                       case-insensitively, e.g. TWINPORT_ENDPOINTS_0_PORT=8081,
                       TWINPORT_MESSAGEBUS_URL=nats://nats:4222

Precedence: configuration file < environment < command line.
When a process serves, it prints one line: twinport <command> ready {...}
SIGTERM or SIGINT stops it cleanly (exit code 0). Exit code 2: bad arguments or
configuration; 1: the process could not start.
`;

function usageFromParseError(error: unknown): UsageError {
  const message = (error as Error).message ?? String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return new UsageError(`Unknown option '${unknown[1]}'. Run 'twinport --help' for the options.`);
  const missing = /Option '([^']+?)(?: <value>)?' argument missing/.exec(message);
  if (missing) return new UsageError(`Option '${missing[1]}' needs a value.`);
  return new UsageError(`${message.split("\n")[0]} Run 'twinport --help' for the options.`);
}

function isRole(text: string): text is ConfigRole {
  return (ROLES as readonly string[]).includes(text);
}

/** Parses the arguments after the program name (process.argv.slice(2)). */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
        config: { type: "string", short: "c" },
        model: { type: "string", short: "m", multiple: true },
        "empty-model": { type: "boolean" },
        "no-validation": { type: "boolean" },
        endpoint: { type: "string", multiple: true },
      },
    });
  } catch (error) {
    throw usageFromParseError(error);
  }
  const { values, positionals } = parsed;

  let role: ConfigRole | undefined;
  const overrides: string[] = [];
  positionals.forEach((argument, index) => {
    if (index === 0 && isRole(argument)) role = argument;
    else if (argument.includes("=")) overrides.push(argument);
    else if (isRole(argument)) throw new UsageError(`The command '${argument}' must come first.`);
    else
      throw new UsageError(
        `Unknown command or argument '${argument}'. Commands: ${ROLES.join(", ")}; overrides look like path=value.`,
      );
  });

  const endpointKinds: EndpointKind[] = [];
  for (const kind of (values.endpoint ?? []).flatMap((value) => value.split(","))) {
    const normalized = kind.trim().toLowerCase();
    if (!(ENDPOINT_KINDS as readonly string[]).includes(normalized)) {
      throw new UsageError(`Unknown endpoint kind '${kind}' for --endpoint. Allowed: ${ENDPOINT_KINDS.join(", ")}.`);
    }
    if (!endpointKinds.includes(normalized as EndpointKind)) endpointKinds.push(normalized as EndpointKind);
  }

  const modelFiles = values.model ?? [];
  if (values["empty-model"] && modelFiles.length > 0)
    throw new UsageError("--empty-model and -m/--model exclude each other.");

  return {
    role,
    help: values.help ?? false,
    version: values.version ?? false,
    configFile: values.config,
    modelFiles,
    emptyModel: values["empty-model"] ?? false,
    noValidation: values["no-validation"] ?? false,
    endpointKinds,
    overrides,
  };
}

/** The role an argument list asks for, without judging the rest (the launcher dispatches on it). */
export function roleOf(argv: readonly string[]): ConfigRole {
  try {
    return parseCommandLine(argv).role ?? "embedded";
  } catch {
    return "embedded"; // the embedded entry point reports the error
  }
}
