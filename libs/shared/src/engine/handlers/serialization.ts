import {
  type Command,
  CommandError,
  type CommandResult,
  type FileStream,
  type ModelFormat,
} from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { encodeBase64 } from "../files/file-paths.ts";
import { environmentItems } from "../serialization/environment-items.ts";
import { environmentText, utf8Chunks } from "../serialization/environment-text.ts";
import { streamPackage } from "../serialization/package-stream.ts";
import { FILE_NAMES, MEDIA_TYPES } from "../serialization/write-environment.ts";
import type { Handled } from "./handled.ts";

const FORMATS: readonly ModelFormat[] = ["json", "xml", "aasx"];
/** Text is handed on in pieces of about this size. */
const CHUNK_BYTES = 256 * 1024;

/** Serialization API: GET /serialization (AAS API digest §j), built in the store where the files are. */
export async function generateSerialization(
  ctx: EngineContext,
  cmd: Command<"GenerateSerializationByIds">,
): Promise<Handled<CommandResult<"GenerateSerializationByIds">>> {
  const { chunks, ...content } = await streamSerialization(ctx, cmd);
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return { value: { ...content, contentBase64: encodeBase64(Buffer.concat(parts)) } };
}

/**
 * The same, as it is written: JSON and XML text follows the store's reads (environment-text.ts),
 * so neither the model nor its text is ever whole in memory. Failures found before the first
 * byte (unknown format, unknown or forbidden id) are thrown here, as error replies. AASX is
 * streamed too, after a first pass that finds the files it carries (package-stream.ts).
 */
export async function streamSerialization(
  ctx: EngineContext,
  cmd: Command<"GenerateSerializationByIds">,
): Promise<FileStream> {
  const { format, aasIds, submodelIds, includeConceptDescriptions } = cmd.params;
  if (!FORMATS.includes(format))
    throw new CommandError(
      "bad-request",
      `Unknown serialization format '${String(format)}'; known: ${FORMATS.join(", ")}`,
    );
  const selection = { aasIds, submodelIds, includeConceptDescriptions: includeConceptDescriptions ?? true };
  const content = { fileName: FILE_NAMES[format], contentType: MEDIA_TYPES[format] };
  if (format === "aasx") return streamPackage(ctx, selection, content);
  const items = await environmentItems(ctx, selection);
  return { ...content, chunks: utf8Chunks(environmentText(items, format), CHUNK_BYTES) };
}
