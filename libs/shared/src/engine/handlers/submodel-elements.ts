import {
  childPath,
  echoed,
  elementReference,
  hasMetadata,
  hasPathItems,
  hasValueOnly,
  isList,
  parseIdShortPath,
  shallowOf,
  splitParent,
  withArticle,
} from "../../aas/index.ts";
import { type Command, CommandError, type Paged } from "../../contracts/index.ts";
import { checkIdShortPath, readBody } from "../aas-input.ts";
import { filterElement, filterElements } from "../access/element-filter.ts";
import { elementShown, recordShown } from "../access/element-on-the-way.ts";
import { eventDraft } from "../commit-runner.ts";
import { checkChildInParent, checkChildInSubmodel, childrenOf, isContainer } from "../element-context.ts";
import {
  assemble,
  deleteOps,
  insertOps,
  loadAllElements,
  loadElement,
  notFoundElement,
  touchOps,
} from "../element-io.ts";
import { checkNestingBelow } from "../element-nesting.ts";
import { pageRootElements } from "../element-pages.ts";
import { readElementReference } from "../element-reference.ts";
import type { EngineContext } from "../engine-context.ts";
import { claimedCommit } from "../files/claimed-commit.ts";
import { fileValuesOf, type HeldUpload, releaseUploads, uploadsHeldBy } from "../files/released-uploads.ts";
import { requireIdentifiable, unchanged } from "../identifiables.ts";
import { pageElementPaths } from "../path-pages.ts";
import { appliedUnderPreconditions, checkPreconditions, itemOf } from "../preconditions.ts";
import { projectElement } from "../projection.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { elementTarget, identifiableTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

/** 404 for the right thing: a missing submodel is reported as such, not as a missing element. */
async function elementNotFound(ctx: EngineContext, submodelId: string, path: string): Promise<never> {
  await requireIdentifiable(ctx, "submodel", submodelId);
  throw notFoundElement(submodelId, path);
}

export async function getAllElements(
  ctx: EngineContext,
  cmd: Command<"GetAllSubmodelElements">,
): Promise<Handled<Paged<unknown>>> {
  const { submodelId, modifiers, page } = cmd.params;
  await checkSubmodelScope(ctx, cmd.params);
  await requireIdentifiable(ctx, "submodel", submodelId);
  const content = modifiers?.content ?? "normal";
  // Set when the caller may read only parts of the submodel: the rest is left out (docs/security.md "Rules").
  const scope = ctx.access?.partialScope;
  // $path lists idShortPaths, so a page can end inside an element: it has its own paging.
  if (content === "path")
    return { value: await pageElementPaths(ctx.repository, submodelId, page, modifiers?.level, scope) };
  // Operation and Capability have no ValueOnly form: left out of the $value list (spec §7.5).
  const valueKeep = content === "value" ? hasValueOnly : undefined;
  const keep =
    scope === undefined
      ? valueKeep
      : (shallow: Record<string, unknown>) =>
          elementShown(scope, String(shallow.idShort), shallow.modelType) !== undefined &&
          (valueKeep?.(shallow) ?? true);
  const { roots, cursor } = await pageRootElements(ctx.repository, submodelId, page, keep, scope !== undefined);
  const deep = modifiers?.level !== "core" && (content === "normal" || content === "value");
  let elements = roots.map((root) => root.shallow);
  if (deep && page?.cursor === undefined && cursor === undefined) {
    // The page is the whole submodel: one subtree read instead of one per element.
    elements = (await loadAllElements(ctx.repository, submodelId)).filter((element) => keep?.(element) ?? true);
  } else if (deep) {
    elements = await Promise.all(
      roots.map(async ({ record, shallow }) =>
        isContainer(shallow)
          ? assemble(await ctx.repository.getSubtree(submodelId, record.path), record.path)
          : shallow,
      ),
    );
  }
  if (scope !== undefined) elements = filterElements(elements, scope, "");
  const items = elements.map((element) => {
    if (content === "reference")
      return elementReference(submodelId, [
        { segment: { idShort: element.idShort as string }, modelType: String(element.modelType) },
      ]);
    // Addressed directly, an Operation's $metadata is a 400; in a list it keeps its place, whole
    // (the v3.0.1 table removes nothing from it).
    if (content === "metadata" && !hasMetadata(element)) return element;
    return projectElement(element, modifiers);
  });
  return { value: cursor === undefined ? { items } : { items, cursor } };
}

