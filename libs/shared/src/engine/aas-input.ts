import { type AasClassName, AasError, parseIdShortPath, parseJsonText, readAas } from "../aas/index.ts";
import { CommandError, type ErrorCode } from "../contracts/index.ts";

/**
 * The engine is the one place that parses request bodies: aas errors become CommandErrors here, so
 * every endpoint reports malformed input the same way.
 */
export function toCommandError(error: unknown): unknown {
  if (!(error instanceof AasError)) return error;
  const code: ErrorCode =
    error.kind === "verification" || error.kind === "value"
      ? "validation"
      : error.kind === "too-large"
        ? "payload-too-large"
        : "bad-request";
  return new CommandError(code, error.message, { path: error.path, details: error.details });
}

export function rethrowAsCommandError(error: unknown): never {
  throw toCommandError(error);
}

/** Parse JSON text and read it as an AAS object of the given class (unknown keys refused, nulls dropped). */
export function readBody(body: string, target: AasClassName, validate: boolean): Record<string, unknown> {
  if (typeof body !== "string" || body.trim() === "")
    throw new CommandError("bad-request", "The request body is empty; a JSON body is required");
  try {
    return readAas(parseJsonText(body), target, { validate }).jsonable;
  } catch (error) {
    rethrowAsCommandError(error);
  }
}

/** Read an already parsed JSON value as an AAS object (used for merged or patched elements). */
export function readJsonable(jsonable: unknown, target: AasClassName, validate: boolean): Record<string, unknown> {
  try {
    return readAas(jsonable, target, { validate }).jsonable;
  } catch (error) {
    rethrowAsCommandError(error);
  }
}

export function checkIdShortPath(path: string): void {
  try {
    parseIdShortPath(path);
  } catch (error) {
    rethrowAsCommandError(error);
  }
}
