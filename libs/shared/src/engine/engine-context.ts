import type { AasxLimits } from "../aas/index.ts";
import type { ImportProgressListener } from "./import/import-progress.ts";
import type { Clock, EventBus, FileStore, Repository } from "./ports/index.ts";

/** Something that must stop or forget before a reset deletes the model (asset connections, pending operations). */
export type ResetHook = () => Promise<void>;

export interface ValidationSettings {
  /** Metamodel verification of models loaded at start-up (--no-validation turns it off). */
  onLoad: boolean;
  onCreate: boolean;
  onUpdate: boolean;
}

/** What every handler gets: the ports plus settings. */
export interface EngineContext {
  repository: Repository;
  clock: Clock;
  validation: ValidationSettings;
  /** Commit with compare-and-set retries, then publish the event (embedded mode). */
  commit: import("./commit-runner.ts").CommitRunner;
  /**
   * The engine's own commit runner, without a command's deadline or Idempotency-Key: what takes
   * back a failed command's writes (a package's rollback) must not be refused because that
   * command's caller stopped waiting.
   */
  engineCommit: import("./commit-runner.ts").CommitRunner;
  /** Package writes under way here, and the sweep of those that died (packages/stale-package-intents.ts). */
  packageIntents: import("./packages/stale-package-intents.ts").StalePackageIntents;
  bus?: EventBus;
  /** The bytes behind File elements, thumbnails and AASX packages. */
  fileStore: FileStore;
  /** Uploads that writes in flight name, seen by a release before it deletes (files/upload-claims.ts). */
  uploadClaims: import("./files/upload-claims.ts").UploadClaims;
  /** Attachments committed while a delete of their submodel runs (files/uploads-during-deletes.ts). */
  uploadsDuringDeletes: import("./files/uploads-during-deletes.ts").UploadsDuringDeletes;
  /** Bounds on reading AASX packages (core.minInflateRatio and the size limits). */
  aasxLimits: AasxLimits;
  /** Run in order by ResetStore before it deletes anything. */
  resetHooks: readonly ResetHook[];
  /** Who runs Operations; an Operation without a provider fails with a clear message. */
  operationProviders: import("./ports/operation-provider.ts").OperationProviderRegistry;
  /** Large submodels as last assembled, checked against the revision read per request. */
  renderedSubmodels?: import("./rendered-submodels.ts").RenderedSubmodels;
  /** The invocation lifecycle: sync and async calls, handles, their events. */
  operations: import("./operations/operation-runner.ts").OperationRunner;
  /** Told after each identifiable an import reads and checks, and after each it commits. */
  importProgress?: ImportProgressListener;
  /** Element record characters after which a page of submodels ends early (handlers/submodels.ts). */
  pageBudgetChars?: number;
  /** What the command's caller may see (lists, submodel content); absent: everything (access/command-access.ts). */
  access?: import("./access/command-access.ts").AccessView;
}
