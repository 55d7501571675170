import { createHash, randomBytes } from "node:crypto";
import { link, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  checkFilePath,
  type FileInfo,
  type FileOwner,
  type FileStore,
  type HoldOutcome,
  type StoredFile,
} from "../ports/file-store.ts";
import { makeFolder } from "./make-folder.ts";
import { underPathLock } from "./path-lock.ts";
import { removeStaleTemporaries } from "./stale-temporaries.ts";

/**
 * FileStorageFilesystem: one file per stored file in one directory, named by the SHA-256 of its
 * path. The path is never joined into a file-system path, so no path can escape the directory
 * (zip-slip names and "../" are just keys), and any path length or character works.
 *
 * Each file holds a small header (path, content type) and the bytes, so one rename replaces both
 * at once: a reader sees the old file or the new one, never a mix.
 *
 *   [4 bytes: header length, big-endian][header JSON, UTF-8][bytes]
 *
 * The holders of a file a package brought (FileStore.hold) lie beside it, `<sha256>.holds`: JSON
 * {"d": sha256 of the bytes, "h": [holder, …]}, changed only under the path's lock (path-lock.ts).
 */
export function createFilesystemFileStore(options: { directory: string }): FileStore {
  const { directory } = options;
  makeFolder(directory);
  // What a killed writer left (stale-temporaries.ts); in the background, as a start need not wait.
  void removeStaleTemporaries(directory, TEMPORARY).catch(() => {});
  const nameOf = (path: string) => join(directory, createHash("sha256").update(path, "utf8").digest("hex"));
  const fileOf = (path: string) => `${nameOf(path)}${SUFFIX}`;
  const holdsOf = (path: string) => `${nameOf(path)}${HOLDS}`;
  const lockOf = (path: string) => `${nameOf(path)}${LOCK}`;
  /** Stored file name → its path, as the last listing read them (list). */
  let pathByName = new Map<string, string>();

  async function readHolds(path: string): Promise<Holds | undefined> {
    try {
      return JSON.parse(await readFile(holdsOf(path), "utf8")) as Holds;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async function writeHolds(path: string, holds: Holds): Promise<void> {
    const temporary = `${holdsOf(path)}.${randomBytes(6).toString("hex")}${TEMPORARY}`;
    await writeFile(temporary, JSON.stringify(holds));
    await rename(temporary, holdsOf(path));
  }

  /** Whether the file at `path` was created; false when something is stored there. */
  async function linked(path: string, file: StoredFile): Promise<boolean> {
    return await written(path, file, async (temporary, target) => {
      try {
        await link(temporary, target);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException)?.code === "EEXIST") return false;
        throw error;
      }
    });
  }

  /** The file written whole under a temporary name, then moved into place by `place`. */
  async function written<T>(path: string, file: StoredFile, place: (temporary: string, target: string) => Promise<T>) {
    checkFilePath(path);
    const header = Buffer.from(
      JSON.stringify({ path, contentType: file.contentType, ...(file.owner ? { owner: file.owner } : {}) }),
      "utf8",
    );
    const length = Buffer.alloc(4);
    length.writeUInt32BE(header.length);
    const target = fileOf(path);
    const temporary = `${target}.${randomBytes(6).toString("hex")}${TEMPORARY}`;
    try {
      await writeFile(temporary, Buffer.concat([length, header, file.bytes]));
      return await place(temporary, target);
    } finally {
      await rm(temporary, { force: true });
    }
  }

  return {
    async put(path, file) {
      // The holders first: in between, a hold finds the file without holders and leaves it alone.
      checkFilePath(path);
      await rm(holdsOf(path), { force: true });
      await written(path, file, (temporary, target) => rename(temporary, target));
    },

    async create(path, file) {
      // link() fails when the target exists, atomically, where rename() would replace it.
      return await linked(path, file);
    },

    async hold(path, holder, file) {
      checkFilePath(path);
      const digest = createHash("sha256").update(file.bytes).digest("hex");
      return await underPathLock(lockOf(path), async (): Promise<HoldOutcome> => {
        // Shared first: the bytes are written only for a path that may be free.
        const holds = await readHolds(path);
        if (holds !== undefined && holds.d === digest) {
          if (!holds.h.includes(holder)) await writeHolds(path, { d: digest, h: [...holds.h, holder] });
          return "shared";
        }
        if (holds === undefined && (await linked(path, file))) {
          await writeHolds(path, { d: digest, h: [holder] });
          return "created";
        }
        return "taken";
      });
    },

    async release(path, holder) {
      checkFilePath(path);
      return await underPathLock(lockOf(path), async () => {
        const holds = await readHolds(path);
        if (holds === undefined)
          return await stat(fileOf(path)).then(
            () => "unheld" as const,
            (error: unknown) => {
              if (isMissing(error)) return "absent" as const;
              throw error;
            },
          );
        const rest = holds.h.filter((other) => other !== holder);
        if (rest.length > 0) {
          await writeHolds(path, { d: holds.d, h: rest });
          return "kept";
        }
        await rm(holdsOf(path), { force: true });
        await rm(fileOf(path), { force: true });
        return "deleted";
      });
    },

    async get(path) {
      checkFilePath(path);
      let data: Buffer;
      try {
        data = await readFile(fileOf(path));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
      const { header, bodyStart } = parseHeader(data);
      return {
        contentType: header.contentType,
        bytes: new Uint8Array(data.buffer, data.byteOffset + bodyStart, data.length - bodyStart),
        ...(header.owner ? { owner: header.owner } : {}),
      } satisfies StoredFile;
    },

    async delete(path) {
      checkFilePath(path);
      await rm(holdsOf(path), { force: true });
      try {
        await rm(fileOf(path));
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    async list(prefix = "") {
      const found: FileInfo[] = [];
      const present = new Map<string, string>();
      for (const name of await readdir(directory)) {
        if (!name.endsWith(SUFFIX)) continue;
        // A file's name is its path's SHA-256, so the path read once stays true for that name: a
        // listing by prefix opens only the files it answers. It opened every stored file, and the
        // package sweep lists its intents every minute in every engine.
        const known = pathByName.get(name);
        if (known !== undefined && !known.startsWith(prefix)) {
          present.set(name, known);
          continue;
        }
        const info = await readInfo(join(directory, name));
        if (info === undefined) continue;
        present.set(name, info.path);
        if (info.path.startsWith(prefix)) found.push(info);
      }
      // Names gone from the folder are forgotten (another replica may have deleted them).
      pathByName = present;
      return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },

    async clear() {
      for (const name of await readdir(directory)) {
        if ([SUFFIX, TEMPORARY, HOLDS, LOCK].some((end) => name.endsWith(end)))
          await rm(join(directory, name), { force: true });
      }
    },

    async close() {},
  };
}

const SUFFIX = ".file";
const TEMPORARY = ".tmp";
const HOLDS = ".holds";
const LOCK = ".lock";

interface Holds {
  /** SHA-256 of the bytes, hex. */
  d: string;
  h: string[];
}

interface Header {
  path: string;
  contentType: string;
  owner?: FileOwner;
}

function parseHeader(data: Buffer): { header: Header; bodyStart: number } {
  if (data.length < 4) throw new Error("A stored file is truncated (no header)");
  const length = data.readUInt32BE(0);
  if (4 + length > data.length) throw new Error("A stored file is truncated (header)");
  return { header: JSON.parse(data.subarray(4, 4 + length).toString("utf8")) as Header, bodyStart: 4 + length };
}

/** Path, type and size from the header alone, without reading the bytes. */
async function readInfo(file: string): Promise<FileInfo | undefined> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if (isMissing(error)) return undefined; // deleted since readdir
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const lengthBytes = Buffer.alloc(4);
    await handle.read(lengthBytes, 0, 4, 0);
    const length = lengthBytes.readUInt32BE(0);
    const header = Buffer.alloc(length);
    await handle.read(header, 0, length, 4);
    const parsed = JSON.parse(header.toString("utf8")) as Header;
    return { path: parsed.path, contentType: parsed.contentType, size: size - 4 - length };
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "ENOENT";
}
