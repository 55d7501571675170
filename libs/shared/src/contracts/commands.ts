import { FILE_COMMAND_TYPES, FILE_WRITE_COMMANDS, type FileCommandMap } from "./file-commands.ts";
import type { OutputModifiers, PageRequest, Preconditions } from "./modifiers.ts";
import { OPERATION_COMMAND_TYPES, OPERATION_WRITE_COMMANDS, type OperationCommandMap } from "./operation-commands.ts";
import type { Paged } from "./replies.ts";

/**
 * One `assetIds` filter value: the name and value of a SpecificAssetId (or "globalAssetId"), and,
 * when the client gave one, the externalSubjectId the asset id must carry too (a Reference as JSON).
 */
export interface AssetIdQuery {
  name: string;
  value: string;
  externalSubjectId?: { type?: string; keys: { type: string; value: string }[] };
}

/**
 * Commands and queries: the one operation model every endpoint (HTTP, OPC UA, asset connections)
 * translates its requests into. Names follow the operationIds of the AAS API v3.0.1.
 *
 * Request bodies travel as JSON text (`body`), so the engine is the one place that parses, checks
 * unknown properties and keeps xs:decimal/xs:long digits exact. Replies carry plain JSON values.
 */

/** Submodel commands may be scoped below a shell: the submodel must then be referenced by it. */
interface SubmodelScope {
  submodelId: string;
  /** Set when the request came through /shells/{aasIdentifier}/submodels/{submodelIdentifier}/… */
  aasId?: string;
}

export interface CommandMap extends FileCommandMap, OperationCommandMap {
  // ---- AAS Repository API
  GetAllAssetAdministrationShells: {
    /** modifiers.content "reference": `/shells/$reference` (items are ModelReferences). */
    params: {
      page?: PageRequest;
      idShort?: string;
      assetIds?: AssetIdQuery[];
      modifiers?: OutputModifiers;
    };
    result: Paged<unknown>;
  };
  GetAssetAdministrationShellById: { params: { aasId: string; modifiers?: OutputModifiers }; result: unknown };
  PostAssetAdministrationShell: { params: { body: string; preconditions?: Preconditions }; result: unknown };
  PutAssetAdministrationShellById: {
    params: { aasId: string; body: string; preconditions?: Preconditions };
    result: null;
  };
  DeleteAssetAdministrationShellById: { params: { aasId: string; preconditions?: Preconditions }; result: null };

  // ---- AAS API (mounted at /shells/{aasIdentifier}); every write is a write of the shell
  GetAssetInformation: { params: { aasId: string }; result: unknown };
  PutAssetInformation: { params: { aasId: string; body: string; preconditions?: Preconditions }; result: null };
  GetAllSubmodelReferences: { params: { aasId: string; page?: PageRequest }; result: Paged<unknown> };
  PostSubmodelReference: { params: { aasId: string; body: string; preconditions?: Preconditions }; result: unknown };
  DeleteSubmodelReferenceById: {
    params: { aasId: string; submodelId: string; preconditions?: Preconditions };
    result: null;
  };

  // ---- Concept Description Repository API
  GetAllConceptDescriptions: {
    /** isCaseOf, dataSpecificationRef: decoded query text, a Reference as JSON or one key value. */
    params: { page?: PageRequest; idShort?: string; isCaseOf?: string; dataSpecificationRef?: string };
    result: Paged<unknown>;
  };
  GetConceptDescriptionById: { params: { cdId: string }; result: unknown };
  PostConceptDescription: { params: { body: string; preconditions?: Preconditions }; result: unknown };
  PutConceptDescriptionById: { params: { cdId: string; body: string; preconditions?: Preconditions }; result: null };
  DeleteConceptDescriptionById: { params: { cdId: string; preconditions?: Preconditions }; result: null };

  // ---- Basic Discovery API: asset links are the shells' asset ids (docs/adr/0005)
  GetAllAssetAdministrationShellIdsByAssetLink: {
    params: { page?: PageRequest; assetIds?: AssetIdQuery[] };
    result: Paged<string>;
  };
  GetAllAssetLinksById: { params: { aasId: string }; result: unknown[] };
  /** body: a JSON array of SpecificAssetIds. */
  PostAllAssetLinksById: { params: { aasId: string; body: string; preconditions?: Preconditions }; result: unknown[] };
  DeleteAllAssetLinksById: { params: { aasId: string; preconditions?: Preconditions }; result: null };