export async function getElement(
  ctx: EngineContext,
  cmd: Command<"GetSubmodelElementByPath">,
): Promise<Handled<unknown>> {
  const { submodelId, idShortPath: path, modifiers } = cmd.params;
  checkIdShortPath(path);
  await checkSubmodelScope(ctx, cmd.params);
  const content = modifiers?.content ?? "normal";
  if (content === "reference") {
    const read = await readElementReference(ctx.repository, submodelId, path);
    if (!read) return elementNotFound(ctx, submodelId, path);
    return { value: read.reference, revision: read.revision, ...itemTag(path, read) };
  }
  // $metadata drops the children and $path needs only paths: the element's own record is enough.
  const depth = content === "metadata" || content === "path" ? 0 : modifiers?.level === "core" ? 1 : undefined;
  const loaded = await loadElement(ctx.repository, submodelId, path, depth);
  if (!loaded) return elementNotFound(ctx, submodelId, path);
  const scope = ctx.access?.partialScope;
  // The check let the caller reach `path`; below it they see only what their scope shows. Should the
  // element have been replaced since by one not shown (a Property where a collection was), none of it.
  const element = scope === undefined ? loaded.element : filterElement(loaded.element, scope, path);
  if (element === undefined)
    throw new CommandError("forbidden", `Not allowed: READ on '${echoed(path)}' of submodel '${echoed(submodelId)}'`);
  if (content !== "path")
    return {
      value: projectElement(element, modifiers),
      revision: loaded.record.revision,
      ...itemTag(path, loaded.record),
    };
  if (!hasPathItems(loaded.element))
    throw new CommandError(
      "bad-request",
      `${withArticle(String(loaded.element.modelType), true)} has no $path representation`,
    );
  // Full paths from the submodel root: the element itself, then its children (core) or all descendants.
  const records = await ctx.repository.getSubtree(submodelId, path, modifiers?.level === "core" ? 1 : undefined);
  return {
    value: records.filter((record) => scope === undefined || recordShown(scope, record)).map((record) => record.path),
    revision: loaded.record.revision,
    ...itemTag(path, loaded.record),
  };
}

