import { assembleElements, type ElementJson, hasValueOnly, isIdShort } from "../../aas/index.ts";
import { type ChangeEventDraft, type Command, CommandError } from "../../contracts/index.ts";
import { readJsonable } from "../aas-input.ts";
import { eventDraft } from "../commit-runner.ts";
import { loadElement } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { claimedCommit } from "../files/claimed-commit.ts";
import {
  fileValuesOf,
  fileValuesOfElements,
  type HeldUpload,
  releaseUploads,
  uploadsHeldBy,
} from "../files/released-uploads.ts";
import { readForWrite, unchanged } from "../identifiables.ts";
import { applyMergePatch, parseMergePatch, requireSameIdentity } from "../merge-patch-body.ts";
import type { CommitOp, CommitPrecondition } from "../ports/index.ts";
import { appliedUnderPreconditions, checkPreconditions } from "../preconditions.ts";
import { rewriteAllOps, rewriteOps, touchSubmodel } from "../record-diff.ts";
import { joinSubmodel, splitSubmodel } from "../submodel-json.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { submodelSemanticIdOf } from "../submodel-semantic-id.ts";
import { identifiableTarget } from "../write-targets.ts";
import { parseValueOnlyBody, patchedValue } from "./element-value.ts";
import type { Handled } from "./handled.ts";

/**
 * PATCH /submodels/{id} (normal), …/$metadata and …/$value. Each reads only what the patch can
 * change: the submodel's own record, or the elements the patch names; the whole submodel is read
 * only when a normal patch carries `submodelElements` (a list replaced whole, which must then hold
 * the same elements: a PATCH never creates or deletes). Events that do not carry the whole new
 * submodel say so with `payloadOmitted`, and a subscriber that needs it queries the store.
 */
export async function patchSubmodel(ctx: EngineContext, cmd: Command<"PatchSubmodelById">): Promise<Handled<null>> {
  if (cmd.params.content === "value") return patchSubmodelValue(ctx, cmd);
  const { submodelId, preconditions } = cmd.params;
  const content = cmd.params.content ?? "normal";
  const patch = parseMergePatch(cmd.params.body);
  await checkSubmodelScope(ctx, cmd.params);
  const withElements = content === "normal" && "submodelElements" in patch;
  // Set only by a patch of the elements: the others leave every File as it was.
  let held: HeldUpload[] = [];
  let kept = new Map<string, string>();
  const event = await claimedCommit(ctx, cmd.params.body, () =>
    ctx.commit(identifiableTarget("submodel", submodelId), async () => {
      const stored = await readForWrite(ctx, "submodel", submodelId, preconditions);
      const { submodelElements: marker, ...meta } = JSON.parse(stored.json) as Record<string, unknown>;
      const draft = {
        kind: "submodel.updated" as const,
        id: submodelId,
        origin: cmd.origin,
        correlationId: cmd.correlationId,
      };
      if (!withElements) {
        const patched = applyMergePatch(meta, patch, content);
        requireSameIdentity(meta, patched, ["modelType", "id"]);
        const checked = readJsonable(patched, "Submodel", ctx.validation.onUpdate);
        const json = JSON.stringify(marker === undefined ? checked : { ...checked, submodelElements: [] });
        return {
          commit: {
            preconditions: [unchanged(stored)],
            ops: [{ op: "put-identifiable", kind: "submodel", id: submodelId, json }],
            // The elements are not read, so not carried; the semanticId is (guarded by `unchanged`).
            event: {
              ...omittedPayload(eventDraft(draft, undefined, ctx.clock.now())),
              submodelSemanticId: submodelSemanticIdOf(checked),
            },
          },
        };
      }
      const records = await ctx.repository.getSubtree(submodelId, "");
      const elements = assembleElements(
        records.map((r) => ({ path: r.path, shallow: JSON.parse(r.json) as ElementJson })),
        "",
      );
      const current = joinSubmodel(meta, elements);
      const patched = applyMergePatch(current, patch, "normal");
      requireSameIdentity(current, patched, ["modelType", "id"]);
      const checked = readJsonable(patched, "Submodel", ctx.validation.onUpdate);
      const { meta: newMeta, elements: newElements } = splitSubmodel(checked);
      held = uploadsHeldBy(records);
      kept = fileValuesOfElements(newElements);
      return {
        commit: {
          // The submodel's revision moves with every element write, so it guards the whole read.
          preconditions: [unchanged(stored)],
          ops: [
            { op: "put-identifiable", kind: "submodel", id: submodelId, json: JSON.stringify(newMeta) },
            ...rewriteAllOps(submodelId, records, newElements),
          ],
          event: eventDraft(draft, checked, ctx.clock.now()),
        },
      };
    }),
  );
  // Committed: an upload whose File now names something else goes (released-uploads.ts).
  if (held.length > 0) await releaseUploads(ctx, submodelId, held, kept);
  return { value: null, revision: event.revision };
}

