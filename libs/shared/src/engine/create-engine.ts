import { type AasxLimits, DEFAULT_AASX_LIMITS, setMaxNestingDepth } from "../aas/index.ts";
import {
  type ChangeEvent,
  type Command,
  CommandError,
  type CommandResult,
  type CommandType,
  type FileStream,
  failureReply,
  type ImportOutcome,
  type ModelFilesImport,
  type Reply,
  type ReplyFailure,
  STREAMED_COMMANDS,
  WRITE_COMMANDS,
} from "../contracts/index.ts";
import { toCommandError } from "./aas-input.ts";
import type { AccessPolicy } from "./access/access-policy.ts";
import { type AccessView, checkCommand } from "./access/command-access.ts";
import { type CommitRunner, createCommitRunner } from "./commit-runner.ts";
import type { EngineContext, ResetHook, ValidationSettings } from "./engine-context.ts";
import { UploadClaims } from "./files/upload-claims.ts";
import { UploadsDuringDeletes } from "./files/uploads-during-deletes.ts";
import { streamPackage } from "./handlers/aasx-packages.ts";
import { getAssetInformation, putAssetInformation } from "./handlers/asset-information.ts";
import {
  deleteConceptDescription,
  getAllConceptDescriptions,
  getConceptDescription,
  postConceptDescription,
  putConceptDescription,
} from "./handlers/concept-descriptions.ts";
import {
  deleteAllAssetLinks,
  getAllAssetLinks,
  getAllShellIdsByAssetLink,
  postAllAssetLinks,
} from "./handlers/discovery.ts";
import { patchElement } from "./handlers/element-patch.ts";
import { patchElementValue } from "./handlers/element-value.ts";
import { loadEnvironment } from "./handlers/environment.ts";
import { FILE_HANDLERS } from "./handlers/file-handlers.ts";
import type { Handled } from "./handlers/handled.ts";
import {
  getOperationAsyncResult,
  getOperationAsyncStatus,
  invokeOperation,
  invokeOperationAsync,
} from "./handlers/operations.ts";
import { streamSerialization } from "./handlers/serialization.ts";
import { deleteShell, getAllShells, getShell, postShell, putShell } from "./handlers/shells.ts";
import { deleteElement, getAllElements, getElement, postElement, putElement } from "./handlers/submodel-elements.ts";
import { patchSubmodel } from "./handlers/submodel-patch.ts";
import { deleteSubmodelReference, getAllSubmodelReferences, postSubmodelReference } from "./handlers/submodel-refs.ts";
import { deleteSubmodel, getAllSubmodels, getSubmodel, postSubmodel, putSubmodel } from "./handlers/submodels.ts";
import { createIdempotency, DEFAULT_IDEMPOTENCY_WINDOW_MS } from "./idempotency.ts";
import { importSources } from "./import/import-documents.ts";
import type { ImportProgressListener } from "./import/import-progress.ts";
import { sourceOfDocument, sourceOfFile } from "./import/import-source.ts";
import { createMemoryFileStore } from "./memory/memory-file-store.ts";
import { createOperationRunner } from "./operations/operation-runner.ts";
import { type PackageSweepReport, StalePackageIntents } from "./packages/stale-package-intents.ts";
import type { FileStore } from "./ports/index.ts";
import { type Clock, type CommandHandler, type EventBus, type Repository, systemClock } from "./ports/index.ts";
import type { OperationProviderRegistry } from "./ports/operation-provider.ts";
import { createRenderedSubmodels } from "./rendered-submodels.ts";

