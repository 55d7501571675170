import { echoed } from "../aas/index.ts";
import { CommandError } from "../contracts/index.ts";
import type { EngineContext } from "./engine-context.ts";
import { notFound, requireIdentifiable } from "./identifiables.ts";

interface ReferenceJson {
  type?: string;
  keys?: { type?: string; value?: string }[];
}

/** Does the shell's `submodels` list hold a ModelReference to this submodel? */
export function shellReferencesSubmodel(shell: Record<string, unknown>, submodelId: string): boolean {
  const refs = (shell.submodels ?? []) as ReferenceJson[];
  return refs.some((ref) => (ref.keys ?? []).some((key) => key.type === "Submodel" && key.value === submodelId));
}

/**
 * Requests through /shells/{aasId}/submodels/{smId}/… address a submodel *of that shell*: the shell
 * must exist and reference it, otherwise the submodel is not found there (404).
 */
export async function checkSubmodelScope(
  ctx: EngineContext,
  params: { aasId?: string; submodelId: string },
): Promise<void> {
  if (params.aasId === undefined) return;
  const shell = await requireIdentifiable(ctx, "shell", params.aasId);
  if (!shellReferencesSubmodel(JSON.parse(shell.json), params.submodelId)) {
    throw new CommandError(
      "not-found",
      `${notFound("submodel", params.submodelId).message} in Asset Administration Shell '${echoed(params.aasId)}'`,
    );
  }
}
