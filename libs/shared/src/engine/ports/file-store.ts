/**
 * The FileStore port: the bytes behind File elements, thumbnails and AASX packages, addressed by
 * a path (an opaque key: the engine uses normalized package part names like "/aasx/files/a.pdf"
 * and a few internal keys). Implementations: memory and filesystem (engine/), Redis
 * (services/model-store). All run the contract suite in libs/shared/src/test-support.
 *
 * Paths are keys, never file-system paths: an implementation maps them (hashes, encodes) so no
 * path, however hostile ("../../etc/passwd", "C:\\", NUL), can reach outside its storage.
 * Whole files move as Uint8Array: HTTP bodies are bounded by maxRequestBodySize and AASX parts by
 * the AASX limits, and the Redis implementation splits values into chunks itself.
 */

export interface StoredFile {
  contentType: string;
  bytes: Uint8Array;
  /**
   * Who uploaded it, when a client did (PUT …/attachment, PUT …/thumbnail): with access rules, a
   * File or thumbnail elsewhere that names the same path serves it only to whoever may read this
   * owner. Files that came with a package or a model have none.
   */
  owner?: FileOwner;
}

/**
 * The element (File) or shell (thumbnail) a file was uploaded for. `orderKey` is the File's
 * (StoredElement.orderKey) when it uploaded: unlike its idShortPath it stays when a list item before
 * it goes and its index shifts (docs/adr/0020), so the File keeps being the owner of its bytes.
 * Uploads stored before it existed have none.
 */
export type FileOwner = { submodelId: string; idShortPath: string; orderKey?: string } | { shellId: string };

export interface FileInfo {
  path: string;
  contentType: string;
  size: number;
}

export type HoldOutcome = "created" | "shared" | "taken";
export type ReleaseOutcome = "deleted" | "kept" | "unheld" | "absent";

export interface FileStore {
  /** Create or replace (dropping the holders of what it replaces). A reader sees the old file or the new one, never a mix. */
  put(path: string, file: StoredFile): Promise<void>;
  /**
   * Create only: stores the file when nothing is stored at `path` and answers true; answers false
   * and changes nothing when something is, atomically (of two racing creates exactly one wins).
   * What a writer uses that must never replace bytes someone else stored (docs/adr/0051).
   */
  create(path: string, file: StoredFile): Promise<boolean>;
  /**
   * A package's or an import's hold on a file it brings (docs/adr/0051, amendment "holders beside the
   * bytes"), atomically: when nothing is stored at `path`, stores `file` with `holder` as its only
   * holder ("created"); when the file there has holders and the same bytes, adds `holder` to them
   * ("shared"; also when it held it already); otherwise changes nothing ("taken": other bytes, an
   * upload, a file stored without holders). Of a hold and a release racing on one path, one comes
   * first as a whole: a release never deletes a file a hold has just shared.
   */
  hold(path: string, holder: string, file: StoredFile): Promise<HoldOutcome>;
  /**
   * Lets go of `holder`'s hold on the file at `path`, atomically: the file is deleted with the last
   * hold ("deleted"), and stays while another holder is left ("kept"). Nothing changes when the
   * file there was stored without holders ("unheld") or nothing is stored there ("absent").
   */
  release(path: string, holder: string): Promise<ReleaseOutcome>;
  get(path: string): Promise<StoredFile | undefined>;
  /** True when a file was there. Its holders go with it (as with `put` over it). */
  delete(path: string): Promise<boolean>;
  /** Files whose path starts with `prefix` (all without one), ordered by path. */
  list(prefix?: string): Promise<FileInfo[]>;
  /** Delete every file. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

/** Longest accepted path: far above any part name, low enough to keep keys cheap. */
export const MAX_FILE_PATH_LENGTH = 4096;

/** Every implementation rejects the same paths the same way. */
export function checkFilePath(path: string): void {
  if (typeof path !== "string" || path.length === 0) throw new TypeError("A file path must be a non-empty string");
  if (path.length > MAX_FILE_PATH_LENGTH)
    throw new TypeError(`A file path must be at most ${MAX_FILE_PATH_LENGTH} characters`);
}
