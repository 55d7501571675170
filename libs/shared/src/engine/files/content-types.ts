import { Mime } from "mime";
import otherTypes from "mime/types/other.js";
import standardTypes from "mime/types/standard.js";
import { readJsonable } from "../aas-input.ts";

/**
 * Types by extension for files whose client said nothing useful (multipart parts are often
 * octet-stream). The table is mime-db's (through `mime`): IANA's registrations and the common
 * unregistered ones, including the CAD and industrial formats AASX packages carry (model/step,
 * model/iges, model/stl, model/jt, model/3mf, model/gltf-binary, image/vnd.dxf, image/vnd.dwg,
 * application/automationml-aml+xml, …).
 */
// An instance of our own: the default one is frozen, and we add to it.
const BY_EXTENSION = new Mime(standardTypes, otherTypes).define({
  // Not in mime-db: the AASX package itself, with the type the AASX File Server API gives its file part.
  "application/asset-administration-shell-package": ["aasx"],
});

export const OCTET_STREAM = "application/octet-stream";

export function contentTypeByName(fileName: string): string | undefined {
  // Only a name with an extension: getType("pdf") would answer for a file named "pdf".
  return fileName.includes(".") ? (BY_EXTENSION.getType(fileName) ?? undefined) : undefined;
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
