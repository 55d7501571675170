import { constants } from "node:buffer";
import { z } from "zod";
import { registryListSchema, registrySynchronizationSchema } from "./registries.ts";

/** ISO 8601 duration as used by AAS (e.g. "PT1H", "P1DT30M", "PT0.5S"). */
const ISO_DURATION =
  /^P(?!$)(\d+(?:\.\d+)?Y)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?W)?(\d+(?:\.\d+)?D)?(T(?=\d)(\d+(?:\.\d+)?H)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?S)?)?$/;

/**
 * FA³ST writes validationOnLoad/-Create/-Update as objects of switches. We validate or we don't, so
 * an object means "validate" unless every switch in it is false (FA³ST's own default for create and
 * update turns only validateConstraints off and keeps the uniqueness checks, which we always do).
 */
const faaastValidatorSchema = z.strictObject({
  validateConstraints: z.boolean().optional(),
  idShortUniqueness: z.boolean().optional(),
  identifierUniqueness: z.boolean().optional(),
  validateValueTypes: z.boolean().optional(),
  // What FA³ST's ModelValidatorConfig setters read (Jackson binds by setter name): its own example
  // files use the documented names above, working ones these.
  validateIdShortUniqueness: z.boolean().optional(),
  validateIdentifierUniqueness: z.boolean().optional(),
});

const validationSwitch = z
  .union([z.boolean(), faaastValidatorSchema], {
    error:
      "expected true, false or an object with validateConstraints, idShortUniqueness (validateIdShortUniqueness), identifierUniqueness (validateIdentifierUniqueness), validateValueTypes (booleans)",
  })
  .transform((value) =>
    typeof value === "boolean" ? value : Object.values(value).length === 0 || Object.values(value).some((v) => v),
  )
  .default(true);

