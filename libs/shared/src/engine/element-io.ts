import {
  assembleElement,
  assembleElements,
  childrenKey,
  type ElementJson,
  echoed,
  flattenElements,
  splitParent,
} from "../aas/index.ts";
import { CommandError } from "../contracts/index.ts";
import type { CommitOp, Repository, StoredElement } from "./ports/index.ts";

/**
 * Reading and writing element subtrees in the repository's shallow-record layout. Everything here
 * touches only the records of the addressed subtree, never the whole submodel.
 */

/** The element at `path` with all its descendants, plus its stored record (undefined if missing). */
export interface LoadedElement {
  element: ElementJson;
  record: StoredElement;
  /** All records of the subtree, root first. */
  records: StoredElement[];
}

export async function loadElement(
  repository: Repository,
  submodelId: string,
  path: string,
  maxDepth?: number,
): Promise<LoadedElement | undefined> {
  // Leaves (the common case: a Property) cost one point read; only containers read their subtree.
  const [record] = await repository.getElements(submodelId, [path]);
  if (!record) return undefined;
  const shallow = JSON.parse(record.json) as ElementJson;
  if (childrenKey(shallow) === undefined || maxDepth === 0) return { element: shallow, record, records: [record] };
  const records = await repository.getSubtree(submodelId, path, maxDepth);
  if (records.length === 0 || records[0].path !== path) return undefined; // deleted meanwhile
  return { element: assemble(records, path), record: records[0], records };
}

/** Assemble the element at `path` from the records of its subtree (document order). */
export function assemble(records: StoredElement[], path: string): ElementJson {
  const element = assembleElement(
    records.map((r) => ({ path: r.path, shallow: JSON.parse(r.json) as ElementJson })),
    path,
  );
  if (!element) throw new Error(`Element records of '${path}' are incomplete`);
  return element;
}

/**
 * All root elements of a submodel, assembled. `size`, when given, is told the characters of the
 * records read (about what they take as JSON text; list pages bound themselves by it).
 */
export async function loadAllElements(
  repository: Repository,
  submodelId: string,
  maxDepth?: number,
  size?: { chars: number },
): Promise<ElementJson[]> {
  const records = await repository.getSubtree(submodelId, "", maxDepth);
  if (size) for (const record of records) size.chars += record.json.length;
  return assembleElements(
    records.map((r) => ({ path: r.path, shallow: JSON.parse(r.json) as ElementJson })),
    "",
  );
}

/** Ops writing `element` as a NEW subtree below `parentPath` (each record inserted into its parent). */
export type PutElementOp = Extract<CommitOp, { op: "put-element" }>;

export function insertOps(
  submodelId: string,
  parentPath: string,
  elements: ElementJson[],
  parentIsList: boolean,
): PutElementOp[] {
  return flattenElements(elements, parentPath, parentIsList).map((r) => ({
    op: "put-element" as const,
    submodelId,
    path: r.path,
    json: JSON.stringify(r.shallow),
    insert: { parentPath: r.parentPath, segment: r.segment, index: r.index },
  }));
}

/**
 * Ops deleting the given records (a subtree read with getSubtree, or several, in document order).
 * They go in REVERSE document order: the store resolves each path when its op applies, and deleting
 * a list item shifts only the items after it (and their descendants), which are gone by then.
 */
export function deleteOps(submodelId: string, records: StoredElement[]): CommitOp[] {
  const ops: CommitOp[] = [];
  for (let i = records.length - 1; i >= 0; i--)
    ops.push({ op: "delete-element", submodelId, path: records[i].path, orderKey: records[i].orderKey });
  return ops;
}

/** Every proper ancestor of an idShortPath, innermost first: `a.b[2].c` → `a.b[2]`, `a.b`, `a`. */
export function ancestorsOf(path: string): string[] {
  const result: string[] = [];
  let current = splitParent(path).parentPath;
  while (current !== "") {
    result.push(current);
    current = splitParent(current).parentPath;
  }
  return result;
}

/** A write below a submodel sets the revision of every ancestor and of the submodel (ETags cover subtrees). */
export function touchOps(submodelId: string, path: string, includeSelf = false): CommitOp[] {
  const paths = includeSelf ? [path, ...ancestorsOf(path)] : ancestorsOf(path);
  return [
    ...paths.map((p) => ({ op: "touch-element" as const, submodelId, path: p })),
    { op: "touch-identifiable" as const, kind: "submodel" as const, id: submodelId },
  ];
}

export function notFoundElement(submodelId: string, path: string): CommandError {
  return new CommandError(
    "not-found",
    `Submodel element '${echoed(path)}' not found in submodel '${echoed(submodelId)}'`,
    { path },
  );
}