export interface EngineOptions {
  repository: Repository;
  /** Where each commit's event is published right after the commit (ADR 0018). */
  bus?: EventBus;
  /** Publish each committed event on `bus` (embedded mode). Default: true when a bus is given. */
  publishEvents?: boolean;
  clock?: Clock;
  /**
   * Element records a value write may be planned from without reading the store (record-cache.ts).
   * Worth it where reads cost a round trip (Redis); default 0.
   */
  recordCacheSize?: number;
  /**
   * Bytes of JSON text of whole submodels kept as last assembled (rendered-submodels.ts): worth it
   * where assembling costs reads from another process (Redis); default 0 (none).
   */
  renderedSubmodelBytes?: number;
  /** false disables metamodel verification everywhere; an object sets it per occasion. */
  validation?: boolean | Partial<ValidationSettings>;
  /** Files of File elements, thumbnails and packages; default: in memory. */
  fileStore?: FileStore;
  /** AASX reading bounds; unset ones keep DEFAULT_AASX_LIMITS (pass core.minInflateRatio). */
  aasxLimits?: Partial<AasxLimits>;
  /** core.maxNestingDepth; set process-wide for every model reader (aas/nesting-limit.ts). Default 64. */
  maxNestingDepth?: number;
  /**
   * Run by /reset before the model is deleted. The engine keeps this array, so a component created
   * after the engine (asset connections, the operations runner) may push its hook later.
   */
  resetHooks?: ResetHook[];
  /** Who runs Operations (asset connections, built-ins); without one every invocation fails clearly. */
  operationProviders?: OperationProviderRegistry;
  /** How long an asynchronous invocation's handle stays readable (core.operationHandleTtl); default 1 h. */
  operationHandleTtlMs?: number;
  /** Lease of this process while it runs asynchronous invocations (default 10 s): after a crash, its handles turn Failed this much later. */
  operationLeaseMs?: number;
  /** Operation invocations run at once at most (core.maxRunningOperations); default 1000. */
  maxRunningOperations?: number;
  /** How long a write's outcome is remembered under its Idempotency-Key (core.idempotencyWindow); default 24 h. */
  idempotencyWindowMs?: number;
  /** Told after each identifiable an import commits (written so far, of how many): start-up progress lines. */
  importProgress?: ImportProgressListener;
  /** Element record characters after which a page of submodels ends early; default PAGE_BUDGET_CHARS (64 Mi). */
  pageBudgetChars?: number;
  /**
   * The access rules (compileAccessPolicy), when security is configured: every command with a
   * principal is checked before it runs; commands without one are the process's own work.
   */
  access?: AccessPolicy;
  /**
   * How long an interrupted package write's heartbeat stands still before its content is rolled
   * back (packages/stale-package-intents.ts); default PACKAGE_INTENT_STALE_MS (2 min). Tests shorten it.
   */
  packageIntentStaleMs?: number;
  /** Told of each interrupted package write a sweep of this engine settled (the process logs it). */
  onPackageSweep?: (report: PackageSweepReport) => void;
}

/** Events one GetEvents answers at most (a gap fill asks again for the rest). */
const MAX_EVENTS_PER_READ = 1_000;

export const DEFAULT_OPERATION_HANDLE_TTL_MS = 3_600_000;
export const DEFAULT_OPERATION_LEASE_MS = 10_000;

export interface Engine extends CommandHandler {
  stream(command: Command): Promise<Reply<FileStream>>;
  /**
   * Start-up models, read from their files in chunks (docs/adr/0037). Not a command: a path on the
   * server is nothing a client may name.
   */
  importModelFiles(request: ModelFilesImport): Promise<ImportOutcome>;
  close(): Promise<void>;
}

type Handler<T extends CommandType> = (ctx: EngineContext, command: Command<T>) => Promise<Handled<CommandResult<T>>>;

