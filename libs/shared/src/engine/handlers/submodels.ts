import { type Command, type OutputModifiers, type Paged } from "../../contracts/index.ts";
import { eventDraft } from "../commit-runner.ts";
import type { EngineContext } from "../engine-context.ts";
import { readBody } from "../aas-input.ts";
import { deleteOps, insertOps, loadAllElements } from "../element-io.ts";
import { readForWrite, requireIdentifiable, requireSameId, unchanged } from "../identifiables.ts";
import { listFiltered, pageCursor } from "../paging.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { joinSubmodel, splitSubmodel } from "../submodel-json.ts";
import { projectSubmodel } from "../projection.ts";
import { elementTarget, identifiableTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

function depthOf(modifiers: OutputModifiers | undefined): number | undefined {
  return modifiers?.level === "core" ? 1 : undefined;
}

function semanticIdMatches(submodel: Record<string, unknown>, semanticId: string): boolean {
  const keys = ((submodel.semanticId as { keys?: { value?: string }[] } | undefined)?.keys ?? []);
  return keys.some((key) => key.value === semanticId);
}

export async function getAllSubmodels(ctx: EngineContext, cmd: Command<"GetAllSubmodels">): Promise<Handled<Paged<unknown>>> {
  const { idShort, semanticId, modifiers, page } = cmd.params;
  pageCursor(page);
  const metas = await listFiltered(ctx.repository, "submodel", page, (sm) => {
    if (idShort !== undefined && sm.idShort !== idShort) return false;
    return semanticId === undefined || semanticIdMatches(sm, semanticId);
  });
  const items = await Promise.all(
    (metas.items as Record<string, unknown>[]).map(async (meta) => {
      const elements = await loadAllElements(ctx.repository, meta.id as string, depthOf(modifiers));
      return projectSubmodel(joinSubmodel(meta, elements), modifiers);
    }),
  );
  return { value: metas.cursor === undefined ? { items } : { items, cursor: metas.cursor } };
}

export async function getSubmodel(ctx: EngineContext, cmd: Command<"GetSubmodelById">): Promise<Handled<unknown>> {
  const { submodelId, modifiers } = cmd.params;
  await checkSubmodelScope(ctx, cmd.params);
  const stored = await requireIdentifiable(ctx, "submodel", submodelId);
  const elements = await loadAllElements(ctx.repository, submodelId, depthOf(modifiers));
  return { value: projectSubmodel(joinSubmodel(JSON.parse(stored.json), elements), modifiers), revision: stored.revision };
}

export async function postSubmodel(ctx: EngineContext, cmd: Command<"PostSubmodel">): Promise<Handled<unknown>> {
  const submodel = readBody(cmd.params.body, "Submodel", ctx.validation.onCreate);
  const id = submodel.id as string;
  const { meta, elements } = splitSubmodel(submodel);
  const event = await ctx.commit(identifiableTarget("submodel", id), async () => ({
    commit: {
      preconditions: [{ on: "id-free", id }],
      ops: [{ op: "put-identifiable", kind: "submodel", id, json: JSON.stringify(meta) }, ...insertOps(id, "", elements, false)],
      event: eventDraft({ kind: "submodel.created", id, origin: cmd.origin, correlationId: cmd.correlationId }, submodel, ctx.clock.now()),
    },
  }));
  return { value: submodel, revision: event.revision };
}

export async function putSubmodel(ctx: EngineContext, cmd: Command<"PutSubmodelById">): Promise<Handled<null>> {
  const { submodelId, preconditions } = cmd.params;
  const submodel = readBody(cmd.params.body, "Submodel", ctx.validation.onUpdate);
  requireSameId("submodel", submodelId, submodel);
  await checkSubmodelScope(ctx, cmd.params);
  const { meta, elements } = splitSubmodel(submodel);
  const event = await ctx.commit(identifiableTarget("submodel", submodelId), async () => {
    const stored = await readForWrite(ctx, "submodel", submodelId, preconditions);
    // Replace in place (the submodel keeps its position in /submodels): drop old element records.
    const old = await ctx.repository.getSubtree(submodelId, "");
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [
          ...deleteOps(submodelId, old),
          { op: "put-identifiable", kind: "submodel", id: submodelId, json: JSON.stringify(meta) },
          ...insertOps(submodelId, "", elements, false),
        ],
        event: eventDraft({ kind: "submodel.updated", id: submodelId, origin: cmd.origin, correlationId: cmd.correlationId }, submodel, ctx.clock.now()),
      },
    };
  });
  return { value: null, revision: event.revision };
}

export async function deleteSubmodel(ctx: EngineContext, cmd: Command<"DeleteSubmodelById">): Promise<Handled<null>> {
  const { submodelId, preconditions } = cmd.params;
  await checkSubmodelScope(ctx, cmd.params);
  await ctx.commit(identifiableTarget("submodel", submodelId), async () => {
    const stored = await readForWrite(ctx, "submodel", submodelId, preconditions);
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "delete-identifiable", kind: "submodel", id: submodelId }],
        event: eventDraft({ kind: "submodel.deleted", id: submodelId, origin: cmd.origin, correlationId: cmd.correlationId }, undefined, ctx.clock.now()),
      },
    };
  });
  return { value: null };
}
