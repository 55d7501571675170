import {
  hasMetadata,
  isAasError,
  keepBlobValues,
  mergePatch,
  metadataOmits,
  parseJsonText,
  toMetadata,
  withArticle,
} from "../aas/index.ts";
import { CommandError } from "../contracts/index.ts";
import { rethrowAsCommandError } from "./aas-input.ts";

/**
 * The merge-patch side of PATCH (spec §4.4, docs/architecture.md §8) for the normal and `$metadata` forms,
 * shared by submodels and elements. The result of a patch is then read like a PUT body.
 */

/** A merge-patch body: a JSON object (a patch that is not an object would replace the target whole). */
export function parseMergePatch(body: string): Record<string, unknown> {
  if (typeof body !== "string" || body.trim() === "")
    throw new CommandError("bad-request", "The request body is empty; a JSON merge patch is required");
  let patch: unknown;
  try {
    patch = parseJsonText(body);
  } catch (error) {
    if (isAasError(error)) rethrowAsCommandError(error);
    throw error;
  }
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
    throw new CommandError("bad-request", "A PATCH body must be a JSON object (RFC 7386 merge patch)");
  }
  return patch as Record<string, unknown>;
}

/**
 * The patched object. "metadata": the patch applies to the `$metadata` representation and may not
 * name what that form leaves out (values, children), which the result keeps as they were.
 */
export function applyMergePatch(
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
  content: "normal" | "metadata",
): Record<string, unknown> {
  // Nested Blobs left without bytes (as the default GET gives them) keep theirs (blob-extent.ts).
  if (content === "normal") return keepBlobValues(current, mergePatch(current, patch) as Record<string, unknown>);
  if (!hasMetadata(current))
    throw new CommandError(
      "bad-request",
      `${withArticle(String(current.modelType), true)} has no $metadata representation`,
    );
  const omitted = metadataOmits(current.modelType);
  const values = Object.keys(patch).filter((key) => omitted.includes(key));
  if (values.length > 0) {
    throw new CommandError(
      "bad-request",
      `A $metadata PATCH cannot change ${values.map((key) => `"${key}"`).join(", ")} of a ${String(current.modelType)}`,
    );
  }
  const kept = Object.fromEntries(omitted.filter((key) => key in current).map((key) => [key, current[key]]));
  return { ...(mergePatch(toMetadata(current), patch) as Record<string, unknown>), ...kept };
}

/** A PATCH updates in place: what the URL addresses keeps its kind and identifier (id, idShort). */
export function requireSameIdentity(
  current: Record<string, unknown>,
  patched: Record<string, unknown>,
  keys: readonly ("modelType" | "id" | "idShort")[],
): void {
  for (const key of keys) {
    if (patched[key] !== current[key]) {
      throw new CommandError(
        "bad-request",
        `A PATCH cannot change "${key}" ('${String(current[key])}' → '${String(patched[key])}')`,
      );
    }
  }
}
