import type { FileUpload } from "@twinport/shared";
import { ApiError, badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { boundaryOf, MultipartError, type MultipartPart, parseMultipart } from "./multipart-parser.ts";

/** A multipart/form-data upload (attachments, thumbnails, AASX packages): the file and the other fields. */
export interface MultipartUpload {
  file: FileUpload;
  /** Every value of a text field, in order (repeated parts allowed, e.g. `aasIds`). */
  field(name: string): string[];
}

export function isMultipart(c: GatewayContext): boolean {
  return /^multipart\/form-data\b/i.test(c.req.header("Content-Type") ?? "");
}

/**
 * Reads the `file` part (binary, with or without a filename of its own) and the `fileName` field
 * (AAS API: PutFileByPath, PutThumbnail, PostAASXPackage). The body has already passed
 * maxRequestBodySize. A missing fileName falls back to the file part's own name; the part's
 * Content-Type is passed on when it says something.
 */
export async function readMultipartUpload(c: GatewayContext): Promise<MultipartUpload> {
  // A body of another type is one this operation does not take: 415, as a JSON endpoint answers.
  if (!isMultipart(c))
    throw ApiError.of(
      "unsupported-media-type",
      'This operation takes multipart/form-data with the parts "file" and "fileName"',
    );
  let parts: MultipartPart[];
  try {
    parts = parseMultipart(Buffer.from(await c.req.arrayBuffer()), boundaryOf(c.req.header("Content-Type") ?? ""));
  } catch (error) {
    if (error instanceof MultipartError)
      throw badRequest(`The multipart/form-data body cannot be read: ${error.message}`);
    throw error;
  }
  const files = parts.filter((part) => part.name === "file");
  const part = files[0];
  if (files.length !== 1 || part === undefined) throw badRequest('The multipart body needs exactly one part "file"');
  const text = (name: string) =>
    parts.filter((candidate) => candidate.name === name).map((candidate) => candidate.data.toString("utf8"));
  const fileName = text("fileName").find((name) => name.trim() !== "") ?? part.fileName;
  if (fileName === undefined || fileName.trim() === "")
    throw badRequest('The multipart body needs a "fileName" part (or a file name on the "file" part)');
  const contentType = part.contentType?.trim() || undefined;
  return {
    file: { fileName, contentBase64: part.data.toString("base64"), ...(contentType ? { contentType } : {}) },
    field: text,
  };
}
