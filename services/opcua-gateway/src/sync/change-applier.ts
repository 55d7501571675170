import { type ChangeEvent, isPlainObject, type Progress, type StoreClient, splitParent } from "@twinport/shared";
import type { BaseNode } from "node-opcua";
import { elementWeight } from "../address-space/element-count.ts";
import { elementSpec } from "../address-space/element-specs.ts";
import { conceptDescriptionSpec, shellSpec, submodelSpec } from "../address-space/identifiable-specs.ts";
import type { IdentifiableKind, LazyIdentifiables } from "../address-space/lazy-identifiables.ts";
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
  /** Which identifiables have their nodes made (ADR 0036). */
  lazy: LazyIdentifiables;
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
    case "submodel":
    case "concept-description":
      return applyIdentifiable(target, event, change, entity);
    case "element":
      return applyElement(target, event, change);
    default:
      // Operation lifecycle events change no node.
      return;
  }
}

/** How one kind of identifiable is read from the store, mapped and placed. */
export function identifiableMapping(
  target: MirrorTarget,
  kind: IdentifiableKind,
  id: string,
): { query: () => Promise<unknown>; spec: (json: Json) => ObjectSpec; parent: BaseNode } {
  switch (kind) {
    case "shell":
      return {
        query: () => read(target.store, "GetAssetAdministrationShellById", { aasId: id }),
        spec: (json) => shellSpec(target.ctx, json),
        parent: target.environment,
      };
    case "submodel":
      return {
        query: () => read(target.store, "GetSubmodelById", { submodelId: id, modifiers: WITH_BLOBS }),
        spec: (json) => submodelSpec(target.ctx, json),
        parent: target.environment,
      };
    case "concept-description":
      return {
        query: () => read(target.store, "GetConceptDescriptionById", { cdId: id }),
        spec: (json) => conceptDescriptionSpec(target.ctx, json),
        parent: target.conceptDescriptions,
      };
  }
}

/** The identifiable's own node only: what hangs below it is made on first use (ADR 0036). */
export function ownNodeOnly(spec: ObjectSpec): ObjectSpec {
  return { ...spec, children: [] };
}

/** Its full nodes when they are made, its own node only otherwise. */
export function placeIdentifiable(target: MirrorTarget, spec: ObjectSpec, parent: BaseNode, id: string): void {
  target.builder.apply(target.lazy.isMaterialized(id) ? spec : ownNodeOnly(spec), parent);
}

function applyIdentifiable(
  target: MirrorTarget,
  event: ChangeEvent,
  change: string,
  kind: IdentifiableKind,
): void | Promise<void> {
  const nodeId = identifiableNodeId(event.id);
  if (change === "deleted") {
    target.lazy.forget(event.id);
    return target.builder.remove(nodeId);
  }
  target.lazy.set(event.id, kind);
  const { query, spec, parent } = identifiableMapping(target, kind, event.id);
  const place = (json: unknown) => placeIdentifiable(target, spec(json as Json), parent, event.id);
  if (event.payload !== undefined) return place(event.payload);
  return queryOrRemove(target, nodeId, query, place);
}

function applyElement(target: MirrorTarget, event: ChangeEvent, change: string): void | Promise<void> {
  const path = event.idShortPath;
  if (path === undefined) throw new OutOfSyncError(`${event.kind} event ${event.seq} has no idShortPath`);
  // Nodes not made yet are made from the store's state when first used: nothing to change now.
  if (target.lazy.isKnown(event.id) && !target.lazy.isMaterialized(event.id)) return;
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
    if (error instanceof StoreReadError && error.code === "not-found") {
      if (nodeId.endsWith("|")) target.lazy.forget(nodeId.slice(0, -1));
      return target.builder.remove(nodeId);
    }
    throw error;
  }
  place(json);
}

/** What a snapshot took: the seq it is stamped with, and where the time went. */
export interface SnapshotReport {
  seq: number;
  identifiables: number;
  /** Identifiables whose nodes were made before and were read in full again. */
  materialized: number;
  /** Waiting for the store's pages. */
  readMs: number;
  /** Turning them into nodes. */
  buildMs: number;
}

/** Pages of metadata, shells and concept descriptions: bounded reads, few round trips. */
const SNAPSHOT_PAGE = 500;

/**
 * Reads every identifiable and makes the address space match it, patching nodes in place
 * (NodeIds and monitored items survive) and removing what no longer exists. Stamped with the
 * sequence number read before the first page: every event above it must still be applied.
 *
 * Submodels are listed as metadata: each gets its own node, and only those whose nodes are made
 * (in use, ADR 0036) are read in full again, one by one. So start-up reads no element at all, and a
 * resync only the elements someone uses.
 */
export async function applySnapshot(target: MirrorTarget, progress?: Progress): Promise<SnapshotReport> {
  const { store, ctx, lazy } = target;
  const started = performance.now();
  let buildMs = 0;
  const { seq } = (await read(store, "GetSequence", {})) as { seq: number };
  const seen = new Set<string>();
  const place = (kind: IdentifiableKind, spec: ObjectSpec, parent: BaseNode) => {
    seen.add(spec.nodeId);
    const id = spec.nodeId.slice(0, -1);
    lazy.set(id, kind);
    const building = performance.now();
    // One identifiable the mapping cannot handle must not keep the others out of the address space.
    try {
      placeIdentifiable(target, spec, parent, id);
    } catch (error) {
      target.log(`opcua-gateway: ${id} could not be mapped: ${(error as Error).stack ?? error}`);
    }
    buildMs += performance.now() - building;
    progress?.advance(1);
  };
  const again: string[] = [];
  // Submodels first: shells then link their submodel references to existing nodes.
  await readPages(
    store,
    "GetAllSubmodels",
    SNAPSHOT_PAGE,
    (items) =>
      items.forEach((json) => {
        const id = String(json.id);
        if (lazy.isMaterialized(id)) {
          // Read in full below; listed here so it is not taken for deleted.
          seen.add(identifiableNodeId(id));
          again.push(id);
        } else place("submodel", submodelSpec(ctx, json), target.environment);
      }),
    { content: "metadata" },
  );
  await readPages(store, "GetAllAssetAdministrationShells", SNAPSHOT_PAGE, (items) =>
    items.forEach((json) => place("shell", shellSpec(ctx, json), target.environment)),
  );
  await readPages(store, "GetAllConceptDescriptions", SNAPSHOT_PAGE, (items) =>
    items.forEach((json) =>
      place("concept-description", conceptDescriptionSpec(ctx, json), target.conceptDescriptions),
    ),
  );
  for (const id of again) {
    const { query, spec, parent } = identifiableMapping(target, "submodel", id);
    let json: unknown;
    try {
      json = await query();
    } catch (error) {
      // Deleted since it was listed: its deletion event (above seq) removes the node.
      if (error instanceof StoreReadError && error.code === "not-found") continue;
      throw error;
    }
    place("submodel", spec(json as Json), parent);
    lazy.recount(id, elementWeight("submodel", json));
  }
  for (const parent of [target.environment, target.conceptDescriptions]) {
    for (const node of target.builder.ownChildren(parent)) {
      const local = node.nodeId.value as string;
      if (node !== target.conceptDescriptions && !seen.has(local)) {
        target.builder.remove(node);
        lazy.forget(local.slice(0, -1));
      }
    }
  }
  return {
    seq,
    identifiables: seen.size,
    materialized: again.length,
    readMs: performance.now() - started - buildMs,
    buildMs,
  };
}
