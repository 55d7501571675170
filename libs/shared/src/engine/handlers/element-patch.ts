import { type ElementJson, hasMetadata, splitParent } from "../../aas/index.ts";
import type { Command } from "../../contracts/index.ts";
import { checkIdShortPath, readJsonable } from "../aas-input.ts";
import { eventDraft } from "../commit-runner.ts";
import { checkChildInParent } from "../element-context.ts";
import { loadElement, notFoundElement } from "../element-io.ts";
import { checkNestingBelow } from "../element-nesting.ts";
import type { EngineContext } from "../engine-context.ts";
import { claimedCommit } from "../files/claimed-commit.ts";
import { fileValuesOf, type HeldUpload, releaseUploads, uploadsHeldBy } from "../files/released-uploads.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { applyMergePatch, parseMergePatch, requireSameIdentity } from "../merge-patch-body.ts";
import { appliedUnderPreconditions, checkPreconditions, itemOf } from "../preconditions.ts";
import { rewriteOps, touchSubmodel } from "../record-diff.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { elementTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

/**
 * PATCH …/submodel-elements/{idShortPath} and …/$metadata: an RFC 7386 merge patch of the element
 * (arrays, children lists included, replaced whole), validated like a PUT. It changes the element in
 * place: the same kind, the same idShort, the same child elements (a child list may be sent changed,
 * but not with elements added or left out), and the record is checked against its parent. Reads and
 * writes only the element's subtree, never the rest of the submodel.
 */
export async function patchElement(
  ctx: EngineContext,
  cmd: Command<"PatchSubmodelElementByPath">,
): Promise<Handled<null>> {
  const { submodelId, idShortPath: path, preconditions } = cmd.params;
  const content = cmd.params.content ?? "normal";
  checkIdShortPath(path);
  const patch = parseMergePatch(cmd.params.body);
  await checkSubmodelScope(ctx, cmd.params);
  let held: HeldUpload[] = [];
  let written: ElementJson | undefined;
  const event = await claimedCommit(ctx, cmd.params.body, () =>
    ctx.commit(elementTarget(submodelId, path), async () => {
      const old = await loadElement(ctx.repository, submodelId, path);
      if (!old) {
        await requireIdentifiable(ctx, "submodel", submodelId);
        throw notFoundElement(submodelId, path);
      }
      // A patch that no longer fits the element as it is now (its modelType changed by a PUT since,
      // a value its valueType no longer takes) is a 412 when the preconditions fail, the 400 only
      // when they hold (RFC 9110 §13.2.1: preconditions before the content), as the submodel's
      // PATCH answers it. An Operation's $metadata (no such form) stays a 400 first.
      const item = itemOf(path, old.record);
      const checked = appliedUnderPreconditions(
        () => {
          const patched = applyMergePatch(old.element, patch, content);
          requireSameIdentity(old.element, patched, ["modelType", "idShort"]);
          return readJsonable(patched, "SubmodelElement", ctx.validation.onUpdate);
        },
        preconditions,
        old.record.revision,
        item,
        content === "metadata" && !hasMetadata(old.element),
      );
      checkPreconditions(preconditions, old.record.revision, item);
      held = uploadsHeldBy(old.records);
      written = checked as ElementJson;
      const { parentPath } = splitParent(path);
      checkNestingBelow(parentPath, checked);
      if (parentPath !== "") {
        const parent = await loadElement(ctx.repository, submodelId, parentPath, 0);
        if (parent) checkChildInParent(parent.element, checked, ctx.validation.onUpdate);
      }
      return {
        commit: {
          preconditions: [
            { on: "element", submodelId, path, revision: old.record.revision, orderKey: old.record.orderKey },
          ],
          ops: [...rewriteOps(submodelId, path, old.records, checked), touchSubmodel(submodelId)],
          event: eventDraft(
            {
              kind: "element.updated",
              id: submodelId,
              idShortPath: path,
              origin: cmd.origin,
              correlationId: cmd.correlationId,
            },
            checked,
            ctx.clock.now(),
          ),
        },
      };
    }),
  );
  if (written !== undefined) await releaseUploads(ctx, submodelId, held, fileValuesOf(written, path));
  return { value: null, revision: event.revision };
}
