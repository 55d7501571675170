import type { EngineContext } from "../engine-context.ts";

/**
 * Releasing an upload is a look and a delete (released-uploads.ts): no File of the submodel names
 * it, so its bytes go. A write that makes a File name it (a PATCH pointing another File at the
 * upload its owner is just letting go of) committed between the two was answered 204 and left its
 * File naming deleted bytes. So, per submodel, a release and the commit of any write that may name
 * an upload run one after another: the write either commits before the look (which then sees it,
 * and the bytes stay) or after the delete (as if it came second, naming a path whose bytes had
 * gone). Commands of one submodel go to one model-store replica (ADR 0027), so a lock in the
 * process covers both modes; two replicas serving one submodel during a failover are not covered.
 */

/**
 * Whether a write's body may make a File name an upload. Uploads live under `/aasx/`; a body that
 * spells the path some other way (percent- or `\u`-escaped) is taken as possibly naming one too.
 * A Property's value (the hot path) matches none of these and runs as before.
 */
export function mayNameUpload(body: string): boolean {
  return /aasx/i.test(body) || body.includes("%") || body.includes("\\u");
}

/** Runs `commit` under the submodel's upload guard when `body` may name an upload, else as it is. */
export function guardedCommit<T>(
  ctx: EngineContext,
  submodelId: string,
  body: string,
  commit: () => Promise<T>,
): Promise<T> {
  return mayNameUpload(body) ? ctx.uploadGuard.run(submodelId, commit) : commit();
}