export async function postElement(ctx: EngineContext, cmd: Command<"PostSubmodelElement">): Promise<Handled<unknown>> {
  const { submodelId, preconditions } = cmd.params;
  const parentPath = cmd.params.idShortPath ?? "";
  if (parentPath !== "") checkIdShortPath(parentPath);
  const element = readBody(cmd.params.body, "SubmodelElement", ctx.validation.onCreate);
  checkNestingBelow(parentPath, element);
  await checkSubmodelScope(ctx, cmd.params);
  let createdPath = "";
  const event = await claimedCommit(ctx, cmd.params.body, () =>
    ctx.commit(elementTarget(submodelId, parentPath), async () => {
      if (parentPath === "") {
        const submodel = await requireIdentifiable(ctx, "submodel", submodelId);
        // The target, the submodel's list of elements, is the submodel's content: its ETag is the
        // submodel's, which covers every element (docs/http-api.md, Concurrency). Held by the commit
        // only when the client asked, so an unconditional POST does not race the submodel's writes.
        checkPreconditions(preconditions, submodel.revision);
        checkChildInSubmodel(JSON.parse(submodel.json), element, ctx.validation.onCreate);
        createdPath = childPath("", { idShort: element.idShort as string });
        return {
          commit: {
            preconditions: [
              ...(preconditions ? [unchanged(submodel)] : []),
              { on: "element", submodelId, path: createdPath, revision: null },
            ],
            ops: [...insertOps(submodelId, "", [element], false), ...touchOps(submodelId, createdPath)],
            event: eventDraft(
              {
                kind: "element.created",
                id: submodelId,
                idShortPath: createdPath,
                origin: cmd.origin,
                correlationId: cmd.correlationId,
              },
              element,
              ctx.clock.now(),
            ),
          },
        };
      }
      // The parent's own record is enough (the child is checked on its own); a list's next index is
      // its length, counted by the store in O(log n). The parent's revision covers its children, so
      // the precondition on it also guards that count.
      const parent = await loadElement(ctx.repository, submodelId, parentPath, 0);
      if (!parent) return elementNotFound(ctx, submodelId, parentPath);
      // A target that holds no elements (a Property, a Blob) is a 400 whatever the preconditions say;
      // a child that no longer fits the container as it is now (a list whose value type changed
      // since, a collection replaced by a list) is a 412 when they fail (RFC 9110 §13.2.1).
      // The container is the POST's target: its ETag, guarded below by the commit.
      const item = itemOf(parentPath, parent.record);
      appliedUnderPreconditions(
        () => checkChildInParent(parent.element, element, ctx.validation.onCreate),
        preconditions,
        parent.record.revision,
        item,
        !isContainer(parent.element),
      );
      checkPreconditions(preconditions, parent.record.revision, item);
      const list = isList(parent.element);
      const length = list ? await ctx.repository.countChildren(submodelId, parentPath) : 0;
      createdPath = list
        ? childPath(parentPath, { index: length })
        : childPath(parentPath, { idShort: element.idShort as string });
      const inserted = insertOps(submodelId, parentPath, [element], list);
      // Flattening numbers list items by position (0 here); move the new item to its real index.
      const ops = list ? inserted.map((op) => renumber(op, parentPath, 0, length)) : inserted;
      return {
        commit: {
          preconditions: [
            {
              on: "element",
              submodelId,
              path: parentPath,
              revision: parent.record.revision,
              orderKey: parent.record.orderKey,
            },
            { on: "element", submodelId, path: createdPath, revision: null },
          ],
          ops: [...ops, ...touchOps(submodelId, createdPath)],
          event: eventDraft(
            {
              kind: "element.created",
              id: submodelId,
              idShortPath: createdPath,
              origin: cmd.origin,
              correlationId: cmd.correlationId,
            },
            element,
            ctx.clock.now(),
          ),
        },
      };
    }),
  );
  if (!createdPath.includes("[")) return { value: element, revision: event.revision, idShortPath: createdPath };
  // A new list item's ETag names the item (itemOf), whose orderKey the store chose: read back. Should
  // the path name another element by now (an item before it deleted), the answer has no ETag.
  const [created] = await ctx.repository.getElements(submodelId, [createdPath]);
  if (created?.revision !== event.revision) return { value: element, idShortPath: createdPath };
  return { value: element, revision: event.revision, idShortPath: createdPath, ...itemTag(createdPath, created) };
}

/** Rewrite the list index `from` → `to` at the start of an op's path (and its insert target). */
function renumber<T extends { path: string; insert?: { parentPath: string; segment: string; index?: number } }>(
  op: T,
  listPath: string,
  from: number,
  to: number,
): T {
  const oldPrefix = `${listPath}[${from}]`;
  const newPrefix = `${listPath}[${to}]`;
  const swap = (p: string) =>
    p === oldPrefix || p.startsWith(oldPrefix + ".") || p.startsWith(oldPrefix + "[")
      ? newPrefix + p.slice(oldPrefix.length)
      : p;
  const insert = op.insert && {
    ...op.insert,
    parentPath: swap(op.insert.parentPath),
    ...(op.insert.parentPath === listPath ? { segment: `[${to}]`, index: to } : {}),
  };
  return { ...op, path: swap(op.path), ...(insert ? { insert } : {}) };
}

