export {
  type AccessObject,
  type AccessPolicy,
  type AccessRuleInput,
  type AccessSubject,
  compileAccessPolicy,
  type PrincipalGrants,
  type RightGrants,
  referenceKeyValues,
  type SubmodelFacts,
} from "./access/access-policy.ts";
export { filterElement } from "./access/element-filter.ts";
export { CONTAINER_OWN_VALUES, type ElementShown, elementShown } from "./access/element-on-the-way.ts";
export { type ElementScope, pathCovers, WHOLE_SUBMODEL } from "./access/id-short-path-scope.ts";
export { type BackoffPolicy, backoffDelay } from "./backoff.ts";
export {
  createEngine,
  DEFAULT_OPERATION_HANDLE_TTL_MS,
  DEFAULT_OPERATION_LEASE_MS,
  type Engine,
  type EngineOptions,
} from "./create-engine.ts";
export type { ValidationSettings } from "./engine-context.ts";
export * from "./filesystem/existing-files.ts";
export * from "./filesystem/filesystem-file-store.ts";
export type { SourcesImportRequest } from "./import/import-documents.ts";
export type { ImportPhase, ImportProgressListener } from "./import/import-progress.ts";
export { type ImportSource, sourceOfDocument, sourceOfFile } from "./import/import-source.ts";
export {
  assetIdTerm,
  type IndexField,
  indexTerm,
  indexTermsOf,
  indexTermsOfJson,
  referenceTerms,
} from "./index-terms.ts";
export * from "./memory/direct-store-client.ts";
export * from "./memory/in-process-event-bus.ts";
export * from "./memory/memory-file-store.ts";
export * from "./memory/memory-repository.ts";
export { forgetPackageRecords } from "./packages/forget-package-records.ts";
export { packageSweepLine } from "./packages/package-sweep-log.ts";
export type { PackageSweepReport } from "./packages/stale-package-intents.ts";
export * from "./ports/index.ts";
export {
  anyReferenceMatches,
  parseReferenceFilter,
  type ReferenceFilter,
  referenceMatches,
} from "./reference-filter.ts";
export * from "./streams-from.ts";
