import {
  applyValueOnly,
  childrenKey,
  type ElementJson,
  hasValueOnly,
  parseJsonLossless,
  patchedPropertyValue,
  unwrapValueOnly,
} from "../../aas/index.ts";
import { type Command, CommandError } from "../../contracts/index.ts";
import { checkIdShortPath, readJsonable, rethrowAsCommandError } from "../aas-input.ts";
import { eventDraft } from "../commit-runner.ts";
import { loadElement, notFoundElement } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { claimedCommit } from "../files/claimed-commit.ts";
import { fileValuesOf, type HeldUpload, releaseUploads, uploadsHeldBy } from "../files/released-uploads.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { appliedUnderPreconditions, checkPreconditions, itemOf } from "../preconditions.ts";
import { leafRewriteOps, rewriteOps, touchSubmodel } from "../record-diff.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { elementTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

/** A ValueOnly body: numbers keep their digits (lossless-json), so xs:decimal/xs:long stay exact. */
export function parseValueOnlyBody(body: string): unknown {
  if (typeof body !== "string" || body.trim() === "")
    throw new CommandError("bad-request", "The request body is empty; a ValueOnly JSON body is required");
  try {
    return parseJsonLossless(body);
  } catch (error) {
    rethrowAsCommandError(error);
  }
}

/** The ValueOnly patch applied to a loaded element, re-read through the metamodel (every constraint). */
export function patchedValue(element: ElementJson, value: unknown, path: string, validate: boolean): ElementJson {
  // A Property's value alone is checked and stored without re-reading the element (ADR 0026).
  const property = patchedPropertyValue(element, value, validate);
  if (property !== undefined) return property;
  return patchedInFull(element, value, path, validate);
}

/**
 * patchedValue of a `$value` body in the wrapped (`{"<idShort>": value}`) or the bare form. Which
 * one a body is follows from its first level (unwrapValueOnly); only a collection holding a child
 * named like itself leaves both readings open there (`{"W":{"W":7}}` for W holding W holding W),
 * and the first may fail deeper where the other fits: then the other is tried, and if it fails
 * too the first reading's error is the answer.
 */
function patchedEitherForm(element: ElementJson, body: unknown, path: string, validate: boolean): ElementJson {
  const read = unwrapValueOnly(element, body);
  try {
    return patchedValue(element, read, path, validate);
  } catch (error) {
    const other = otherReading(element, body, read);
    if (
      other === undefined ||
      !(error instanceof CommandError) ||
      (error.code !== "bad-request" && error.code !== "validation")
    )
      throw error;
    try {
      return patchedValue(element, other.value, path, validate);
    } catch {
      throw error;
    }
  }
}

/** The reading unwrapValueOnly did not take, where the body allows both. */
function otherReading(element: ElementJson, body: unknown, read: unknown): { value: unknown } | undefined {
  if (element.modelType !== "SubmodelElementCollection" || typeof body !== "object" || body === null) return undefined;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== element.idShort) return undefined;
  return { value: read === body ? (body as Record<string, unknown>)[keys[0]] : body };
}

/** patchedValue the full way: every constraint of the patched element is checked again. */
export function patchedInFull(element: ElementJson, value: unknown, path: string, validate: boolean): ElementJson {
  let patched: ElementJson;
  try {
    patched = applyValueOnly(element, value, { path, verify: false });
  } catch (error) {
    rethrowAsCommandError(error);
  }
  return readJsonable(patched, "SubmodelElement", validate);
}

/**
 * PATCH …/$value: replace values only. The whole patch applies or nothing does; the element's
 * structure never changes, so only the records whose values changed are rewritten — a Property on a
 * 100,000-element submodel costs one read and one commit.
 */
export async function patchElementValue(
  ctx: EngineContext,
  cmd: Command<"PatchSubmodelElementValueByPath">,
): Promise<Handled<null>> {
  const { submodelId, idShortPath: path, preconditions } = cmd.params;
  checkIdShortPath(path);
  const body = parseValueOnlyBody(cmd.params.body);
  // Only /shells/{aasId}/submodels/… names a scope; skipping the await saves a turn of the microtask queue per write.
  if (cmd.params.aasId !== undefined) await checkSubmodelScope(ctx, cmd.params);
  // Group commit: value writes to one element that arrive while one is being committed are planned
  // on top of each other and committed together (commit-runner.ts), so one hot Property does not
  // cost a round trip and an fsync per write.
  let held: HeldUpload[] = [];
  let written: ElementJson | undefined;
  const event = await claimedCommit(ctx, cmd.params.body, () =>
    ctx.commit.batched(elementTarget(submodelId, path), async (reads) => {
      const old = await loadElement(reads, submodelId, path);
      if (!old) {
        await requireIdentifiable(ctx, "submodel", submodelId);
        throw notFoundElement(submodelId, path);
      }
      // A body refused for an element that has no value (an Operation, a Capability) is refused
      // whatever the preconditions; one that does not fit the element as it is now is a 412 when
      // they fail (RFC 9110 §13.2.1: preconditions before the content).
      const item = itemOf(path, old.record);
      const checked = appliedUnderPreconditions(
        () => patchedEitherForm(old.element, body, path, ctx.validation.onUpdate),
        preconditions,
        old.record.revision,
        item,
        !hasValueOnly(old.element),
      );
      checkPreconditions(preconditions, old.record.revision, item);
      // A leaf (a Property, the common case) is one record whose JSON is the event's payload: built once.
      const leaf = old.records.length === 1 && childrenKey(checked) === undefined ? JSON.stringify(checked) : undefined;
      // Only a File or a container can hold an upload whose File the patch may point elsewhere: the
      // hot path (a Property) is not even scanned. The records are read anyway, so nothing is loaded.
      held = leaf !== undefined && old.element.modelType !== "File" ? [] : uploadsHeldBy(old.records);
      written = checked;
      return {
        commit: {
          preconditions: [
            { on: "element", submodelId, path, revision: old.record.revision, orderKey: old.record.orderKey },
          ],
          ops: [
            ...(leaf === undefined
              ? rewriteOps(submodelId, path, old.records, checked)
              : leafRewriteOps(submodelId, path, old.record.json, leaf)),
            touchSubmodel(submodelId),
          ],
          event: eventDraft(
            {
              kind: "element.value-changed",
              id: submodelId,
              idShortPath: path,
              origin: cmd.origin,
              correlationId: cmd.correlationId,
            },
            checked,
            ctx.clock.now(),
            leaf?.length,
          ),
        },
      };
    }),
  );
  // Committed: an upload whose File now names something else goes (released-uploads.ts).
  if (held.length > 0 && written !== undefined)
    await releaseUploads(ctx, submodelId, held, fileValuesOf(written, path));
  return { value: null, revision: event.revision };
}
