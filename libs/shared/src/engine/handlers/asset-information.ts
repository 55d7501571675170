import { parseJsonText } from "../../aas/index.ts";
import { type Command, CommandError } from "../../contracts/index.ts";
import { rethrowAsCommandError } from "../aas-input.ts";
import type { EngineContext } from "../engine-context.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { rewriteShell } from "../shell-rewrite.ts";
import type { Handled } from "./handled.ts";

/** AAS API: GET /shells/{aasIdentifier}/asset-information. Its ETag is the shell's revision. */
export async function getAssetInformation(
  ctx: EngineContext,
  cmd: Command<"GetAssetInformation">,
): Promise<Handled<unknown>> {
  const stored = await requireIdentifiable(ctx, "shell", cmd.params.aasId);
  return { value: (JSON.parse(stored.json) as Record<string, unknown>).assetInformation, revision: stored.revision };
}

/**
 * AAS API: PUT /shells/{aasIdentifier}/asset-information replaces the whole AssetInformation. It is
 * checked as part of the shell, so errors name their place as `assetInformation.…`.
 */
export async function putAssetInformation(
  ctx: EngineContext,
  cmd: Command<"PutAssetInformation">,
): Promise<Handled<null>> {
  const { aasId, body, preconditions } = cmd.params;
  const assetInformation = jsonObjectBody(body, "AssetInformation");
  const { event } = await rewriteShell(ctx, {
    aasId,
    preconditions,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
    change: (shell) => ({ ...shell, assetInformation }),
  });
  return { value: null, revision: event.revision };
}

/** Parse a request body that must be one JSON object. */
export function jsonObjectBody(body: string, what: string): Record<string, unknown> {
  if (typeof body !== "string" || body.trim() === "")
    throw new CommandError("bad-request", "The request body is empty; a JSON body is required");
  let parsed: unknown;
  try {
    parsed = parseJsonText(body);
  } catch (error) {
    rethrowAsCommandError(error);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new CommandError("bad-request", `The request body must be a JSON object (${what})`);
  return parsed as Record<string, unknown>;
}