const HANDLERS: { [T in CommandType]: Handler<T> } = {
  GetAllAssetAdministrationShells: getAllShells,
  GetAssetAdministrationShellById: getShell,
  PostAssetAdministrationShell: postShell,
  PutAssetAdministrationShellById: putShell,
  DeleteAssetAdministrationShellById: deleteShell,
  GetAssetInformation: getAssetInformation,
  PutAssetInformation: putAssetInformation,
  GetAllSubmodelReferences: getAllSubmodelReferences,
  PostSubmodelReference: postSubmodelReference,
  DeleteSubmodelReferenceById: deleteSubmodelReference,
  GetAllConceptDescriptions: getAllConceptDescriptions,
  GetConceptDescriptionById: getConceptDescription,
  PostConceptDescription: postConceptDescription,
  PutConceptDescriptionById: putConceptDescription,
  DeleteConceptDescriptionById: deleteConceptDescription,
  GetAllAssetAdministrationShellIdsByAssetLink: getAllShellIdsByAssetLink,
  GetAllAssetLinksById: getAllAssetLinks,
  PostAllAssetLinksById: postAllAssetLinks,
  DeleteAllAssetLinksById: deleteAllAssetLinks,
  GetAllSubmodels: getAllSubmodels,
  GetSubmodelById: getSubmodel,
  PostSubmodel: postSubmodel,
  PutSubmodelById: putSubmodel,
  PatchSubmodelById: patchSubmodel,
  DeleteSubmodelById: deleteSubmodel,
  GetAllSubmodelElements: getAllElements,
  GetSubmodelElementByPath: getElement,
  PostSubmodelElement: postElement,
  PutSubmodelElementByPath: putElement,
  PatchSubmodelElementByPath: patchElement,
  DeleteSubmodelElementByPath: deleteElement,
  PatchSubmodelElementValueByPath: patchElementValue,
  LoadEnvironment: loadEnvironment,
  GetSequence: async (ctx) => ({ value: { seq: await ctx.repository.currentSeq() } }),
  GetEvents: async (ctx, cmd) => {
    const { after, limit } = cmd.params;
    if (!Number.isSafeInteger(after) || after < 0 || !Number.isSafeInteger(limit) || limit < 1)
      throw new CommandError("bad-request", "GetEvents needs a non-negative 'after' and a positive 'limit'");
    const events = (await ctx.repository.readEvents?.(after, Math.min(limit, MAX_EVENTS_PER_READ))) ?? [];
    if (events[0]?.seq === after + 1) return { value: { events } };
    // Nothing, or not the next one: up to date, or `after` is no longer (or not yet) in the log.
    const { oldest, latest } = (await ctx.repository.eventLogBounds?.()) ?? {
      latest: await ctx.repository.currentSeq(),
    };
    const lost = after > latest || (latest > after && (oldest === undefined || oldest > after + 1));
    return { value: lost ? { events, reset: { ...(oldest !== undefined ? { oldest } : {}), latest } } : { events } };
  },
  InvokeOperation: invokeOperation,
  InvokeOperationAsync: invokeOperationAsync,
  GetOperationAsyncStatus: getOperationAsyncStatus,
  GetOperationAsyncResult: getOperationAsyncResult,
  ...FILE_HANDLERS,
};

function validationSettings(option: EngineOptions["validation"]): ValidationSettings {
  if (option === false) return { onLoad: false, onCreate: false, onUpdate: false };
  const given = typeof option === "object" ? option : {};
  return { onLoad: given.onLoad ?? true, onCreate: given.onCreate ?? true, onUpdate: given.onUpdate ?? true };
}

/** Anything a handler threw becomes a failure reply; aas input errors first become CommandErrors. */
function failure(error: unknown): Reply<never> {
  return failureReply(toCommandError(error));
}

/**
 * A command of several commits (a submodel deleted below a shell, then its reference; a package, an
 * import) that failed after one of them committed: `unavailable` (503) would tell the client that
 * nothing happened and that repeating is safe, which is not true, so it is a `timeout` (504: the
 * write may have been applied), saying what is known. Other errors keep their code: they describe
 * the step that failed, and none of them claims that nothing ran.
 */
function partlyApplied(reply: ReplyFailure, type: string): Reply<never> {
  if (reply.error.code !== "unavailable") return reply;
  return {
    ok: false,
    error: {
      code: "timeout",
      message: `${type} was applied in part before it failed (${reply.error.message}); check what it wrote before repeating it`,
    },
  };
}

/**
 * The model-store engine: commands → checks → repository commit → event. The same engine serves
 * embedded mode (direct calls) and the model-store process (NATS requests).
 */
