import { CommandError, type OutputModifiers } from "../contracts/index.ts";

/**
 * The forms in which a shell is read: normal AAS JSON, or `/$reference` (a ModelReference to it).
 * v3.0 defines no `$metadata`, `$value` or `$path` for shells (AAS API §c, §i).
 */
export function shellReference(aasId: string): Record<string, unknown> {
  return { type: "ModelReference", keys: [{ type: "AssetAdministrationShell", value: aasId }] };
}

/** How to project the shells of one read; an unsupported content is refused before anything is read. */
export function shellProjector(modifiers: OutputModifiers | undefined): (shell: Record<string, unknown>) => unknown {
  const content = modifiers?.content ?? "normal";
  if (content === "normal") return (shell) => shell;
  if (content === "reference") return (shell) => shellReference(shell.id as string);
  throw new CommandError("bad-request", `The modifier '${content}' is not supported for an Asset Administration Shell`);
}
