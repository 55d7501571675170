/**
 * multipart/form-data (RFC 7578) read from a body already in memory (bounded by
 * maxRequestBodySize). Our own small reader rather than Request.formData(): that one turns a part
 * without a `filename` into a string, which corrupts binary uploads from clients that leave the
 * name out; here every part keeps its bytes.
 */
export interface MultipartPart {
  name: string;
  fileName?: string;
  contentType?: string;
  data: Buffer;
}

export class MultipartError extends Error {}

export function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw new MultipartError("the Content-Type names no boundary");
  return boundary;
}

export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let position = body.indexOf(delimiter);
  if (position < 0) throw new MultipartError("no part boundary found");
  for (;;) {
    position += delimiter.length;
    if (body[position] === 0x2d && body[position + 1] === 0x2d) return parts; // "--": the last boundary
    const headersStart = skipLineEnd(body, position);
    const headersEnd = body.indexOf("\r\n\r\n", headersStart);
    if (headersEnd < 0) throw new MultipartError("a part has no end of headers");
    const next = body.indexOf(Buffer.concat([Buffer.from("\r\n"), delimiter]), headersEnd + 4);
    if (next < 0) throw new MultipartError("the body ends inside a part (no closing boundary)");
    parts.push(partOf(body.subarray(headersStart, headersEnd).toString("utf8"), body.subarray(headersEnd + 4, next)));
    position = next + 2;
  }
}

function skipLineEnd(body: Buffer, position: number): number {
  while (body[position] === 0x20 || body[position] === 0x09) position++; // transport padding
  if (body[position] === 0x0d && body[position + 1] === 0x0a) return position + 2;
  throw new MultipartError("a boundary is not followed by a line end");
}

function partOf(headerText: string, data: Buffer): MultipartPart {
  let name: string | undefined;
  let fileName: string | undefined;
  let contentType: string | undefined;
  for (const line of headerText.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === "content-type") contentType = value;
    if (header !== "content-disposition") continue;
    name = parameter(value, "name");
    const extended = parameter(value, "filename*");
    fileName = extended !== undefined ? decodeExtended(extended) : parameter(value, "filename");
  }
  if (name === undefined) throw new MultipartError("a part has no Content-Disposition name");
  return {
    name,
    data,
    ...(fileName !== undefined ? { fileName } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
  };
}

function parameter(value: string, key: string): string | undefined {
  const escaped = key.replace(/[*]/g, "\\*");
  const match = new RegExp(`;\\s*${escaped}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i").exec(value);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2]!.trim();
}

/** RFC 5987: `UTF-8''percent%20encoded`. */
function decodeExtended(value: string): string {
  const quote = value.indexOf("''");
  const encoded = quote >= 0 ? value.slice(quote + 2) : value;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