export function createEngine(options: EngineOptions): Engine {
  if (options.maxNestingDepth !== undefined) setMaxNestingDepth(options.maxNestingDepth);
  const publish = options.publishEvents ?? options.bus !== undefined;
  const clock = options.clock ?? systemClock;
  const commit = createCommitRunner(options.repository, publish ? options.bus : undefined, {
    recordCacheSize: options.recordCacheSize,
  });
  const operationProviders = options.operationProviders ?? { find: () => undefined };
  const operations = createOperationRunner({
    repository: options.repository,
    commit,
    clock,
    providers: operationProviders,
    handleTtlMs: options.operationHandleTtlMs ?? DEFAULT_OPERATION_HANDLE_TTL_MS,
    leaseMs: options.operationLeaseMs ?? DEFAULT_OPERATION_LEASE_MS,
    ...(options.maxRunningOperations !== undefined ? { maxRunning: options.maxRunningOperations } : {}),
  });
  const idempotency = createIdempotency(options.repository, {
    windowMs: options.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS,
  });
  const resetHooks = options.resetHooks ?? [];
  // /reset removes pending operations: those running here are canceled, every handle is deleted.
  resetHooks.push(() => operations.reset());
  const ctx: EngineContext = {
    repository: options.repository,
    clock,
    validation: validationSettings(options.validation),
    bus: options.bus,
    commit,
    engineCommit: commit,
    packageIntents: new StalePackageIntents(options.packageIntentStaleMs, options.onPackageSweep),
    fileStore: options.fileStore ?? createMemoryFileStore(),
    uploadClaims: new UploadClaims(),
    uploadsDuringDeletes: new UploadsDuringDeletes(),
    aasxLimits: { ...DEFAULT_AASX_LIMITS, ...options.aasxLimits },
    resetHooks,
    operationProviders,
    operations,
    ...(options.importProgress ? { importProgress: options.importProgress } : {}),
    ...(options.pageBudgetChars !== undefined ? { pageBudgetChars: options.pageBudgetChars } : {}),
    ...(options.renderedSubmodelBytes
      ? { renderedSubmodels: createRenderedSubmodels(options.renderedSubmodelBytes) }
      : {}),
  };
  // A package write that died (its process killed, its store away) is rolled back here, in every
  // process that runs an engine, once its heartbeat stood still for the bound (docs/adr/0017).
  ctx.packageIntents.start(ctx);
  return {
    async execute<T extends CommandType>(
      command: Command<T>,
      executeOptions?: { deadline?: number },
    ): Promise<Reply<CommandResult<T>>> {
      const handler = HANDLERS[command.type] as Handler<T> | undefined;
      if (!handler)
        return { ok: false, error: { code: "bad-request", message: `Unknown command '${String(command.type)}'` } };
      // Authorization, the one place HTTP and OPC UA share (docs/adr/0024): before anything runs or
      // an Idempotency-Key is claimed.
      let access: AccessView | undefined;
      if (options.access !== undefined && command.principal !== undefined) {
        try {
          access = await checkCommand(options.access, ctx.repository, command);
        } catch (error) {
          return failure(error);
        }
      }
      // A write with an Idempotency-Key runs at most once per key (idempotency.ts, docs/adr/0017).
      // `return await`: returning the promise itself would cost extra microtask turns per command.
      return await idempotency.execute(command, async (run): Promise<Reply<CommandResult<T>>> => {
        // The command's own commit runner notes the last event it committed, for the reply's seq.
        let seq: number | undefined;
        const noted = (event: ChangeEvent) => {
          run?.committed();
          if (seq === undefined || event.seq > seq) seq = event.seq;
          return event;
        };
        let commandCtx = access === undefined ? ctx : { ...ctx, access };
        if (WRITE_COMMANDS.has(command.type)) {
          const deadline = executeOptions?.deadline;
          const noting = (async (target, plan) =>
            noted(await commit(target, inTime(run ? run.plan(plan) : plan, deadline, command.type)))) as CommitRunner;
          noting.batched = async (target, plan) =>
            noted(await commit.batched(target, inTime(run ? run.plan(plan) : plan, deadline, command.type)));
          noting.many = async (commits) => {
            if (deadline !== undefined && Date.now() >= deadline) throw pastDeadline(command.type);
            // An Idempotency-Key is claimed by the first commit, as a single write would claim it.
            const claiming =
              run && commits.length > 0
                ? [(await run.plan(async () => ({ commit: commits[0]! }))()).commit, ...commits.slice(1)]
                : commits;
            const results = await commit.many(claiming);
            for (const result of results) if (result.ok) noted(result.event);
            return results;
          };
          commandCtx = { ...commandCtx, commit: noting };
        }
        try {
          const handled = await handler(commandCtx, command);
          // A partial reader's answer is one view of the revision (docs/adr/0058).
          const view = access?.partialScope?.view;
          // The caller holds this very answer (docs/adr/0026): everything above was checked as for
          // any read (scope, access), only the value stays here.
          if (
            handled.revision !== undefined &&
            command.knownRevision === handled.revision &&
            command.knownItem === handled.item &&
            !WRITE_COMMANDS.has(command.type)
          )
            return {
              ok: true,
              value: null as CommandResult<T>,
              revision: handled.revision,
              unchanged: true,
              ...(view !== undefined ? { view } : {}),
              ...(handled.item !== undefined ? { item: handled.item } : {}),
            };
          return {
            ok: true,
            value: handled.value,
            ...(handled.revision !== undefined ? { revision: handled.revision } : {}),
            ...(handled.idShortPath !== undefined ? { idShortPath: handled.idShortPath } : {}),
            ...(seq !== undefined ? { seq } : {}),
            ...(view !== undefined ? { view } : {}),
            ...(handled.item !== undefined ? { item: handled.item } : {}),
          };
        } catch (error) {
          return seq === undefined ? failure(error) : partlyApplied(failureReply(toCommandError(error)), command.type);
        }
      });
    },
    async stream(command: Command): Promise<Reply<FileStream>> {
      if (!STREAMED_COMMANDS.has(command.type))
        return { ok: false, error: { code: "bad-request", message: `${String(command.type)} cannot be streamed` } };
      let access: AccessView | undefined;
      if (options.access !== undefined && command.principal !== undefined) {
        try {
          access = await checkCommand(options.access, ctx.repository, command);
        } catch (error) {
          return failure(error);
        }
      }
      try {
        const commandCtx = access === undefined ? ctx : { ...ctx, access };
        if (command.type === "GetAASXByPackageId")
          return { ok: true, value: await streamPackage(commandCtx, command as Command<"GetAASXByPackageId">) };
        return {
          ok: true,
          value: await streamSerialization(commandCtx, command as Command<"GenerateSerializationByIds">),
        };
      } catch (error) {
        return failure(error);
      }
    },
    async importModelFiles(request) {
      try {
        const sources = request.files.map((file) =>
          file.path !== undefined
            ? sourceOfFile(file.path, file.format, file.source)
            : sourceOfDocument(file.document ?? { format: file.format }, file.source),
        );
        const {
          written: _written,
          fileKeys: _fileKeys,
          taken: _taken,
          ...outcome
        } = await importSources(ctx, { ...request, sources });
        return outcome;
      } catch (error) {
        throw toCommandError(error);
      }
    },
    async close() {
      // The repository and bus are closed by whoever created them; what runs here ends first, while
      // they are still open (its handles are marked Failed, its events committed).
      ctx.packageIntents.stop();
      await operations.close();
    },
  };
}

/**
 * A plan that refuses to run once the caller's deadline has passed: the commit runner plans a write
 * right before it commits it (alone, or into the group it sends next), so a write that waited
 * longer than its caller (queued behind others, or in a process that stood still) is not written
 * after its caller was told 504 and may have written since (docs/adr/0017).
 */
function inTime<A extends unknown[], R>(
  plan: (...args: A) => Promise<R>,
  deadline: number | undefined,
  type: string,
): (...args: A) => Promise<R> {
  if (deadline === undefined) return plan;
  return (...args: A) => (Date.now() >= deadline ? Promise.reject(pastDeadline(type)) : plan(...args));
}

/** Nothing was written, so "unavailable" (503, safe to repeat); a caller still waiting hears the truth. */
function pastDeadline(type: string): CommandError {
  return new CommandError(
    "unavailable",
    `${type}: its caller's deadline passed before it was committed; nothing was written, repeating it is safe`,
  );
}
