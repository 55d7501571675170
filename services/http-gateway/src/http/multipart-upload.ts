import type { FileUpload } from "@twinport/shared";
import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";

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
 * Reads the `file` part (binary) and the `fileName` field (AAS API: PutFileByPath, PutThumbnail,
 * PostAASXPackage). The body has already passed maxRequestBodySize. A missing fileName falls back
 * to the file part's own name; the part's Content-Type is passed on when it says something.
 */
export async function readMultipartUpload(c: GatewayContext): Promise<MultipartUpload> {
  if (!isMultipart(c)) throw badRequest('This operation takes multipart/form-data with the parts "file" and "fileName"');
  let form: FormData;
  try {
    form = await c.req.raw.formData();
  } catch (error) {
    throw badRequest(`The multipart/form-data body cannot be read: ${(error as Error).message}`);
  }
  const parts = form.getAll("file");
  const part = parts[0];
  if (parts.length !== 1 || typeof part === "string" || part === undefined) throw badRequest('The multipart body needs exactly one binary part "file"');
  const names = form.getAll("fileName").filter((value): value is string => typeof value === "string" && value.trim() !== "");
  const fileName = names[0] ?? (part.name !== "" && part.name !== "blob" ? part.name : undefined);
  if (fileName === undefined) throw badRequest('The multipart body needs a "fileName" part (or a file name on the "file" part)');
  const bytes = Buffer.from(await part.arrayBuffer());
  const contentType = part.type.trim() === "" ? undefined : part.type;
  return {
    file: { fileName, contentBase64: bytes.toString("base64"), ...(contentType ? { contentType } : {}) },
    field: (name) => form.getAll(name).filter((value): value is string => typeof value === "string"),
  };
}
