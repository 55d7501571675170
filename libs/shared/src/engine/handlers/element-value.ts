import { applyValueOnly, parseJsonLossless, shallowOf, unwrapValueOnly, type ElementJson } from "../../aas/index.ts";
import { CommandError, type Command } from "../../contracts/index.ts";
import { checkIdShortPath, readJsonable, rethrowAsCommandError } from "../aas-input.ts";
import { eventDraft } from "../commit-runner.ts";
import { flattenElements, getChildren, isList } from "../../aas/index.ts";
import { loadElement, notFoundElement, touchOps } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { requireIdentifiable } from "../identifiables.ts";
import type { CommitOp } from "../ports/index.ts";
import { checkPreconditions } from "../preconditions.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { elementTarget, identifiableTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

/** Shallow JSON of the element and each descendant, keyed by idShortPath. */
function shallowRecords(element: ElementJson, path: string): Map<string, string> {
  const records = new Map<string, string>([[path, JSON.stringify(shallowOf(element))]]);
  for (const r of flattenElements(getChildren(element), path, isList(element))) records.set(r.path, JSON.stringify(r.shallow));
  return records;
}

/**
 * PATCH …/$value: replace values only. The whole patch applies or nothing does; the element's
 * structure never changes, so only the records whose values changed are rewritten — a Property on a
 * 100,000-element submodel costs one read and one commit.
 */
export async function patchElementValue(ctx: EngineContext, cmd: Command<"PatchSubmodelElementValueByPath">): Promise<Handled<null>> {
  const { submodelId, idShortPath: path, preconditions } = cmd.params;
  checkIdShortPath(path);
  if (typeof cmd.params.body !== "string" || cmd.params.body.trim() === "") throw new CommandError("bad-request", "The request body is empty; a ValueOnly JSON body is required");
  let body: unknown;
  try {
    body = parseJsonLossless(cmd.params.body);
  } catch (error) {
    rethrowAsCommandError(error);
  }
  await checkSubmodelScope(ctx, cmd.params);
  const event = await ctx.commit(elementTarget(submodelId, path), async () => {
    const old = await loadElement(ctx.repository, submodelId, path);
    checkPreconditions(preconditions, old?.record.revision);
    if (!old) {
      await requireIdentifiable(ctx, "submodel", submodelId);
      throw notFoundElement(submodelId, path);
    }
    let patched: ElementJson;
    try {
      patched = applyValueOnly(old.element, unwrapValueOnly(old.element, body), { path, verify: false });
    } catch (error) {
      rethrowAsCommandError(error);
    }
    // Re-read through the metamodel: value/valueType consistency and every other constraint.
    const checked = readJsonable(patched, "SubmodelElement", ctx.validation.onUpdate);
    const before = new Map(old.records.map((r) => [r.path, r.json]));
    const after = shallowRecords(checked, path);
    if (after.size !== before.size || [...after.keys()].some((p) => !before.has(p))) {
      throw new CommandError("bad-request", "A $value patch cannot add or remove elements");
    }
    const ops: CommitOp[] = [];
    for (const [p, json] of after) if (before.get(p) !== json) ops.push({ op: "put-element", submodelId, path: p, json });
    return {
      commit: {
        preconditions: [{ on: "element", submodelId, path, revision: old.record.revision }],
        ops: [...ops, ...touchOps(submodelId, path, true)],
        event: eventDraft({ kind: "element.value-changed", id: submodelId, idShortPath: path, origin: cmd.origin, correlationId: cmd.correlationId }, checked, ctx.clock.now()),
      },
    };
  });
  return { value: null, revision: event.revision };
}
