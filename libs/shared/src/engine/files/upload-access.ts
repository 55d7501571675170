import type { EngineContext } from "../engine-context.ts";
import type { FileOwner, StoredFile } from "../ports/index.ts";

/**
 * With access rules, a stored upload is served through a File element or thumbnail other than the
 * one it was uploaded for only to a caller who may read its owner. A File's value is just a path:
 * anyone who may write one could otherwise point it at another element's upload (the folders are
 * hashes of ids, so they can be computed) and read bytes the rules hide. Without rules everything
 * is readable anyway; files that came with a package have no owner and are shared by design.
 * Every way out of the store applies it: the attachment and thumbnail reads, and the files an AASX
 * serialization carries (serialization/package-stream.ts).
 * The File that uploaded them is their owner also at another index: when a list item before it
 * goes, it moves up one, and the caller was checked against the File it addresses. A rule on its
 * old index governs another element now (isOwnerMoved).
 */
export async function mayReadUpload(
  ctx: EngineContext,
  file: Pick<StoredFile, "owner">,
  via: FileOwner,
): Promise<boolean> {
  return await uploadReadCheck(ctx)(file, via);
}

/**
 * mayReadUpload for many files at once (a package being written): each owner is looked up once,
 * however many File elements point at its uploads.
 */
export function uploadReadCheck(
  ctx: EngineContext,
): (file: Pick<StoredFile, "owner">, via: FileOwner) => Promise<boolean> {
  const readable = new Map<string, Promise<boolean>>();
  return async (file, via) => {
    const owner = file.owner;
    if (ctx.access === undefined || owner === undefined || sameOwner(owner, via)) return true;
    const name = JSON.stringify(owner);
    let answer = readable.get(name);
    if (answer === undefined) {
      answer = mayReadOwner(ctx, owner);
      readable.set(name, answer);
    }
    return (await answer) || (await isOwnerMoved(ctx, owner, via));
  };
}

/**
 * Whether `via` is the File that uploaded the bytes, at another idShortPath now: a list item before
 * it went and its index shifted. The caller was checked against the File it addressed; the rule on
 * its old index governs another element now. Its orderKey tells (never reused within a submodel),
 * read when the caller did not bring it (a serialization reads the model, not the records). A
 * client pointing a File at another element's upload cannot give it the owner's orderKey.
 */
async function isOwnerMoved(ctx: EngineContext, owner: FileOwner, via: FileOwner): Promise<boolean> {
  if ("shellId" in owner || "shellId" in via || owner.orderKey === undefined) return false;
  // Only list indexes shift: a path of another shape is another element, whatever its orderKey
  // (lists stored before docs/adr/0020 keyed their items by index, which other elements' keys may equal).
  if (owner.submodelId !== via.submodelId || !sameBesideIndexes(owner.idShortPath, via.idShortPath)) return false;
  if (via.orderKey !== undefined) return via.orderKey === owner.orderKey;
  const [record] = await ctx.repository.getElements(via.submodelId, [via.idShortPath]);
  return record?.orderKey === owner.orderKey;
}

function sameBesideIndexes(a: string, b: string): boolean {
  return a.replace(/\[\d+\]/g, "[]") === b.replace(/\[\d+\]/g, "[]");
}

async function mayReadOwner(ctx: EngineContext, owner: FileOwner): Promise<boolean> {
  const access = ctx.access!;
  if ("shellId" in owner) return access.readableShell(owner.shellId);
  const stored = await ctx.repository.getIdentifiable("submodel", owner.submodelId);
  if (stored === undefined) return false;
  const scope = access.submodelReadScope(JSON.parse(stored.json) as Record<string, unknown>);
  if (scope === undefined) return false;
  const list = owner.idShortPath.indexOf("[");
  // The owner is a File, which holds no elements: never shown on the way to a grant below it
  // (element-on-the-way.ts), so only a grant covering it lets its bytes out.
  if (list < 0 || owner.orderKey === undefined) return scope.covers(owner.idShortPath);
  // A list item's File: is it still where it was uploaded? When an item before it went, its index
  // shifted, and the rule on its old index governs another element now: a File pointed at its
  // upload then served it to whoever may read that other element (black-box finding). Where it is
  // now is not known without a search, so only a caller who may read the whole list, wherever in it
  // the owner is, may read it then.
  const [record] = await ctx.repository.getElements(owner.submodelId, [owner.idShortPath]);
  if (record?.orderKey === owner.orderKey) return scope.covers(owner.idShortPath);
  return scope.covers(owner.idShortPath.slice(0, list));
}

export function sameOwner(a: FileOwner, b: FileOwner): boolean {
  if ("shellId" in a) return "shellId" in b && a.shellId === b.shellId;
  return "submodelId" in b && a.submodelId === b.submodelId && a.idShortPath === b.idShortPath;
}
