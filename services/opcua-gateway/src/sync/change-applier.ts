import {
  type ChangeEvent,
  countSubmodelElements,
  isPlainObject,
  type Progress,
  type StoreClient,
  splitParent,
} from "@twinport/shared";
import type { BaseNode } from "node-opcua";
import { elementSpec } from "../address-space/element-specs.ts";
import { conceptDescriptionSpec, shellSpec, submodelSpec } from "../address-space/identifiable-specs.ts";
import type { NodeBuilder } from "../address-space/node-builder.ts";
import { elementNodeId, identifiableNodeId, subNodeId } from "../address-space/node-ids.ts";
import type { ObjectSpec } from "../address-space/node-spec.ts";
import type { Json, SpecContext } from "../address-space/spec-context.ts";
import { read, readPages, StoreReadError } from "./store-reads.ts";
import { applyValueFast } from "./value-fast-path.ts";

/** The address space one gateway keeps in sync: where identifiables hang and how to build nodes. */
export interface MirrorTarget {
  store: StoreClient;
  log(line: string): void;
  builder: NodeBuilder;
  ctx: SpecContext;
  environment: BaseNode;
  conceptDescriptions: BaseNode;
}

/** The address space no longer matches the events (e.g. an element's parent is missing): resync. */
export class OutOfSyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutOfSyncError";
  }
}

const WITH_BLOBS = { extent: "withBlobValue" as const };

/**
 * Applies one change event to the address space. Events carry the new state (not a delta), so
 * applying one twice, or on top of a snapshot that already contains it, gives the same nodes:
 * what makes "snapshot at seq S, then every event above S" correct while pages are read.
 * Synchronous when the event carries its payload (the usual value change), so it is fast.
 */
export function applyChange(target: MirrorTarget, event: ChangeEvent): void | Promise<void> {
  const [entity, change] = event.kind.split(".") as [string, string];
  switch (entity) {
    case "shell":
      return applyIdentifiable(
        target,
        event,
        change,
        () => read(target.store, "GetAssetAdministrationShellById", { aasId: event.id }),
        (json) => shellSpec(target.ctx, json),
        target.environment,
      );
    case "submodel":
      return applyIdentifiable(
        target,
        event,
        change,
        () => read(target.store, "GetSubmodelById", { submodelId: event.id, modifiers: WITH_BLOBS }),
        (json) => submodelSpec(target.ctx, json),
        target.environment,
      );
    case "concept-description":
      return applyIdentifiable(
        target,
        event,
        change,
        () => read(target.store, "GetConceptDescriptionById", { cdId: event.id }),
        (json) => conceptDescriptionSpec(target.ctx, json),
        target.conceptDescriptions,
      );
    case "element":
      return applyElement(target, event, change);
    default:
      // Operation lifecycle events change no node.
      return;
  }
}

function applyIdentifiable(
  target: MirrorTarget,
  event: ChangeEvent,
  change: string,
  query: () => Promise<unknown>,
  spec: (json: Json) => ObjectSpec,
  parent: BaseNode,
): void | Promise<void> {
  const nodeId = identifiableNodeId(event.id);
  if (change === "deleted") return target.builder.remove(nodeId);
  const place = (json: unknown) => void target.builder.apply(spec(json as Json), parent);
  if (event.payload !== undefined) return place(event.payload);
  return queryOrRemove(target, nodeId, query, place);
}

function applyElement(target: MirrorTarget, event: ChangeEvent, change: string): void | Promise<void> {
  const path = event.idShortPath;
  if (path === undefined) throw new OutOfSyncError(`${event.kind} event ${event.seq} has no idShortPath`);
  const { parentPath, index } = splitParent(path);
  // Removing a list item renumbers the items after it, which no event reports: rebuild the whole
  // list from the store (its nodes are patched in place). Adding one appends it (the store always
  // does, ADR 0020) and replacing one keeps its index, so those touch that item's nodes only.
  if (index !== undefined && change === "deleted") return reloadElement(target, event.id, parentPath);
  if (change === "deleted") return target.builder.remove(elementNodeId(event.id, path));
  if (
    change === "value-changed" &&
    isPlainObject(event.payload) &&
    applyValueFast(target.builder, event.id, path, event.payload as Json)
  )
    return;
  if (event.payload !== undefined) return placeElement(target, event.id, path, event.payload as Json);
  return reloadElement(target, event.id, path);
}

