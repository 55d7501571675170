import {
  type ElementJson,
  hasMetadata,
  stringifyLossless,
  submodelToValueOnly,
  toMetadata,
  toValueOnly,
  withArticle,
  withoutBlobValues,
} from "../aas/index.ts";
import { CommandError, type OutputModifiers, type RawJson } from "../contracts/index.ts";

/**
 * Output modifiers applied in the engine, so only the projected form travels to the gateway.
 * ValueOnly comes back as RawJson: its numbers are written from their lexical form, digit-exact.
 * `extent` absent keeps Blob bytes in the normal form (internal readers want everything); the HTTP
 * gateway passes the API default "withoutBlobValue" explicitly. `$reference` and `$path` need
 * reads of their own and are built by the handlers.
 */
function unsupported(content: string, what: string): CommandError {
  return new CommandError("bad-request", `The modifier '${content}' is not supported for ${what}`);
}

export function projectSubmodel(submodel: Record<string, unknown>, modifiers: OutputModifiers | undefined): unknown {
  const content = modifiers?.content ?? "normal";
  if (content === "normal") return modifiers?.extent === "withoutBlobValue" ? withoutBlobValues(submodel) : submodel;
  if (content === "metadata") return toMetadata(submodel);
  if (content === "value") {
    return {
      rawJson: stringifyLossless(submodelToValueOnly(submodel, { extent: modifiers?.extent, level: modifiers?.level })),
    } satisfies RawJson;
  }
  throw unsupported(content, "a submodel here");
}

export function projectElement(element: ElementJson, modifiers: OutputModifiers | undefined): unknown {
  const content = modifiers?.content ?? "normal";
  if (content === "normal") return modifiers?.extent === "withoutBlobValue" ? withoutBlobValues(element) : element;
  if (content === "metadata") {
    if (!hasMetadata(element))
      throw new CommandError(
        "bad-request",
        `${withArticle(String(element.modelType), true)} has no $metadata representation`,
      );
    return toMetadata(element);
  }
  if (content === "value") {
    const value = toValueOnly(element, { extent: modifiers?.extent, level: modifiers?.level });
    if (value === undefined)
      throw new CommandError(
        "bad-request",
        `${withArticle(String(element.modelType), true)} has no ValueOnly representation`,
      );
    // v3.0.1 (and the IDTA test engine) expect the single element wrapped in its idShort.
    const key = typeof element.idShort === "string" ? element.idShort : undefined;
    return { rawJson: stringifyLossless(key === undefined ? value : { [key]: value }) } satisfies RawJson;
  }
  throw unsupported(content, "a submodel element here");
}
