import { type ElementJson, flattenElements, getChildren, isList, parentPathOf, shallowOf } from "../aas/index.ts";
import { CommandError } from "../contracts/index.ts";
import { ancestorsOf } from "./element-io.ts";
import type { CommitOp, StoredElement } from "./ports/index.ts";

/**
 * Writing back an element that was changed in place (PATCH of any form): only the records whose
 * JSON changed are rewritten, so a value patch of one Property in a big collection costs one record.
 */

/** Shallow JSON of the element and each descendant, keyed by idShortPath. */
export function shallowRecords(element: ElementJson, path: string): Map<string, string> {
  const records = new Map<string, string>([[path, JSON.stringify(shallowOf(element))]]);
  for (const r of flattenElements(getChildren(element), path, isList(element)))
    records.set(r.path, JSON.stringify(r.shallow));
  return records;
}

/**
 * Ops replacing the subtree at `path` (read as `before`, root first) by `updated`, which must have
 * exactly the same element paths: a PATCH never creates or deletes elements. Every container between
 * a changed record and `path`, `path` itself and its ancestors get their revision bumped, since a
 * container's revision (its ETag) covers its subtree. The submodel's own touch is the caller's.
 */
export function rewriteOps(
  submodelId: string,
  path: string,
  before: StoredElement[],
  updated: ElementJson,
): CommitOp[] {
  const old = new Map(before.map((r) => [r.path, r.json]));
  const now = shallowRecords(updated, path);
  if (now.size !== old.size || [...now.keys()].some((p) => !old.has(p))) {
    throw new CommandError("bad-request", `A PATCH cannot add or remove elements (at '${path}')`);
  }
  const written = new Set<string>();
  const ops: CommitOp[] = [];
  for (const [p, json] of now) {
    if (old.get(p) === json) continue;
    written.add(p);
    ops.push({ op: "put-element", submodelId, path: p, json });
  }
  const touched = new Set<string>();
  for (const p of written) {
    for (let at = p; at !== path; ) {
      at = parentPathOf(at);
      if (!written.has(at)) touched.add(at);
    }
  }
  if (!written.has(path)) touched.add(path);
  for (const p of [...touched, ...ancestorsOf(path)]) ops.push({ op: "touch-element", submodelId, path: p });
  return ops;
}

/**
 * `rewriteOps` of an element without children, whose new record JSON the caller has (a `$value`
 * PATCH of a Property): the record rewritten (or only touched when unchanged), its ancestors touched.
 */
export function leafRewriteOps(submodelId: string, path: string, before: string, json: string): CommitOp[] {
  const ops: CommitOp[] = [
    before === json ? { op: "touch-element", submodelId, path } : { op: "put-element", submodelId, path, json },
  ];
  for (const p of ancestorsOf(path)) ops.push({ op: "touch-element", submodelId, path: p });
  return ops;
}

/**
 * `rewriteOps` for all of a submodel's elements at once (a PATCH of the whole submodel): the same
 * element paths, changed records rewritten, their ancestors touched.
 */
export function rewriteAllOps(submodelId: string, before: StoredElement[], elements: ElementJson[]): CommitOp[] {
  const old = new Map(before.map((r) => [r.path, r.json]));
  const now = new Map(flattenElements(elements, "").map((r) => [r.path, JSON.stringify(r.shallow)]));
  if (now.size !== old.size || [...now.keys()].some((p) => !old.has(p))) {
    throw new CommandError(
      "bad-request",
      "A PATCH cannot add or remove elements (submodelElements must list the same elements)",
    );
  }
  const ops: CommitOp[] = [];
  const touched = new Set<string>();
  for (const [p, json] of now) {
    if (old.get(p) === json) continue;
    ops.push({ op: "put-element", submodelId, path: p, json });
    for (const ancestor of ancestorsOf(p)) touched.add(ancestor);
  }
  for (const op of ops) if (op.op === "put-element") touched.delete(op.path);
  for (const p of touched) ops.push({ op: "touch-element", submodelId, path: p });
  return ops;
}

export function touchSubmodel(submodelId: string): CommitOp {
  return { op: "touch-identifiable", kind: "submodel", id: submodelId };
}