function reloadElement(target: MirrorTarget, submodelId: string, path: string): Promise<void> {
  return queryOrRemove(
    target,
    elementNodeId(submodelId, path),
    () => read(target.store, "GetSubmodelElementByPath", { submodelId, idShortPath: path, modifiers: WITH_BLOBS }),
    (json) => placeElement(target, submodelId, path, json as Json),
  );
}

function placeElement(target: MirrorTarget, submodelId: string, path: string, element: Json): void {
  const { parentPath } = splitParent(path);
  const parent =
    parentPath === ""
      ? target.builder.find(identifiableNodeId(submodelId))
      : containerOf(target.builder, elementNodeId(submodelId, parentPath));
  if (parent === null) throw new OutOfSyncError(`no node for the parent of ${submodelId} ${path}`);
  target.builder.apply(elementSpec(target.ctx, submodelId, element, path), parent);
}

/** Where an element's children hang: Entity statements and annotations have a grouping node. */
function containerOf(builder: NodeBuilder, elementLocal: string): BaseNode | null {
  const element = builder.find(elementLocal);
  if (element === null) return null;
  return (
    builder.find(subNodeId(elementLocal, "Statement")) ?? builder.find(subNodeId(elementLocal, "Annotation")) ?? element
  );
}

/** The current state from the store; gone by now (deleted after this event) → the node goes too. */
async function queryOrRemove(
  target: MirrorTarget,
  nodeId: string,
  query: () => Promise<unknown>,
  place: (json: unknown) => void,
): Promise<void> {
  let json: unknown;
  try {
    json = await query();
  } catch (error) {
    if (error instanceof StoreReadError && error.code === "not-found") return target.builder.remove(nodeId);
    throw error;
  }
  place(json);
}

/** What a snapshot took: the seq it is stamped with, and where the time went. */
export interface SnapshotReport {
  seq: number;
  identifiables: number;
  /** Submodel elements, nested ones included. */
  elements: number;
  /** Waiting for the store's pages. */
  readMs: number;
  /** Turning them into nodes. */
  buildMs: number;
}

/**
 * Reads the whole environment and makes the address space match it, patching nodes in place
 * (NodeIds and monitored items survive) and removing what no longer exists. Stamped with the
 * sequence number read before the first page: every event above it must still be applied.
 */
export async function applySnapshot(target: MirrorTarget, progress?: Progress): Promise<SnapshotReport> {
  const { store, builder, ctx } = target;
  const started = performance.now();
  let buildMs = 0;
  const { seq } = (await read(store, "GetSequence", {})) as { seq: number };
  const seen = new Set<string>();
  const place = (spec: ObjectSpec, parent: BaseNode) => {
    seen.add(spec.nodeId);
    const building = performance.now();
    // One identifiable the mapping cannot handle must not keep the others out of the address space.
    try {
      builder.apply(spec, parent);
    } catch (error) {
      target.log(`opcua-gateway: ${spec.nodeId.slice(0, -1)} could not be mapped: ${(error as Error).stack ?? error}`);
    }
    buildMs += performance.now() - building;
  };
  // Submodels first: shells then link their submodel references to existing nodes.
  let elements = 0;
  await readPages(store, "GetAllSubmodels", 20, (items) =>
    items.forEach((json) => {
      place(submodelSpec(ctx, json), target.environment);
      const count = countSubmodelElements((json as { submodelElements?: unknown }).submodelElements);
      elements += count;
      progress?.advance(count);
    }),
  );
  await readPages(store, "GetAllAssetAdministrationShells", 100, (items) =>
    items.forEach((json) => place(shellSpec(ctx, json), target.environment)),
  );
  await readPages(store, "GetAllConceptDescriptions", 100, (items) =>
    items.forEach((json) => place(conceptDescriptionSpec(ctx, json), target.conceptDescriptions)),
  );
  for (const parent of [target.environment, target.conceptDescriptions]) {
    for (const node of builder.ownChildren(parent)) {
      if (node !== target.conceptDescriptions && !seen.has(node.nodeId.value as string)) builder.remove(node);
    }
  }
  return { seq, identifiables: seen.size, elements, readMs: performance.now() - started - buildMs, buildMs };
}
