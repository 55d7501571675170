import { AasError } from "./aas-error.ts";
import { childrenKey, type ElementJson, getChildren, isList } from "./element-tree.ts";
import { childPath, isBelow, parentPathOf } from "./id-short-path.ts";

/**
 * The storage layout of submodel elements: one "shallow" record per element. A container's record
 * keeps its children key with an EMPTY array (so it reads as a container on its own); every child
 * is a record of its own, addressed by its idShortPath. Reading or writing one element then costs
 * the same in a submodel of 100,000 elements as in one of 10.
 */

export interface ElementRecord {
  /** idShortPath from the submodel root, e.g. "a.b[2]". */
  path: string;
  /** "" for a top-level element. */
  parentPath: string;
  /** The idShort, or "[i]" for a list item. */
  segment: string;
  /** Set for list items. */
  index?: number;
  shallow: ElementJson;
}

/** Records of `elements` and all their descendants, pre-order (parent first, siblings in order). */
export function flattenElements(elements: ElementJson[], parentPath: string, parentIsList = false): ElementRecord[] {
  const records: ElementRecord[] = [];
  appendRecords(records, elements, parentPath, parentIsList);
  return records;
}

function appendRecords(
  records: ElementRecord[],
  elements: ElementJson[],
  parentPath: string,
  parentIsList: boolean,
): void {
  // Siblings outside a list are told apart by idShort: two with one idShort would be one record.
  const seen = parentIsList ? undefined : new Set<string>();
  elements.forEach((element, index) => {
    let record: ElementRecord;
    if (parentIsList) {
      record = {
        path: childPath(parentPath, { index }),
        parentPath,
        segment: `[${index}]`,
        index,
        shallow: shallowOf(element),
      };
    } else {
      const idShort = element.idShort;
      if (typeof idShort !== "string" || idShort === "") {
        throw new AasError("id-short-path", `An element below "${parentPath}" outside a list has no idShort`, {
          path: parentPath,
        });
      }
      checkAddressable(idShort, parentPath, seen!);
      record = { path: childPath(parentPath, { idShort }), parentPath, segment: idShort, shallow: shallowOf(element) };
    }
    records.push(record);
    const children = getChildren(element);
    if (children.length > 0) appendRecords(records, children, record.path, isList(element));
  });
}

/**
 * Checked on every write of elements, with validation on or off: the store keeps each element
 * under its idShortPath, so an idShort with `.`, `[` or `]` in it, or two siblings with one idShort,
 * cannot be stored; nor one with a control character, which no XML export can carry. With
 * validation off (FA³ST's files often need it) such an element was stored anyway, and every read
 * of its submodel, `GET /submodels` and `/serialization` included, failed with a 500 ("no parent
 * record"); a duplicate silently replaced its sibling. Validation (AASd-002, AASd-022)
 * refuses both earlier, with the metamodel's words.
 */
function checkAddressable(idShort: string, parentPath: string, seen: Set<string>): void {
  const where = parentPath === "" ? "at the top of the submodel" : `below "${parentPath}"`;
  if (/[.[\]]/.test(idShort))
    throw new AasError(
      "id-short-path",
      `The idShort "${idShort}" ${where} contains '.', '[' or ']', which an idShortPath cannot address`,
      { path: parentPath },
    );
  // Control characters: XML 1.0 cannot carry them, so /serialization as XML or AASX broke off
  // (a 200 with a cut body). Other idShorts AASd-002 refuses (a space, a leading digit) are kept
  // with validation off, as FA³ST's files need: they are read with their submodel, not by path.
  if (/[\u0000-\u001f\u007f]/.test(idShort))
    throw new AasError(
      "id-short-path",
      `The idShort ${JSON.stringify(idShort)} ${where} contains a control character`,
      {
        path: parentPath,
      },
    );
  if (seen.has(idShort))
    throw new AasError("id-short-path", `Two elements ${where} have the idShort "${idShort}"`, { path: parentPath });
  seen.add(idShort);
}

/**
 * checkAddressable over a submodel's elements without making records: an import checks its
 * identifiables as it reads them, so a problem is reported with its file and identifiable, as a
 * validation finding is (with validation off, the records' own check came only at the commit, and
 * a model file's refusal named neither).
 */
export function checkElementsAddressable(elements: ElementJson[], parentPath = "", parentIsList = false): void {
  const seen = parentIsList ? undefined : new Set<string>();
  elements.forEach((element, index) => {
    let path: string;
    if (parentIsList) path = childPath(parentPath, { index });
    else {
      const idShort = element.idShort;
      if (typeof idShort !== "string" || idShort === "")
        throw new AasError("id-short-path", `An element below "${parentPath}" outside a list has no idShort`, {
          path: parentPath,
        });
      checkAddressable(idShort, parentPath, seen!);
      path = childPath(parentPath, { idShort });
    }
    const children = getChildren(element);
    if (children.length > 0) checkElementsAddressable(children, path, isList(element));
  });
}

/** A copy of the element without its children; a container keeps its children key as []. */
export function shallowOf(element: ElementJson): ElementJson {
  const copy = { ...element };
  const key = childrenKey(element);
  if (key !== undefined) copy[key] = [];
  return copy;
}

/**
 * The elements directly below `rootPath` ("" = the submodel's top level), each with its
 * descendants, from records in document order (parent before children, siblings in order).
 * Records that are not below `rootPath` (such as the record AT rootPath) are ignored; a record
 * whose parent is missing is a store inconsistency and throws.
 *
 * The result shares everything but the containers' child arrays with the given `shallow`
 * objects: copy before mutating if the records must stay intact. An empty children array is
 * removed (canonical aas-core JSON has none; verification rejects them).
 */
export function assembleElements(records: { path: string; shallow: ElementJson }[], rootPath: string): ElementJson[] {
  return assemble(records, rootPath);
}

/** The element at `path` with all its descendants, or undefined when `records` lack it. */
export function assembleElement(
  records: { path: string; shallow: ElementJson }[],
  path: string,
): ElementJson | undefined {
  const own = records.find((record) => record.path === path);
  if (own === undefined) return undefined;
  const element = { ...own.shallow };
  const key = childrenKey(element);
  if (key === undefined) return element;
  const children = assemble(records, path);
  if (children.length > 0) element[key] = children;
  else delete element[key];
  return element;
}

function assemble(records: { path: string; shallow: ElementJson }[], rootPath: string): ElementJson[] {
  const roots: ElementJson[] = [];
  const containers = new Map<string, { element: ElementJson; children: ElementJson[] }>();
  for (const record of records) {
    const parentPath = parentPathOf(record.path);
    let siblings: ElementJson[];
    if (parentPath === rootPath) {
      siblings = roots;
    } else {
      const parent = containers.get(parentPath);
      if (parent === undefined) {
        if (!isBelow(record.path, rootPath)) continue;
        throw new Error(`Element record "${record.path}" has no parent record "${parentPath}"`);
      }
      siblings = parent.children;
    }
    const element = { ...record.shallow };
    const key = childrenKey(element);
    if (key !== undefined) {
      const children: ElementJson[] = [];
      element[key] = children;
      containers.set(record.path, { element, children });
    }
    siblings.push(element);
  }
  for (const { element, children } of containers.values()) {
    if (children.length === 0) delete element[childrenKey(element)!];
  }
  return roots;
}
