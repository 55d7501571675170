import { randomBytes } from "node:crypto";
import { type AasxPart, entryNameOfPart, partKey } from "../../aas/index.ts";
import { CommandError } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { heldKeys } from "../files/file-holders.ts";
import { fileKeyOf } from "../files/file-paths.ts";
import type { StoredFile } from "../ports/index.ts";

/** A File's value and a thumbnail's path are a PathType: at most 2000 characters (AAS metamodel). */
const MAX_MODEL_PATH_CHARS = 2000;

/** A file an AASX document of an import carries (`document`: its index in the import). */
export interface ImportedPart {
  document: number;
  part: AasxPart;
}

/** Where an import's files went. */
export interface PlacedFiles {
  /** The keys its identifiables use: stored by it, or shared with identical bytes. */
  keys: string[];
  /** Per document: part key → the model path of where that document's file went instead. */
  moved: Map<number, Map<string, string>>;
  /** Lets go of what it holds (an import that wrote nothing): files no one else holds go. */
  undo(): Promise<void>;
  /**
   * Once the import's holder record is written: a file shared by the records alone (stored before
   * the FileStore kept holders) that its other holder deleted in between is stored again.
   */
  confirmShared(): Promise<void>;
}

/**
 * Stores the files of an import's AASX documents without ever replacing bytes someone else stored
 * (docs/adr/0051). Each part is held under `holder` (file-holders.ts: packageHolder or
 * newImportHolder), in one atomic step of the FileStore (FileStore.hold):
 * - a free path: the part is stored there;
 * - a path whose file has holders and identical bytes (another package's, an import's, or this
 *   import's own): the file is shared, and stays while any holder is left;
 * - anything else (other bytes, an upload, a file without holders): the part is stored under a
 *   folder of its own, `/aasx/packages/<random>/<its path>`, and the document's File values and
 *   thumbnail paths that name it are rewritten to that path (`rewritePaths`), so two vendors'
 *   packages with the same "/aasx/files/manual.pdf" both load and each keeps its own manual.
 *   Except a file stored before the FileStore kept holders, with identical bytes, that a package's
 *   or import's record names: it is shared as before (by the records, `confirmShared`).
 */
export async function placePackageFiles(
  ctx: EngineContext,
  parts: readonly ImportedPart[],
  holder: string,
): Promise<PlacedFiles> {
  const store = ctx.fileStore;
  let recorded: Set<string> | undefined;
  const keys = new Set<string>();
  /** Held in the FileStore by this import: released again by `undo`. */
  const holding = new Set<string>();
  /** Shared by the records alone (files stored before holders): stored again by `confirmShared`. */
  const sharedByRecords = new Map<string, StoredFile>();
  const moved = new Map<number, Map<string, string>>();
  let folder: string | undefined;
  const hold = async (key: string, file: StoredFile): Promise<boolean> => {
    if ((await store.hold(key, holder, file)) === "taken") return false;
    holding.add(key);
    keys.add(key);
    return true;
  };
  const placed: PlacedFiles = {
    keys: [],
    moved,
    undo: async () => {
      // Released, not deleted: a package that shared a file meanwhile keeps it.
      for (const key of holding) await store.release(key, holder).catch(() => undefined);
    },
    confirmShared: async () => {
      for (const [key, file] of sharedByRecords)
        if ((await store.get(key)) === undefined) await store.create(key, file);
    },
  };
  try {
    for (const { document, part } of parts) {
      const key = partKey(part.path);
      const file: StoredFile = { contentType: part.contentType, bytes: part.bytes };
      if (await hold(key, file)) continue;
      const existing = await store.get(key);
      recorded ??= await heldKeys(store);
      if (
        existing !== undefined &&
        existing.owner === undefined &&
        recorded.has(key) &&
        sameBytes(existing.bytes, part.bytes)
      ) {
        keys.add(key);
        sharedByRecords.set(key, file);
        continue;
      }
      // Taken by someone else's bytes: a folder of this import's own (a fresh one if even that is taken).
      for (;;) {
        folder ??= randomBytes(8).toString("hex");
        const partName = `/aasx/packages/${folder}${part.path}`;
        const modelPath = `/${entryNameOfPart(partName)}`;
        // The File (or thumbnail) naming it is given this path: within the metamodel's bound, or
        // the server stored a value it refuses itself (a PUT of what GET answered, its own export).
        if (modelPath.length > MAX_MODEL_PATH_CHARS)
          throw new CommandError(
            "bad-request",
            `The package's part "${part.path}" is stored under other bytes here, and the path it would get instead (${modelPath.length} characters) is longer than a File's value may be (${MAX_MODEL_PATH_CHARS}); shorten its name`,
          );
        if (await hold(partKey(partName), file)) {
          if (!moved.has(document)) moved.set(document, new Map());
          moved.get(document)!.set(key, modelPath);
          break;
        }
        folder = undefined;
      }
    }
  } catch (error) {
    await placed.undo();
    throw error;
  }
  placed.keys = [...keys];
  return placed;
}

/**
 * A document's identifiable with its File values and defaultThumbnail path pointing where its
 * files went (`moved`: part key → model path). Unchanged (the same object) when none moved.
 */
export function rewritePaths(json: Record<string, unknown>, moved: ReadonlyMap<string, string> | undefined) {
  if (moved === undefined || moved.size === 0) return json;
  const target = (path: unknown): string | undefined => {
    if (typeof path !== "string") return undefined;
    const key = fileKeyOf(path);
    return key === undefined ? undefined : moved.get(key);
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const object = value as Record<string, unknown>;
    if (object.modelType === "File") {
      const path = target(object.value);
      if (path !== undefined) object.value = path;
    }
    const thumbnail = (object.assetInformation as { defaultThumbnail?: { path?: unknown } } | undefined)
      ?.defaultThumbnail;
    const thumbnailPath = thumbnail === undefined ? undefined : target(thumbnail.path);
    if (thumbnailPath !== undefined) thumbnail!.path = thumbnailPath;
    for (const key of ["submodelElements", "value", "statements", "annotations"]) visit(object[key]);
  };
  visit(json);
  return json;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}
