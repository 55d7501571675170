import type { EngineContext } from "../engine-context.ts";
import type { FileOwner, StoredFile } from "../ports/index.ts";

/**
 * With access rules, a stored upload is served through a File element or thumbnail other than the
 * one it was uploaded for only to a caller who may read its owner. A File's value is just a path:
 * anyone who may write one could otherwise point it at another element's upload (the folders are
 * hashes of ids, so they can be computed) and read bytes the rules hide. Without rules everything
 * is readable anyway; files that came with a package have no owner and are shared by design.
 */
export async function mayReadUpload(ctx: EngineContext, file: StoredFile, via: FileOwner): Promise<boolean> {
  const { access } = ctx;
  const owner = file.owner;
  if (access === undefined || owner === undefined || sameOwner(owner, via)) return true;
  if ("shellId" in owner) return access.readableShell(owner.shellId);
  const stored = await ctx.repository.getIdentifiable("submodel", owner.submodelId);
  if (stored === undefined) return false;
  const scope = access.submodelReadScope(JSON.parse(stored.json) as Record<string, unknown>);
  return scope !== undefined && scope.shows(owner.idShortPath);
}

function sameOwner(a: FileOwner, b: FileOwner): boolean {
  if ("shellId" in a) return "shellId" in b && a.shellId === b.shellId;
  return "submodelId" in b && a.submodelId === b.submodelId && a.idShortPath === b.idShortPath;
}
