import { CommandError, type Command, type CommandResult, type Paged } from "../../contracts/index.ts";
import { eventDraft } from "../commit-runner.ts";
import type { EngineContext } from "../engine-context.ts";
import { readBody } from "../aas-input.ts";
import { readForWrite, requireIdentifiable, requireSameId, unchanged } from "../identifiables.ts";
import { listFiltered } from "../paging.ts";
import { elementTarget, identifiableTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

type AssetIdFilter = { name: string; value: string };

function matchesAssetIds(shell: Record<string, unknown>, assetIds: AssetIdFilter[]): boolean {
  const info = (shell.assetInformation ?? {}) as { globalAssetId?: string; specificAssetIds?: { name: string; value: string }[] };
  return assetIds.every(({ name, value }) =>
    name === "globalAssetId"
      ? info.globalAssetId === value
      : (info.specificAssetIds ?? []).some((s) => s.name === name && s.value === value),
  );
}

export async function getAllShells(ctx: EngineContext, cmd: Command<"GetAllAssetAdministrationShells">): Promise<Handled<Paged<unknown>>> {
  const { idShort, assetIds } = cmd.params;
  const page = await listFiltered(ctx.repository, "shell", cmd.params.page, (shell) => {
    if (idShort !== undefined && shell.idShort !== idShort) return false;
    return !assetIds || assetIds.length === 0 || matchesAssetIds(shell, assetIds);
  });
  return { value: page };
}

export async function getShell(ctx: EngineContext, cmd: Command<"GetAssetAdministrationShellById">): Promise<Handled<unknown>> {
  const stored = await requireIdentifiable(ctx, "shell", cmd.params.aasId);
  return { value: JSON.parse(stored.json), revision: stored.revision };
}

export async function postShell(ctx: EngineContext, cmd: Command<"PostAssetAdministrationShell">): Promise<Handled<CommandResult<"PostAssetAdministrationShell">>> {
  const shell = readBody(cmd.params.body, "AssetAdministrationShell", ctx.validation.onCreate);
  const id = shell.id as string;
  const event = await ctx.commit(identifiableTarget("shell", id), async () => ({
    commit: {
      preconditions: [{ on: "id-free", id }],
      ops: [{ op: "put-identifiable", kind: "shell", id, json: JSON.stringify(shell) }],
      event: eventDraft({ kind: "shell.created", id, origin: cmd.origin, correlationId: cmd.correlationId }, shell, ctx.clock.now()),
    },
  }));
  return { value: shell, revision: event.revision };
}

export async function putShell(ctx: EngineContext, cmd: Command<"PutAssetAdministrationShellById">): Promise<Handled<null>> {
  const { aasId, preconditions } = cmd.params;
  const shell = readBody(cmd.params.body, "AssetAdministrationShell", ctx.validation.onUpdate);
  requireSameId("shell", aasId, shell);
  const event = await ctx.commit(identifiableTarget("shell", aasId), async () => {
    const stored = await readForWrite(ctx, "shell", aasId, preconditions);
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "put-identifiable", kind: "shell", id: aasId, json: JSON.stringify(shell) }],
        event: eventDraft({ kind: "shell.updated", id: aasId, origin: cmd.origin, correlationId: cmd.correlationId }, shell, ctx.clock.now()),
      },
    };
  });
  return { value: null, revision: event.revision };
}

export async function deleteShell(ctx: EngineContext, cmd: Command<"DeleteAssetAdministrationShellById">): Promise<Handled<null>> {
  const { aasId, preconditions } = cmd.params;
  await ctx.commit(identifiableTarget("shell", aasId), async () => {
    const stored = await readForWrite(ctx, "shell", aasId, preconditions);
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "delete-identifiable", kind: "shell", id: aasId }],
        event: eventDraft({ kind: "shell.deleted", id: aasId, origin: cmd.origin, correlationId: cmd.correlationId }, undefined, ctx.clock.now()),
      },
    };
  });
  return { value: null };
}

export { CommandError };