  // ---- Submodel Repository API
  GetAllSubmodels: {
    params: { page?: PageRequest; idShort?: string; semanticId?: string; modifiers?: OutputModifiers };
    result: Paged<unknown>;
  };
  GetSubmodelById: { params: SubmodelScope & { modifiers?: OutputModifiers }; result: unknown };
  PostSubmodel: { params: { body: string; preconditions?: Preconditions }; result: unknown };
  PutSubmodelById: { params: SubmodelScope & { body: string; preconditions?: Preconditions }; result: null };
  /**
   * PATCH /submodels/{id} ("normal"), …/$metadata ("metadata"), …/$value ("value"): an RFC 7386
   * merge patch of that representation, validated like a PUT; the $value body is ValueOnly.
   */
  PatchSubmodelById: {
    params: SubmodelScope & { body: string; content?: "normal" | "metadata" | "value"; preconditions?: Preconditions };
    result: null;
  };
  DeleteSubmodelById: { params: SubmodelScope & { preconditions?: Preconditions }; result: null };

  // ---- Submodel API (elements)
  GetAllSubmodelElements: {
    params: SubmodelScope & { page?: PageRequest; modifiers?: OutputModifiers };
    result: Paged<unknown>;
  };
  GetSubmodelElementByPath: {
    params: SubmodelScope & { idShortPath: string; modifiers?: OutputModifiers };
    result: unknown;
  };
  /** idShortPath absent: post at the submodel's root; present: into that collection/list/entity. */
  PostSubmodelElement: {
    params: SubmodelScope & { idShortPath?: string; body: string; preconditions?: Preconditions };
    result: unknown;
  };
  PutSubmodelElementByPath: {
    params: SubmodelScope & { idShortPath: string; body: string; preconditions?: Preconditions };
    result: null;
  };
  /** PATCH …/{idShortPath} ("normal") and …/$metadata ("metadata"); …/$value is PatchSubmodelElementValueByPath. */
  PatchSubmodelElementByPath: {
    params: SubmodelScope & {
      idShortPath: string;
      body: string;
      content?: "normal" | "metadata";
      preconditions?: Preconditions;
    };
    result: null;
  };
  DeleteSubmodelElementByPath: {
    params: SubmodelScope & { idShortPath: string; preconditions?: Preconditions };
    result: null;
  };
  /** PATCH …/$value: the body is the ValueOnly form (wrapped `{"idShort": v}` or bare). */
  PatchSubmodelElementValueByPath: {
    params: SubmodelScope & { idShortPath: string; body: string; preconditions?: Preconditions };
    result: null;
  };

  // ---- Store internals used by processes (not exposed over HTTP)
  /** Load an AAS environment (JSON text) into the store; used for -m and seeding. */
  LoadEnvironment: {
    params: { body: string; validate?: boolean; onlyIfEmpty?: boolean };
    result: { shells: number; submodels: number; conceptDescriptions: number; skipped: boolean };
  };
  /** The store's current sequence number (for subscribers checking they are up to date). */
  GetSequence: { params: Record<string, never>; result: { seq: number } };
  /**
   * Committed events after seq `after`, in order, from the store's event log (at most `limit`):
   * how a subscriber fills a gap in what the bus delivered, and how an event stream replays what
   * its client missed. Missing at the front when the log no longer holds them: then `reset` says so
   * (docs/adr/0029), with the oldest seq the log holds (absent when it holds none) and the store's
   * latest; `reset` also when `after` is beyond the latest (a memory store that restarted).
   */
  GetEvents: {
    params: { after: number; limit: number };
    result: { events: import("./events.ts").ChangeEvent[]; reset?: { oldest?: number; latest: number } };
  };
}

export type CommandType = keyof CommandMap;
export type CommandParams<T extends CommandType> = CommandMap[T]["params"];
export type CommandResult<T extends CommandType> = CommandMap[T]["result"];

