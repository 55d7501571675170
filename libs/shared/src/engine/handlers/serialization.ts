import { type Command, CommandError, type CommandResult, type ModelFormat } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { selectEnvironment } from "../serialization/select-environment.ts";
import { writeEnvironment } from "../serialization/write-environment.ts";
import type { Handled } from "./handled.ts";

const FORMATS: readonly ModelFormat[] = ["json", "xml", "aasx"];

/** Serialization API: GET /serialization (AAS API digest §j), built in the store where the files are. */
export async function generateSerialization(
  ctx: EngineContext,
  cmd: Command<"GenerateSerializationByIds">,
): Promise<Handled<CommandResult<"GenerateSerializationByIds">>> {
  const { format, aasIds, submodelIds, includeConceptDescriptions } = cmd.params;
  if (!FORMATS.includes(format))
    throw new CommandError(
      "bad-request",
      `Unknown serialization format '${String(format)}'; known: ${FORMATS.join(", ")}`,
    );
  const selected = await selectEnvironment(ctx, {
    aasIds,
    submodelIds,
    includeConceptDescriptions: includeConceptDescriptions ?? true,
  });
  return { value: await writeEnvironment(ctx, selected, format) };
}
