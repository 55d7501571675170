import { parseJsonText } from "../../aas/index.ts";
import { fileKeyOf } from "./file-paths.ts";

/**
 * Releasing an upload is a look and a delete (released-uploads.ts): no File of the submodel names
 * it, so its bytes go. A write that makes a File name it (a PATCH pointing another File at the
 * upload its owner is just letting go of) could commit between the two: answered 204, its File
 * named deleted bytes. A lock around both made writes wait behind the look, which reads the whole
 * submodel (seconds for a large one). Instead, writes that name uploads say so, and a release keeps
 * an upload that a write named while it looked:
 * - a write holds a claim on the uploads its body names from before its commit until it settled;
 * - one that settled (committed) while a release was looking leaves a mark newer than the release;
 * - a release deletes an upload only when no File it read names it, no claim on it is held, and no
 *   mark on it is newer than the release's start.
 * A write that names the upload after the release decided commits after the delete: as if it came
 * second, its File names bytes that had gone.
 * A release that keeps an upload only because a write claims it leaves that decision to the claim:
 * once the last claim on it settled, the release looks again (`recheck`). Otherwise a write that
 * then failed (a stale If-Match, an invalid body, a conflict) kept bytes no File names until /reset.
 * Nothing waits for anything: the write that settled last runs the look before it answers.
 * In the process: commands of one submodel go to one model-store replica (ADR 0027), so this covers
 * both modes; two replicas serving one submodel during a failover are not covered.
 */
export class UploadClaims {
  private readonly held = new Map<string, number>();
  /** Tick at which a write naming the key last settled, kept only while a release is looking. */
  private readonly marks = new Map<string, number>();
  /** Releases that kept the key only because a write held a claim on it: they look again once none does. */
  private readonly deferred = new Map<string, (() => Promise<void>)[]>();
  /** Deletes a release decided on and started: a write naming the key commits after them. */
  private readonly deleting = new Map<string, Promise<void>>();
  private tick = 0;
  private looking = 0;

  /**
   * A write about to commit that names `keys` (stored file keys); call the result once it settled.
   * It answers the looks of releases that deferred to the claims just ended: the caller runs them.
   */
  hold(keys: readonly string[]): (committed: boolean) => (() => Promise<void>)[] {
    for (const key of keys) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    return (committed) => {
      const rechecks: (() => Promise<void>)[] = [];
      for (const key of keys) {
        const count = this.held.get(key)! - 1;
        if (count === 0) {
          this.held.delete(key);
          rechecks.push(...(this.deferred.get(key) ?? []));
          this.deferred.delete(key);
        } else this.held.set(key, count);
        if (committed && this.looking > 0) this.marks.set(key, ++this.tick);
      }
      return rechecks;
    };
  }

  /**
   * A release keeps `key` if a write holds a claim on it now; `recheck` then runs once the last
   * claim on it settled, whether that write committed or not. False when no claim is held.
   */
  deferTo(key: string, recheck: () => Promise<void>): boolean {
    if (!this.held.has(key)) return false;
    const waiting = this.deferred.get(key);
    if (waiting) waiting.push(recheck);
    else this.deferred.set(key, [recheck]);
    return true;
  }

  /** A release starts looking: the token it asks `named` with. Call `ended` when it is done. */
  started(): number {
    this.looking++;
    return ++this.tick;
  }

  ended(): void {
    // With no release looking, a later one reads what every settled write committed: no mark is needed.
    if (--this.looking === 0) this.marks.clear();
  }

  /** Whether a write names `key` now, or settled naming it since the release with `token` started. */
  named(key: string, token: number): boolean {
    return this.held.has(key) || (this.marks.get(key) ?? 0) > token;
  }

  /**
   * A release decided that `key` goes and runs `remove`: call it in the same turn as the checks
   * above, so no write can claim the key in between. Until it finished, a write naming the key waits
   * for it (`deletesOf`): it then commits after the delete, as it would had it come second.
   * Before, it could commit and answer while the delete was still reading the file, and its File
   * served the bytes once and then no more (black-box finding: 8 rounds in 12 on a filesystem
   * store). Only writes naming that very upload wait, and only for one file's delete.
   */
  deleted(key: string, remove: () => Promise<void>): Promise<void> {
    const done = remove().finally(() => {
      if (this.deleting.get(key) === done) this.deleting.delete(key);
    });
    this.deleting.set(key, done);
    return done;
  }

  /**
   * The deletes of `keys` under way; a write that holds its claims waits for them before it commits,
   * at most `boundMs`: false when one has not finished by then (a file store that hangs, such as a
   * stalled network mount). The write must then not commit: it would come first after all, and
   * answer long after its caller gave up (black-box finding: it answered never, then committed over
   * a newer acknowledged write once the store came back).
   */
  async deletesOf(keys: readonly string[], boundMs: number): Promise<boolean> {
    const pending = keys.flatMap((key) => {
      const deleting = this.deleting.get(key);
      return deleting === undefined ? [] : [deleting.catch(() => undefined)];
    });
    if (pending.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all(pending).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), boundMs);
      }),
    ]);
    clearTimeout(timer);
    return finished;
  }
}

/**
 * The stored files a write's body may name: every string in it that is an upload's path in any
 * spelling the model accepts (`file://`, percent escapes, JSON escapes, tabs a URL parser drops).
 * A body that has none of `aasx`, `%` or a backslash names none and is not even parsed (a
 * Property's plain value, the hot path).
 */
export function uploadKeysIn(body: string): string[] {
  if (!/aasx|%|\\/i.test(body)) return [];
  let parsed: unknown;
  try {
    // Depth first (json-text.ts): this runs before the handler's own parse, on any body.
    parsed = parseJsonText(body);
  } catch {
    return []; // the write refuses it anyway
  }
  const keys = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === "string") {
      if (!/aasx|%/i.test(value) && !/[\t\n\r]/.test(value)) return;
      const key = fileKeyOf(value);
      if (key !== undefined && UPLOAD_KEY.test(key)) keys.add(key);
    } else if (Array.isArray(value)) for (const item of value) visit(item);
    else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) visit(item);
  };
  visit(parsed);
  return [...keys];
}

/** Uploads' keys: `/aasx/files|thumbnails/<16 hex>/…` (file-paths.ts uploadPath). */
const UPLOAD_KEY = /^\/aasx\/(?:files|thumbnails)\/[0-9a-f]{16}\//;