export interface Command<T extends CommandType = CommandType> {
  type: T;
  params: CommandParams<T>;
  /** Which endpoint sent it ("http", "opcua", ...), carried into the event. */
  origin?: string;
  correlationId?: string;
  /**
   * A write sent with an Idempotency-Key (docs/adr/0017): the engine runs it at most once per key
   * and answers repeats with the first outcome. `fingerprint` identifies the request the key was
   * first used for (a repeat with another fingerprint is refused).
   */
  idempotency?: { key: string; fingerprint: string };
  /** Who asks (contracts/principal.ts); absent only for the model-store's own in-process work. */
  principal?: import("./principal.ts").Principal;
  /**
   * A read whose answer the caller already holds at this revision (docs/adr/0026): when the answer
   * still has it, the reply comes without the value (`unchanged: true`). Revisions never repeat and
   * cover a container's subtree (ADR 0001), so an equal revision means an identical answer.
   */
  knownRevision?: number;
  /** With `knownRevision`: the element the held answer came from (ReplyOk.item). */
  knownItem?: string;
  /**
   * Sent by a gateway without a security section to learn whether the store enforces access rules
   * (bus/store-access-stance.ts), as anonymous on purpose: a store without a security section
   * refuses it as it refuses every caller's principal, and that refusal is the answer asked for,
   * not a misconfiguration for the store to log. It changes nothing else: the command is checked,
   * run and answered as without it.
   */
  accessStanceProbe?: true;
}

/**
 * Commands a gateway may send to a model-store replica inside one command batch (docs/adr/0042):
 * the writes of submodels, shells and concept descriptions, whose replies are small and which the
 * store commits together anyway. Not: reads (one slow read would hold the batch's one reply), file
 * and operation commands (uploads, long invocations), LoadEnvironment (bulk).
 */
export const BATCHED_COMMANDS: ReadonlySet<CommandType> = new Set<CommandType>([
  "PostAssetAdministrationShell",
  "PutAssetAdministrationShellById",
  "DeleteAssetAdministrationShellById",
  "PutAssetInformation",
  "PostSubmodelReference",
  "DeleteSubmodelReferenceById",
  "PostConceptDescription",
  "PutConceptDescriptionById",
  "DeleteConceptDescriptionById",
  "PostAllAssetLinksById",
  "DeleteAllAssetLinksById",
  "PostSubmodel",
  "PutSubmodelById",
  "DeleteSubmodelById",
  "PostSubmodelElement",
  "PutSubmodelElementByPath",
  "PatchSubmodelById",
  "PatchSubmodelElementByPath",
  "DeleteSubmodelElementByPath",
  "PatchSubmodelElementValueByPath",
]);

/** Commands that change state; everything else is a read-only query. */
export const WRITE_COMMANDS: ReadonlySet<CommandType> = new Set<CommandType>([
  ...BATCHED_COMMANDS,
  "LoadEnvironment",
  ...FILE_WRITE_COMMANDS,
  ...OPERATION_WRITE_COMMANDS,
]);

export const COMMAND_TYPES: readonly CommandType[] = [
  "GetAllAssetAdministrationShells",
  "GetAssetAdministrationShellById",
  "PostAssetAdministrationShell",
  "PutAssetAdministrationShellById",
  "DeleteAssetAdministrationShellById",
  "GetAssetInformation",
  "PutAssetInformation",
  "GetAllSubmodelReferences",
  "PostSubmodelReference",
  "DeleteSubmodelReferenceById",
  "GetAllConceptDescriptions",
  "GetConceptDescriptionById",
  "PostConceptDescription",
  "PutConceptDescriptionById",
  "DeleteConceptDescriptionById",
  "GetAllAssetAdministrationShellIdsByAssetLink",
  "GetAllAssetLinksById",
  "PostAllAssetLinksById",
  "DeleteAllAssetLinksById",
  "GetAllSubmodels",
  "GetSubmodelById",
  "PostSubmodel",
  "PutSubmodelById",
  "DeleteSubmodelById",
  "PatchSubmodelById",
  "GetAllSubmodelElements",
  "GetSubmodelElementByPath",
  "PostSubmodelElement",
  "PutSubmodelElementByPath",
  "PatchSubmodelElementByPath",
  "DeleteSubmodelElementByPath",
  "PatchSubmodelElementValueByPath",
  "LoadEnvironment",
  "GetSequence",
  "GetEvents",
  ...FILE_COMMAND_TYPES,
  ...OPERATION_COMMAND_TYPES,
];
