import type { FileContent } from "@twinport/shared";
import type { GatewayContext } from "./gateway-env.ts";
import { conditionalAnswer } from "./preconditions.ts";

/**
 * A file as the response body: its bytes, its content type, and a Content-Disposition naming it
 * (AAS API: GetFileByPath declares the header; RFC 6266 `filename*` carries non-ASCII names).
 */
export function fileResponse(c: GatewayContext, file: FileContent, headers: Record<string, string> = {}): Response {
  const bytes = Buffer.from(file.contentBase64, "base64");
  const all: Record<string, string> = {
    "Content-Type": file.contentType,
    "Content-Length": String(bytes.length),
    // Uploaded bytes come with the uploader's type (text/html, image/svg+xml) and are served from
    // the console's origin: a browser must take the type as given, never sniff a script out of it.
    "X-Content-Type-Options": "nosniff",
    ...headers,
  };
  if (file.fileName !== undefined) all["Content-Disposition"] = contentDisposition(file.fileName);
  return c.body(bytes, 200, all);
}

/**
 * A File element's or a thumbnail's bytes. The AAS API declares these downloads as
 * `application/octet-stream` (GetFileByPath, GetThumbnail), so clients generated from it send
 * `Accept: application/octet-stream`: that admits the file whatever type it has
 * (acceptable-representation.ts), as does an Accept that admits the file's own type. `etag`: the
 * download's validator (a File's attachment carries its element's), with If-Match and If-None-Match
 * evaluated as on every GET that has one.
 */
export function fileDownloadResponse(c: GatewayContext, file: FileContent, etag?: string): Response {
  c.set("fileDownload", true);
  if (etag === undefined) return fileResponse(c, file);
  return conditionalAnswer(c, etag, file.contentType) ?? fileResponse(c, file, { ETag: etag });
}

export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
