import type { FileStore } from "../ports/index.ts";
import { pendingPackageIds } from "./package-intents.ts";

/**
 * A reset and package writes do not overlap. A POST of a package running beside DELETE /reset
 * finished with 201 yet left half of itself (a shell without its submodel, a listed package with no
 * content) or a File naming bytes the reset had deleted (a black-box finding): the reset removes
 * identifiables, then clears the files, while the write commits, claims and holds in between.
 *
 * Two marks, each written before the other is looked for (so of a reset and a write that begin
 * together, at least one sees the other and stops before changing anything):
 *   reset-pending        JSON {at}: a reset under way; package writes refuse to begin (409)
 *   package-pending:<id> a package write under way (package-intents.ts); a reset refuses (409)
 * The reset's mark goes with the files it clears. A reset that died leaves it: writes are refused
 * for at most RESET_MARK_MAX_MS after it began, or until a reset completes.
 */
const RESET_KEY = "reset-pending";
export const RESET_MARK_MAX_MS = 15 * 60_000;

export async function markReset(files: FileStore, now: number): Promise<void> {
  await files.put(RESET_KEY, {
    contentType: "application/json",
    bytes: Buffer.from(JSON.stringify({ at: now }), "utf8"),
  });
}

export async function unmarkReset(files: FileStore): Promise<void> {
  await files.delete(RESET_KEY);
}

/** Whether a reset is under way (its mark younger than the bound). */
export async function resetUnderWay(files: FileStore, now: number): Promise<boolean> {
  const stored = await files.get(RESET_KEY);
  if (stored === undefined) return false;
  try {
    const { at } = JSON.parse(Buffer.from(stored.bytes).toString("utf8")) as { at?: unknown };
    return typeof at === "number" && now - at < RESET_MARK_MAX_MS;
  } catch {
    return false;
  }
}

/** The package writes under way (or left behind by a dead process, until swept). */
export async function packageWritesUnderWay(files: FileStore): Promise<number> {
  return (await pendingPackageIds(files)).length;
}
