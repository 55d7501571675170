import { readJsonable } from "../aas-input.ts";

/** Types by extension for files whose client said nothing useful (multipart parts are often octet-stream). */
const BY_EXTENSION: Record<string, string> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  webp: "image/webp",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  ico: "image/x-icon",
  txt: "text/plain",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  xml: "application/xml",
  json: "application/json",
  zip: "application/zip",
  aasx: "application/asset-administration-shell-package",
  step: "application/step",
  stp: "application/step",
  mp4: "video/mp4",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

export const OCTET_STREAM = "application/octet-stream";

export function contentTypeByName(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? undefined : BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()];
}

/**
 * The content type to record for an upload: what the client declared, unless that is the generic
 * octet-stream or not a valid AAS ContentType; then what the file name says; then octet-stream.
 */
export function uploadContentType(declared: string | undefined, fileName: string): string {
  const given = declared?.trim();
  if (given && given.toLowerCase() !== OCTET_STREAM && isValidContentType(given)) return given;
  return contentTypeByName(fileName) ?? OCTET_STREAM;
}

function isValidContentType(text: string): boolean {
  try {
    readJsonable({ modelType: "File", idShort: "probe", contentType: text }, "SubmodelElement", true);
    return true;
  } catch {
    return false;
  }
}
