import type { Command, Paged } from "../../contracts/index.ts";
import { readBody } from "../aas-input.ts";
import { eventDraft } from "../commit-runner.ts";
import type { EngineContext } from "../engine-context.ts";
import { readForWrite, requireIdentifiable, requireSameId, unchanged } from "../identifiables.ts";
import { indexTerm, referenceTerms } from "../index-terms.ts";
import { dropPackageClaim } from "../packages/package-claims.ts";
import { listFiltered } from "../paging.ts";
import { checkCollectionPreconditions } from "../preconditions.ts";
import { anyReferenceMatches, parseReferenceFilter } from "../reference-filter.ts";
import { identifiableTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

/** Concept Description Repository API (AAS API §a.4). A concept description is one record. */

function dataSpecificationsOf(cd: Record<string, unknown>): unknown[] {
  const embedded = Array.isArray(cd.embeddedDataSpecifications) ? cd.embeddedDataSpecifications : [];
  return embedded.map((entry) => (entry as { dataSpecification?: unknown }).dataSpecification);
}

export async function getAllConceptDescriptions(
  ctx: EngineContext,
  cmd: Command<"GetAllConceptDescriptions">,
): Promise<Handled<Paged<unknown>>> {
  const { idShort, page } = cmd.params;
  const isCaseOf =
    cmd.params.isCaseOf === undefined ? undefined : parseReferenceFilter("isCaseOf", cmd.params.isCaseOf);
  const dataSpecification =
    cmd.params.dataSpecificationRef === undefined
      ? undefined
      : parseReferenceFilter("dataSpecificationRef", cmd.params.dataSpecificationRef);
  const readable = ctx.access?.readableConceptDescription;
  const keep = (cd: Record<string, unknown>) =>
    (readable === undefined || readable(cd.id as string)) &&
    (idShort === undefined || cd.idShort === idShort) &&
    (isCaseOf === undefined || anyReferenceMatches(cd.isCaseOf, isCaseOf)) &&
    (dataSpecification === undefined || anyReferenceMatches(dataSpecificationsOf(cd), dataSpecification));
  const terms = [
    ...(idShort === undefined ? [] : [indexTerm("idShort", idShort)]),
    ...(isCaseOf === undefined ? [] : referenceTerms("isCaseOf", isCaseOf)),
    ...(dataSpecification === undefined ? [] : referenceTerms("dataSpecificationRef", dataSpecification)),
  ];
  return {
    value: await listFiltered(
      ctx.repository,
      "concept-description",
      page,
      keep,
      undefined,
      readable !== undefined,
      terms,
    ),
  };
}

export async function getConceptDescription(
  ctx: EngineContext,
  cmd: Command<"GetConceptDescriptionById">,
): Promise<Handled<unknown>> {
  const stored = await requireIdentifiable(ctx, "concept-description", cmd.params.cdId);
  return { value: JSON.parse(stored.json), revision: stored.revision };
}

export async function postConceptDescription(
  ctx: EngineContext,
  cmd: Command<"PostConceptDescription">,
): Promise<Handled<unknown>> {
  const cd = readBody(cmd.params.body, "ConceptDescription", ctx.validation.onCreate);
  checkCollectionPreconditions(cmd.params.preconditions);
  const id = cd.id as string;
  const event = await ctx.commit(identifiableTarget("concept-description", id), async () => ({
    commit: {
      preconditions: [{ on: "id-free", id }],
      ops: [{ op: "put-identifiable", kind: "concept-description", id, json: JSON.stringify(cd) }],
      event: eventDraft(
        { kind: "concept-description.created", id, origin: cmd.origin, correlationId: cmd.correlationId },
        cd,
        ctx.clock.now(),
      ),
    },
  }));
  return { value: cd, revision: event.revision };
}

export async function putConceptDescription(
  ctx: EngineContext,
  cmd: Command<"PutConceptDescriptionById">,
): Promise<Handled<null>> {
  const { cdId, preconditions } = cmd.params;
  const cd = readBody(cmd.params.body, "ConceptDescription", ctx.validation.onUpdate);
  requireSameId("concept-description", cdId, cd);
  const event = await ctx.commit(identifiableTarget("concept-description", cdId), async () => {
    const stored = await readForWrite(ctx, "concept-description", cdId, preconditions);
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "put-identifiable", kind: "concept-description", id: cdId, json: JSON.stringify(cd) }],
        event: eventDraft(
          { kind: "concept-description.updated", id: cdId, origin: cmd.origin, correlationId: cmd.correlationId },
          cd,
          ctx.clock.now(),
        ),
      },
    };
  });
  return { value: null, revision: event.revision };
}

export async function deleteConceptDescription(
  ctx: EngineContext,
  cmd: Command<"DeleteConceptDescriptionById">,
): Promise<Handled<null>> {
  const { cdId, preconditions } = cmd.params;
  await ctx.commit(identifiableTarget("concept-description", cdId), async () => {
    const stored = await readForWrite(ctx, "concept-description", cdId, preconditions);
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "delete-identifiable", kind: "concept-description", id: cdId }],
        event: eventDraft(
          { kind: "concept-description.deleted", id: cdId, origin: cmd.origin, correlationId: cmd.correlationId },
          undefined,
          ctx.clock.now(),
        ),
      },
    };
  });
  await dropPackageClaim(ctx.fileStore, "concept-description", cdId);
  return { value: null };
}
