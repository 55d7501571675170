import { createHash, randomBytes } from "node:crypto";
import { link, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { checkFilePath, type FileInfo, type FileOwner, type FileStore, type StoredFile } from "../ports/file-store.ts";
import { makeFolder } from "./make-folder.ts";

/**
 * FileStorageFilesystem: one file per stored file in one directory, named by the SHA-256 of its
 * path. The path is never joined into a file-system path, so no path can escape the directory
 * (zip-slip names and "../" are just keys), and any path length or character works.
 *
 * Each file holds a small header (path, content type) and the bytes, so one rename replaces both
 * at once: a reader sees the old file or the new one, never a mix.
 *
 *   [4 bytes: header length, big-endian][header JSON, UTF-8][bytes]
 */
export function createFilesystemFileStore(options: { directory: string }): FileStore {
  const { directory } = options;
  makeFolder(directory);
  const fileOf = (path: string) =>
    join(directory, `${createHash("sha256").update(path, "utf8").digest("hex")}${SUFFIX}`);

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
      await written(path, file, (temporary, target) => rename(temporary, target));
    },

    async create(path, file) {
      // link() fails when the target exists, atomically, where rename() would replace it.
      return await written(path, file, async (temporary, target) => {
        try {
          await link(temporary, target);
          return true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException)?.code === "EEXIST") return false;
          throw error;
        }
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
      for (const name of await readdir(directory)) {
        if (!name.endsWith(SUFFIX)) continue;
        const info = await readInfo(join(directory, name));
        if (info && info.path.startsWith(prefix)) found.push(info);
      }
      return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },

    async clear() {
      for (const name of await readdir(directory)) {
        if (name.endsWith(SUFFIX) || name.endsWith(TEMPORARY)) await rm(join(directory, name), { force: true });
      }
    },

    async close() {},
  };
}

const SUFFIX = ".file";
const TEMPORARY = ".tmp";

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