const coreObjectSchema = z.strictObject({
  /** FA³ST's request thread pool. Accepted so FA³ST files load; no effect (Node has one event loop). */
  requestHandlerThreadPoolSize: z.number().int().min(1).optional(),
  /** Retry interval of asset connections in ms (FA³ST's name and default). */
  assetConnectionRetryInterval: z.number().int().min(1).default(1000),
  /** Timeout in ms for reading asset connections for one request (FA³ST's name and default). */
  assetConnectionReadTimeout: z.number().int().min(1).default(5000),
  /** FA³ST's thread pools for asset reads/writes. Accepted so FA³ST files load; no effect. */
  assetConnectionReadMaxThreadPoolSize: z.number().int().min(1).optional(),
  assetConnectionWriteMaxThreadPoolSize: z.number().int().min(1).optional(),
  validationOnLoad: validationSwitch,
  validationOnCreate: validationSwitch,
  validationOnUpdate: validationSwitch,
  /** AASX zip-bomb guard: compressed/uncompressed below this ratio is refused. */
  minInflateRatio: z.number().gt(0).max(1).default(0.01),
  /**
   * AASX packages (aas/aasx/aasx-limits.ts): at most this many zip entries, this many bytes
   * inflated for the whole package (one budget), and per entry. The defaults keep a small edge
   * device safe: a package is held inflated in memory while imported and copied into the file
   * store, so its inflated size is paid two to three times over.
   */
  aasxMaxEntries: z.number().int().min(1).default(1_000),
  aasxMaxTotalSize: z
    .number()
    .int()
    .min(1)
    .default(256 * 1024 * 1024),
  aasxMaxEntrySize: z
    .number()
    .int()
    .min(1)
    .default(128 * 1024 * 1024),
  /**
   * The AASX model part (aas-spec) is streamed and not counted above (docs/adr/0037); its declared
   * inflated size is bounded by this instead, so a package cannot make the importer scan gigabytes.
   */
  aasxMaxModelSize: z
    .number()
    .int()
    .min(1)
    .default(2 * 1024 ** 3),
  /**
   * The most text (characters of JSON or XML) one shell, submodel or concept description may take
   * in an import (-m, POST /import, packages): the spec part of a package is exempt from the AASX
   * size limits (ADR 0037), so without this a small package could make one identifiable of
   * hundreds of megabytes. The default is maxRequestBodySize's, which bounds every REST write.
   */
  importMaxIdentifiableSize: z
    .number()
    .int()
    .min(1)
    // Text longer than V8's longest string cannot be held at all: it would fail as a 500 again.
    .max(constants.MAX_STRING_LENGTH, {
      error: `at most ${constants.MAX_STRING_LENGTH} characters, the longest string this JavaScript engine can hold`,
    })
    .default(64 * 1024 * 1024),
  /**
   * How deep submodel elements may nest (an element in a submodel is at depth 1). Deeper input
   * (JSON, XML, AASX) is a 400 naming this setting. 64 is ten times what IDTA submodel templates
   * use, and far below the depth (over 1,000) where the recursive readers and writers (aas-core,
   * XML, OPC UA) run out of stack, with room for smaller stacks (worker threads, edge devices).
   */
  maxNestingDepth: z.number().int().min(1).max(500).default(64),
  /**
   * How long the handle of an asynchronous operation stays queryable after it finished; it also
   * bounds how long an asynchronous execution may run. Default PT1H (applied below).
   */
  operationHandleTtl: z
    .string()
    .regex(ISO_DURATION, { error: "expected an ISO 8601 duration such as PT1H" })
    .optional(),
  /**
   * FA³ST main's bound of an operation's execution, in ms (default 3 600 000, our PT1H): the same
   * thing as operationHandleTtl, so it sets it (docs/faaast-compatibility.md).
   */
  operationTimeout: z.number().int().min(1).optional(),
  /**
   * Operation invocations (sync and async) one process runs at once; past it an invocation is
   * refused with 503 before it starts. Each may hold a connection to its asset: 21,000 pending
   * invocations of a hanging asset used up the process's file descriptors and with them every other
   * asset connection.
   */
  maxRunningOperations: z.number().int().min(1).max(1_000_000).default(1000),
  /** How long a write's outcome is remembered under its Idempotency-Key (docs/adr/0017). */
  idempotencyWindow: z
    .string()
    .regex(ISO_DURATION, { error: "expected an ISO 8601 duration such as PT24H" })
    .default("PT24H"),
  /**
   * On SIGTERM/SIGINT, how long a process goes on serving with /ready at 503 before it stops
   * accepting: the time a balancer in front needs to notice and send new connections elsewhere
   * (docs/adr/0052). PT0S (the default: nothing is in front of `npm start`) stops at once.
   */
  shutdownDelay: z
    .string()
    .regex(ISO_DURATION, { error: "expected an ISO 8601 duration such as PT5S" })
    // A balancer needs seconds; a longer wait is a typo (P1D for PT1D?), and past ~24.8 days
    // setTimeout would fire at once, stopping without any delay.
    // Zod runs this check after a failed regex too: only a duration is measured, or "5" threw
    // a plain Error that ended the start with exit 1 and no key named.
    .refine((text) => !ISO_DURATION.test(text) || isoDurationToMs(text) <= MAX_SHUTDOWN_DELAY_MS, {
      error: "at most PT1H",
    })
    .default("PT0S"),
  /** Where a process keeps what it generates and must keep across restarts (HTTPS certificate, ...). */
  stateDir: z.string().min(1).default(".twinport"),
  /**
   * Plain-HTTP port of /health, /ready and /metrics (docs/adr/0005). Absent means 9464, and a
   * taken 9464 falls back to a free port with a warning; an explicit port that is taken fails the
   * start. 0 picks a free port (named in the ready line); -1 turns the management port off.
   */
  managementPort: z.number().int().min(-1).max(65535).optional(),
  /**
   * Bind address of the management port. Absent: the address every endpoint this role starts
   * binds to, when they all share one (endpoints on 127.0.0.1 keep /metrics off the network too),
   * else 0.0.0.0 (the model-store has no endpoint; probes and scrapers reach the pod IP).
   */
  managementHost: z.string().min(1).optional(),
  /** AAS registries every shell is registered with (FA³ST's name; docs/adr/0012). */
  aasRegistries: registryListSchema,
  /** Submodel registries every submodel is registered with. */
  submodelRegistries: registryListSchema,
  registrySynchronization: registrySynchronizationSchema,
  /** Level of the log lines on stderr. */
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  /** auto: short human lines when stderr is a terminal, JSON lines otherwise; pretty or json: always that. */
  logFormat: z.enum(["auto", "pretty", "json"]).default("auto"),
  /** Long work (loading models, building the OPC UA address space, a resync) logs its progress this often. */
  progressIntervalMs: z.number().int().min(100).max(3_600_000).default(3000),
});

