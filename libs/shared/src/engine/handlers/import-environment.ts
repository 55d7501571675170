import { type Command, CommandError, type CommandResult } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { importDocuments } from "../import/import-documents.ts";
import type { Handled } from "./handled.ts";

/**
 * ImportEnvironment: start-up models (all-or-nothing, validated unless --no-validation) and
 * POST /import (partial: what fails is reported and left out; see import-documents.ts). Without an
 * explicit `validate`, a partial import is an API write (core.validationOnCreate) and an
 * all-or-nothing one a load (core.validationOnLoad). A partial import lists at most
 * MAX_LISTED_PROBLEMS problems, then one entry counting the rest (import-problems.ts).
 */
export async function importEnvironment(
  ctx: EngineContext,
  cmd: Command<"ImportEnvironment">,
): Promise<Handled<CommandResult<"ImportEnvironment">>> {
  const { documents, mode, onlyIfEmpty } = cmd.params;
  if (mode !== "partial" && mode !== "all-or-nothing")
    throw new CommandError("bad-request", `Unknown import mode '${String(mode)}'`);
  const validate = cmd.params.validate ?? (mode === "partial" ? ctx.validation.onCreate : ctx.validation.onLoad);
  const {
    written: _written,
    fileKeys: _fileKeys,
    taken: _taken,
    ...outcome
  } = await importDocuments(ctx, {
    documents,
    mode,
    validate,
    onlyIfEmpty,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
  });
  return { value: outcome };
}