export async function putElement(ctx: EngineContext, cmd: Command<"PutSubmodelElementByPath">): Promise<Handled<null>> {
  const { submodelId, idShortPath: path, preconditions } = cmd.params;
  checkIdShortPath(path);
  const element = readBody(cmd.params.body, "SubmodelElement", ctx.validation.onUpdate);
  await checkSubmodelScope(ctx, cmd.params);
  const { parentPath, index } = splitParent(path);
  checkNestingBelow(parentPath, element);
  if (index === undefined && element.idShort !== lastIdShort(path)) {
    throw new CommandError(
      "bad-request",
      `The idShort in the body ('${echoed(String(element.idShort))}') differs from the idShortPath ('${echoed(path)}')`,
    );
  }
  let held: HeldUpload[] = [];
  const event = await claimedCommit(ctx, cmd.params.body, () =>
    ctx.commit(elementTarget(submodelId, path), async () => {
      const old = await loadElement(ctx.repository, submodelId, path);
      checkPreconditions(preconditions, old?.record.revision, old && itemOf(path, old.record));
      if (!old) return elementNotFound(ctx, submodelId, path);
      held = uploadsHeldBy(old.records);
      if (parentPath !== "") {
        const parent = await loadElement(ctx.repository, submodelId, parentPath, 0);
        if (parent) checkChildInParent(parent.element, element, ctx.validation.onUpdate);
      }
      const { children, list } = childrenOf(element);
      return {
        commit: {
          preconditions: [
            { on: "element", submodelId, path, revision: old.record.revision, orderKey: old.record.orderKey },
          ],
          ops: [
            ...deleteOps(submodelId, old.records.slice(1)),
            // The element itself is rewritten in place, so it keeps its position among its siblings.
            { op: "put-element", submodelId, path, json: JSON.stringify(shallowOf(element)) },
            ...insertOps(submodelId, path, children, list),
            ...touchOps(submodelId, path),
          ],
          event: eventDraft(
            {
              kind: "element.updated",
              id: submodelId,
              idShortPath: path,
              origin: cmd.origin,
              correlationId: cmd.correlationId,
            },
            element,
            ctx.clock.now(),
          ),
        },
      };
    }),
  );
  await releaseUploads(ctx, submodelId, held, fileValuesOf(element, path));
  return { value: null, revision: event.revision };
}

function lastIdShort(path: string): string | undefined {
  const last = parseIdShortPath(path).at(-1);
  return last && "idShort" in last ? last.idShort : undefined;
}

export async function deleteElement(
  ctx: EngineContext,
  cmd: Command<"DeleteSubmodelElementByPath">,
): Promise<Handled<null>> {
  const { submodelId, idShortPath: path, preconditions } = cmd.params;
  checkIdShortPath(path);
  await checkSubmodelScope(ctx, cmd.params);
  const { parentPath, index } = splitParent(path);
  let held: HeldUpload[] = [];
  await ctx.commit(elementTarget(submodelId, index === undefined ? path : parentPath), async () => {
    const old = await loadElement(ctx.repository, submodelId, path);
    checkPreconditions(preconditions, old?.record.revision, old && itemOf(path, old.record));
    if (!old) return elementNotFound(ctx, submodelId, path);
    held = uploadsHeldBy(old.records);
    const draft = eventDraft(
      {
        kind: "element.deleted",
        id: submodelId,
        idShortPath: path,
        origin: cmd.origin,
        correlationId: cmd.correlationId,
      },
      undefined,
      ctx.clock.now(),
    );
    // A list item too: only its own records go; the store keeps items under position tokens, so
    // the later items' indexes shift without a write (docs/adr/0020). The orderKey names WHICH item
    // was read, should the list shift before the commit. Touching the ancestors (the list first)
    // changes the list's ETag.
    return {
      commit: {
        preconditions: [
          { on: "element", submodelId, path, revision: old.record.revision, orderKey: old.record.orderKey },
        ],
        ops: [...deleteOps(submodelId, old.records), ...touchOps(submodelId, path)],
        event: draft,
      },
    };
  });
  await releaseUploads(ctx, submodelId, held);
  return { value: null };
}

/** The `item` of a handled read or write of the element at `path` (preconditions.ts itemOf), if any. */
function itemTag(path: string, record: { orderKey: string }): { item?: string } {
  const item = itemOf(path, record);
  return item === undefined ? {} : { item };
}