/** ms as an ISO 8601 duration in seconds ("PT3600S", "PT0.5S"), which isoDurationToMs reads back exactly. */
const msAsDuration = (ms: number): string => `PT${ms / 1000}S`;

export const coreSchema = coreObjectSchema
  .refine(
    (core) =>
      core.operationTimeout === undefined ||
      core.operationHandleTtl === undefined ||
      isoDurationToMs(core.operationHandleTtl) === core.operationTimeout,
    {
      error: "operationTimeout (FA³ST, ms) and operationHandleTtl say different things; set one of them",
      path: ["operationTimeout"],
    },
  )
  .transform(({ operationTimeout, operationHandleTtl, ...rest }) => ({
    ...rest,
    operationHandleTtl:
      operationHandleTtl ?? (operationTimeout === undefined ? "PT1H" : msAsDuration(operationTimeout)),
  }));

/** The management port when core.managementPort is absent (docs/adr/0005). */
export const DEFAULT_MANAGEMENT_PORT = 9464;

export type CoreConfig = z.output<typeof coreSchema>;

/** core.shutdownDelay's bound. */
const MAX_SHUTDOWN_DELAY_MS = 3_600_000;

const UNIT_MS: Record<string, number> = { Y: 365 * 86_400_000, M: 30 * 86_400_000, W: 7 * 86_400_000, D: 86_400_000 };
const TIME_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000 };

/** Milliseconds of an ISO 8601 duration (years as 365 days, months as 30 days: good enough for a TTL). */
export function isoDurationToMs(text: string): number {
  if (!ISO_DURATION.test(text)) throw new Error(`Not an ISO 8601 duration: '${text}'`);
  const [datePart, timePart = ""] = text.slice(1).split("T");
  let ms = 0;
  for (const [, amount, unit] of datePart!.matchAll(/(\d+(?:\.\d+)?)([YMWD])/g)) ms += Number(amount) * UNIT_MS[unit!]!;
  for (const [, amount, unit] of timePart.matchAll(/(\d+(?:\.\d+)?)([HMS])/g))
    ms += Number(amount) * TIME_UNIT_MS[unit!]!;
  return Math.round(ms);
}

/** The AASX reading limits (engine's aasxLimits) a core section configures. */
export function aasxLimitsOf(core: CoreConfig): {
  minInflateRatio: number;
  maxEntries: number;
  maxTotalUncompressedBytes: number;
  maxEntryUncompressedBytes: number;
  maxModelPartBytes: number;
  maxIdentifiableChars: number;
} {
  return {
    minInflateRatio: core.minInflateRatio,
    maxEntries: core.aasxMaxEntries,
    maxTotalUncompressedBytes: core.aasxMaxTotalSize,
    maxEntryUncompressedBytes: core.aasxMaxEntrySize,
    maxModelPartBytes: core.aasxMaxModelSize,
    maxIdentifiableChars: core.importMaxIdentifiableSize,
  };
}
