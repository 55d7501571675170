import { createHash } from "node:crypto";
import { entryNameOfPart, partKey, partNameOfModelPath } from "../../aas/index.ts";
import { CommandError } from "../../contracts/index.ts";

/**
 * Where the bytes of a File element or a thumbnail live. A model path (File.value,
 * defaultThumbnail.path) names a package part: "/aasx/files/My%20File.pdf", "aasx/x.pdf" or
 * "file:///aasx/x.pdf" are all package paths; "https://…" and "urn:…" point outside the server.
 *
 * The FileStore key is the part name, decoded and lower-cased: OPC compares part names without
 * case, so a File saying "/aasx/Manual.pdf" finds the part "/aasx/manual.pdf" of its package.
 */
export function fileKeyOf(modelPath: string): string | undefined {
  const partName = partNameOf(modelPath);
  return partName === undefined ? undefined : partKey(partName);
}

/** The decoded package part name of a model path, or undefined for an external URL. */
export function partNameOf(modelPath: string): string | undefined {
  const path = modelPath.trim().replace(/^file:\/\//i, "");
  if (path === "") return undefined;
  return partNameOfModelPath(path);
}

/** The last segment of a model path, decoded: the name a download is offered under. */
export function fileNameOf(modelPath: string): string {
  const partName = partNameOf(modelPath) ?? modelPath;
  const name = partName.slice(partName.lastIndexOf("/") + 1);
  return name === "" ? "file" : name;
}

/**
 * A client's file name as one safe path segment: the last segment of whatever path it came with,
 * control characters removed. Never empty.
 */
export function safeFileName(fileName: string | undefined): string {
  const last = (fileName ?? "").split(/[\\/]/).pop() ?? "";
  const cleaned = last.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (cleaned === "" || cleaned === "." || cleaned === "..") return "file";
  return cleaned.length > 200 ? cleaned.slice(cleaned.length - 200) : cleaned;
}

/**
 * The model path an upload gets: a folder of its own per owner (one File element, one shell's
 * thumbnail), so two elements uploading "manual.pdf" never overwrite each other's bytes, and a
 * replaced upload can be deleted without touching files other elements share (AASX parts).
 * The name is percent-encoded as File.value (a URI reference) requires.
 */
export function uploadPath(kind: "files" | "thumbnails", owner: string, fileName: string, subfolder?: string): string {
  const folder = subfolder === undefined ? ownerFolder(owner) : `${ownerFolder(owner)}/${subfolder}`;
  return `/aasx/${kind}/${folder}/${entryNameOfPart(`/${fileName}`)}`;
}

/** True when a model path lies in the upload folder of `owner`, i.e. only that owner uses it. */
export function isOwnUpload(kind: "files" | "thumbnails", owner: string, modelPath: string | undefined): boolean {
  if (modelPath === undefined) return false;
  const key = fileKeyOf(modelPath);
  return key !== undefined && key.startsWith(`/aasx/${kind}/${ownerFolder(owner)}/`);
}

/**
 * True when a model path lies in some owner's upload folder: the File naming it need not be that
 * owner (a list item moved up an index names what was uploaded for its old index; a client may
 * point a File at another element's upload). Who may delete the bytes is the stored owner's call
 * (upload-store.ts deleteUpload).
 */
export function isUploadPath(kind: "files" | "thumbnails", modelPath: string | undefined): boolean {
  if (modelPath === undefined) return false;
  const key = fileKeyOf(modelPath);
  return key !== undefined && UPLOAD_FOLDER[kind].test(key);
}

/** Upload folders are the first 16 hex digits of the owner's hash (ownerFolder). */
const UPLOAD_FOLDER = {
  files: /^\/aasx\/files\/[0-9a-f]{16}\//,
  thumbnails: /^\/aasx\/thumbnails\/[0-9a-f]{16}\//,
};

function ownerFolder(owner: string): string {
  return createHash("sha256").update(owner, "utf8").digest("hex").slice(0, 16);
}

/** Owner name of a File element's uploads. */
export function elementOwner(submodelId: string, idShortPath: string): string {
  return `${submodelId}\u0000${idShortPath}`;
}

/** Base64 from a command, strictly: anything else is the client's mistake. */
export function decodeBase64(text: unknown, what: string): Uint8Array {
  if (typeof text !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) {
    throw new CommandError("bad-request", `${what}: the content is not base64`);
  }
  return Buffer.from(text, "base64");
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64");
}
