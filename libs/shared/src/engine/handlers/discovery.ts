import { parseJsonText, readModel } from "../../aas/index.ts";
import { type Command, CommandError, type Paged } from "../../contracts/index.ts";
import { rethrowAsCommandError, toCommandError } from "../aas-input.ts";
import { assetLinksOf, GLOBAL_ASSET_ID_NAME, matchesAssetIds } from "../asset-links.ts";
import type { EngineContext } from "../engine-context.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { listFiltered } from "../paging.ts";
import { rewriteShell } from "../shell-rewrite.ts";
import { shellFilterTerms } from "./filter-terms.ts";
import type { Handled } from "./handled.ts";

/**
 * Basic Discovery API (AAS API §a.5) over the shells of this repository: a shell's asset links are
 * its global asset id and specific asset ids (ADR 0007), so discovery, `/shells?assetIds=` and the
 * shells themselves always agree.
 */

export async function getAllShellIdsByAssetLink(
  ctx: EngineContext,
  cmd: Command<"GetAllAssetAdministrationShellIdsByAssetLink">,
): Promise<Handled<Paged<string>>> {
  const { assetIds, page } = cmd.params;
  const readable = ctx.access?.readableShell;
  const keep = (shell: Record<string, unknown>) =>
    (assetIds === undefined || matchesAssetIds(shell, assetIds)) &&
    (readable === undefined || readable(shell.id as string));
  return {
    value: (await listFiltered(
      ctx.repository,
      "shell",
      page,
      keep,
      (shell) => shell.id,
      readable !== undefined,
      shellFilterTerms(undefined, assetIds),
    )) as Paged<string>,
  };
}

export async function getAllAssetLinks(
  ctx: EngineContext,
  cmd: Command<"GetAllAssetLinksById">,
): Promise<Handled<unknown[]>> {
  const stored = await requireIdentifiable(ctx, "shell", cmd.params.aasId);
  return { value: assetLinksOf(JSON.parse(stored.json)), revision: stored.revision };
}

/**
 * Creates or replaces links by name, as FA³ST does: "globalAssetId" sets the global asset id, any
 * other name replaces the specific asset ids of that name with the links of that name posted (or
 * adds them). Links not named stay.
 * Answers every link of the shell afterwards.
 *
 * The reserved name is replaced by name too: it sets the global asset id and replaces the specific
 * asset ids of that name (AASd-116 would refuse one left with the old value). A "globalAssetId"
 * link with more than name and value (externalSubjectId, semanticId) is kept as such a specific
 * asset id, the one place the metamodel holds them, so what GET answered can be posted back.
 */
export async function postAllAssetLinks(
  ctx: EngineContext,
  cmd: Command<"PostAllAssetLinksById">,
): Promise<Handled<unknown[]>> {
  const links = readAssetLinks(cmd.params.body, ctx.validation.onUpdate);
  const global = links.find((link) => link.name === GLOBAL_ASSET_ID_NAME);
  const plainGlobal = global !== undefined && Object.keys(global).every((key) => key === "name" || key === "value");
  const specific = links.filter((link) => link.name !== GLOBAL_ASSET_ID_NAME || !plainGlobal);
  const names = new Set(links.map((link) => link.name));
  const { shell, event } = await rewriteShell(ctx, {
    aasId: cmd.params.aasId,
    preconditions: cmd.params.preconditions,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
    verify: "brought",
    change: (shell) => {
      const info = { ...(shell.assetInformation as Record<string, unknown>) };
      if (global !== undefined) info.globalAssetId = global.value;
      const merged = replacedByName((info.specificAssetIds ?? []) as Record<string, unknown>[], specific, names);
      if (merged.length > 0) info.specificAssetIds = merged;
      else delete info.specificAssetIds;
      return { ...shell, assetInformation: info };
    },
  });
  return { value: assetLinksOf(shell), revision: event.revision };
}

/**
 * The specific asset ids after a POST: the links of each name posted take the place of the first
 * id of that name (a new name goes last), the others stay where they are. So posting back what GET
 * answered, which lists a reserved-name id first as the global asset id's link, changes nothing.
 */
function replacedByName(
  existing: readonly Record<string, unknown>[],
  posted: readonly Record<string, unknown>[],
  names: ReadonlySet<string>,
): Record<string, unknown>[] {
  const byName = new Map<string, Record<string, unknown>[]>();
  for (const link of posted) {
    const name = link.name as string;
    byName.set(name, [...(byName.get(name) ?? []), link]);
  }
  const result: Record<string, unknown>[] = [];
  const placed = new Set<string>();
  for (const link of existing) {
    const name = link.name as string;
    if (!names.has(name)) result.push(link);
    else if (!placed.has(name)) {
      placed.add(name);
      result.push(...(byName.get(name) ?? []));
    }
  }
  for (const [name, links] of byName) if (!placed.has(name)) result.push(...links);
  return result;
}

/**
 * Removes every link: the global asset id and all specific asset ids. The shell then violates
 * AASd-131 (it names no asset) until links are posted again; that is what the client asked for.
 */
export async function deleteAllAssetLinks(
  ctx: EngineContext,
  cmd: Command<"DeleteAllAssetLinksById">,
): Promise<Handled<null>> {
  const { event } = await rewriteShell(ctx, {
    aasId: cmd.params.aasId,
    preconditions: cmd.params.preconditions,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
    verify: "none",
    change: (shell) => {
      const {
        globalAssetId: _global,
        specificAssetIds: _specific,
        ...info
      } = shell.assetInformation as Record<string, unknown>;
      return { ...shell, assetInformation: info };
    },
  });
  return { value: null, revision: event.revision };
}

/**
 * The POST body: a non-empty array of SpecificAssetIds. A name may come more than once (the
 * metamodel lets a shell carry two serial numbers, and GET lists both, so posting back what GET
 * answered must work): all links of that name together replace the shell's ids of that name. The
 * reserved name is the one global asset id, so it comes at most once.
 */
function readAssetLinks(body: string, validate: boolean): { name: string; value: string; [key: string]: unknown }[] {
  if (typeof body !== "string" || body.trim() === "")
    throw new CommandError("bad-request", "The request body is empty; a JSON array of SpecificAssetIds is required");
  let parsed: unknown;
  try {
    parsed = parseJsonText(body);
  } catch (error) {
    rethrowAsCommandError(error);
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new CommandError("bad-request", "The request body must be a non-empty JSON array of SpecificAssetIds");
  const links = parsed.map((item, i) => {
    try {
      return readModel(item, "SpecificAssetId", { validate }).jsonable as { name: string; value: string };
    } catch (error) {
      const mapped = toCommandError(error);
      if (!(mapped instanceof CommandError)) throw mapped;
      throw new CommandError(mapped.code, `Asset link [${i}]: ${mapped.message}`, { details: mapped.details });
    }
  });
  if (links.filter((link) => link.name === GLOBAL_ASSET_ID_NAME).length > 1)
    throw new CommandError(
      "bad-request",
      `The asset link name '${GLOBAL_ASSET_ID_NAME}' is given more than once; a shell has one global asset id`,
    );
  return links;
}
