import { type Command, CommandError, type CommandResult, type Paged } from "../../contracts/index.ts";
import { readBody } from "../aas-input.ts";
import { matchesAssetIds } from "../asset-links.ts";
import { eventDraft } from "../commit-runner.ts";
import type { EngineContext } from "../engine-context.ts";
import { releaseThumbnail, thumbnailPathOf } from "../files/released-thumbnails.ts";
import { readForWrite, requireIdentifiable, requireSameId, unchanged } from "../identifiables.ts";
import { dropPackageClaim } from "../packages/package-claims.ts";
import { listFiltered } from "../paging.ts";
import { checkCollectionPreconditions } from "../preconditions.ts";
import { shellProjector } from "../shell-projection.ts";
import { identifiableTarget } from "../write-targets.ts";
import { shellFilterTerms } from "./filter-terms.ts";
import type { Handled } from "./handled.ts";

export async function getAllShells(
  ctx: EngineContext,
  cmd: Command<"GetAllAssetAdministrationShells">,
): Promise<Handled<Paged<unknown>>> {
  const { idShort, assetIds, modifiers } = cmd.params;
  const project = shellProjector(modifiers);
  const readable = ctx.access?.readableShell;
  const keep = (shell: Record<string, unknown>) =>
    (idShort === undefined || shell.idShort === idShort) &&
    (assetIds === undefined || matchesAssetIds(shell, assetIds)) &&
    (readable === undefined || readable(shell.id as string));
  // With access rules, hidden shells after a full page must not leave a cursor to an empty one.
  return {
    value: await listFiltered(
      ctx.repository,
      "shell",
      cmd.params.page,
      keep,
      project,
      readable !== undefined,
      shellFilterTerms(idShort, assetIds),
    ),
  };
}

export async function getShell(
  ctx: EngineContext,
  cmd: Command<"GetAssetAdministrationShellById">,
): Promise<Handled<unknown>> {
  const project = shellProjector(cmd.params.modifiers);
  const stored = await requireIdentifiable(ctx, "shell", cmd.params.aasId);
  return { value: project(JSON.parse(stored.json)), revision: stored.revision };
}

export async function postShell(
  ctx: EngineContext,
  cmd: Command<"PostAssetAdministrationShell">,
): Promise<Handled<CommandResult<"PostAssetAdministrationShell">>> {
  const shell = readBody(cmd.params.body, "AssetAdministrationShell", ctx.validation.onCreate);
  checkCollectionPreconditions(cmd.params.preconditions);
  const id = shell.id as string;
  const event = await ctx.commit(identifiableTarget("shell", id), async () => ({
    commit: {
      preconditions: [{ on: "id-free", id }],
      ops: [{ op: "put-identifiable", kind: "shell", id, json: JSON.stringify(shell) }],
      event: eventDraft(
        { kind: "shell.created", id, origin: cmd.origin, correlationId: cmd.correlationId },
        shell,
        ctx.clock.now(),
      ),
    },
  }));
  return { value: shell, revision: event.revision };
}

export async function putShell(
  ctx: EngineContext,
  cmd: Command<"PutAssetAdministrationShellById">,
): Promise<Handled<null>> {
  const { aasId, preconditions } = cmd.params;
  const shell = readBody(cmd.params.body, "AssetAdministrationShell", ctx.validation.onUpdate);
  requireSameId("shell", aasId, shell);
  let thumbnail: string | undefined;
  const event = await ctx.commit(identifiableTarget("shell", aasId), async () => {
    const stored = await readForWrite(ctx, "shell", aasId, preconditions);
    thumbnail = thumbnailPathOf(stored.json);
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "put-identifiable", kind: "shell", id: aasId, json: JSON.stringify(shell) }],
        event: eventDraft(
          { kind: "shell.updated", id: aasId, origin: cmd.origin, correlationId: cmd.correlationId },
          shell,
          ctx.clock.now(),
        ),
      },
    };
  });
  // Committed: an uploaded thumbnail the new shell no longer names goes (docs/adr/0051).
  await releaseThumbnail(ctx, aasId, thumbnail, thumbnailPathOf(shell));
  return { value: null, revision: event.revision };
}

export async function deleteShell(
  ctx: EngineContext,
  cmd: Command<"DeleteAssetAdministrationShellById">,
): Promise<Handled<null>> {
  const { aasId, preconditions } = cmd.params;
  let thumbnail: string | undefined;
  await ctx.commit(identifiableTarget("shell", aasId), async () => {
    const stored = await readForWrite(ctx, "shell", aasId, preconditions);
    thumbnail = thumbnailPathOf(stored.json);
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "delete-identifiable", kind: "shell", id: aasId }],
        event: eventDraft(
          { kind: "shell.deleted", id: aasId, origin: cmd.origin, correlationId: cmd.correlationId },
          undefined,
          ctx.clock.now(),
        ),
      },
    };
  });
  await dropPackageClaim(ctx.fileStore, "shell", aasId);
  // Its uploaded thumbnail goes with it; one a package brought stays (docs/adr/0051).
  await releaseThumbnail(ctx, aasId, thumbnail, undefined);
  return { value: null };
}

export { CommandError };
