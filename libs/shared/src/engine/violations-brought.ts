import { type AasClassName, AasError, readAas, verificationErrors } from "../aas/index.ts";
import { rethrowAsCommandError } from "./aas-input.ts";

/**
 * `next` read as `target`, refused only for the constraint violations it brings: those `current`
 * (the stored object it was made from) did not have already.
 *
 * For writes of one part of an object that leave the rest as stored. A shell whose asset links were
 * all deleted names no asset (AASd-131; stored so on purpose, ADR 0007): adding a submodel
 * reference or a thumbnail to it was refused for that violation, which the client neither sent nor
 * could mend through the part it addressed. A violation the write itself makes is still refused,
 * and a valid object pays nothing: `current` is verified only when `next` fails.
 */
export function readBringingNoViolation(
  current: Record<string, unknown>,
  next: Record<string, unknown>,
  target: AasClassName,
): Record<string, unknown> {
  try {
    return readAas(next, target, { validate: true }).jsonable;
  } catch (error) {
    if (!(error instanceof AasError && error.kind === "verification")) rethrowAsCommandError(error);
    const before = new Set(violationsOf(current, target));
    if (before.size === 0 || violationsOf(next, target).some((violation) => !before.has(violation)))
      rethrowAsCommandError(error);
    return readAas(next, target, { validate: false }).jsonable;
  }
}

function violationsOf(jsonable: Record<string, unknown>, target: AasClassName): string[] {
  try {
    return verificationErrors(readAas(jsonable, target, { validate: false }).instance);
  } catch {
    // Not even readable (a stored object always is): nothing known to keep, so the write is refused.
    return [];
  }
}