/**
 * PATCH /submodels/{id}/$value: {"<idShort>": <ValueOnly>, …} over top-level elements; each named
 * element is patched like PATCH …/{idShort}/$value, all in one commit (all or nothing). A name that
 * is not a top-level element is a 400: a PATCH cannot create elements.
 */
async function patchSubmodelValue(ctx: EngineContext, cmd: Command<"PatchSubmodelById">): Promise<Handled<null>> {
  const { submodelId, preconditions } = cmd.params;
  const body = parseValueOnlyBody(cmd.params.body);
  if (
    typeof body !== "object" ||
    body === null ||
    Array.isArray(body) ||
    Object.getPrototypeOf(body) !== Object.prototype
  ) {
    throw new CommandError("bad-request", 'A Submodel\'s $value is a JSON object {"<idShort>": <value>, …}');
  }
  const values = body as Record<string, unknown>;
  await checkSubmodelScope(ctx, cmd.params);
  let held: HeldUpload[] = [];
  let kept = new Map<string, string>();
  const event = await claimedCommit(ctx, cmd.params.body, () =>
    ctx.commit(identifiableTarget("submodel", submodelId), async () => {
      // The preconditions are checked once the body was applied (below): an element the body names
      // that has no value (an Operation) is a 400 whatever they say, as for PATCH …/{idShort}/$value;
      // one that is missing, or a value that no longer fits its element, is a 412 when they fail
      // (RFC 9110 §13.2.1: preconditions before the content; the state may have changed since the
      // client read it).
      const stored = await readForWrite(ctx, "submodel", submodelId, undefined);
      const idShorts = Object.keys(values);
      const loaded = await Promise.all(
        idShorts.map((idShort) => (isIdShort(idShort) ? loadElement(ctx.repository, submodelId, idShort) : undefined)),
      );
      const missing = idShorts.find((_, i) => loaded[i] === undefined);
      if (missing !== undefined) checkPreconditions(preconditions, stored.revision);
      if (missing !== undefined)
        throw new CommandError(
          "bad-request",
          `The submodel has no element "${missing}" (a PATCH cannot create elements)`,
        );
      const guards: CommitPrecondition[] = [];
      const ops: CommitOp[] = [];
      held = [];
      kept = new Map();
      idShorts.forEach((idShort, i) => {
        const old = loaded[i]!;
        const patched = appliedUnderPreconditions(
          () => patchedValue(old.element, values[idShort], idShort, ctx.validation.onUpdate),
          preconditions,
          stored.revision,
          undefined,
          !hasValueOnly(old.element),
        );
        ops.push(...rewriteOps(submodelId, idShort, old.records, patched));
        guards.push({ on: "element", submodelId, path: idShort, revision: old.record.revision });
        // The element's records are read anyway; a File's value may change (released-uploads.ts).
        const holds = uploadsHeldBy(old.records);
        if (holds.length === 0) return;
        held.push(...holds);
        for (const [path, value] of fileValuesOf(patched, idShort)) kept.set(path, value);
      });
      // If-Match / If-None-Match against the submodel's revision, which must still hold at the commit.
      checkPreconditions(preconditions, stored.revision);
      if (preconditions !== undefined) guards.push(unchanged(stored));
      const draft = {
        kind: "submodel.updated" as const,
        id: submodelId,
        origin: cmd.origin,
        correlationId: cmd.correlationId,
      };
      return {
        commit: {
          preconditions: guards,
          ops: [...ops, touchSubmodel(submodelId)],
          // Not its semanticId: the metadata is not guarded here, so a concurrent PATCH of it may
          // commit first; that this write left it alone is true either way.
          event: { ...omittedPayload(eventDraft(draft, undefined, ctx.clock.now())), metadataKept: true },
        },
      };
    }),
  );
  if (held.length > 0) await releaseUploads(ctx, submodelId, held, kept);
  return { value: null, revision: event.revision };
}

function omittedPayload(draft: ChangeEventDraft): ChangeEventDraft {
  return { ...draft, payloadOmitted: true };
}
