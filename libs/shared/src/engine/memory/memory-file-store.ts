import { checkFilePath, type FileInfo, type FileStore, type StoredFile } from "../ports/file-store.ts";

/** FileStorageInMemory: files live as long as the process. Copies in and out, never shares buffers. */
export function createMemoryFileStore(): FileStore {
  const files = new Map<string, StoredFile>();
  return {
    async put(path, file) {
      checkFilePath(path);
      files.set(path, {
        contentType: file.contentType,
        bytes: file.bytes.slice(),
        ...(file.owner ? { owner: { ...file.owner } } : {}),
      });
    },
    async get(path) {
      checkFilePath(path);
      const file = files.get(path);
      return (
        file && {
          contentType: file.contentType,
          bytes: file.bytes.slice(),
          ...(file.owner ? { owner: { ...file.owner } } : {}),
        }
      );
    },
    async delete(path) {
      checkFilePath(path);
      return files.delete(path);
    },
    async list(prefix = "") {
      const found: FileInfo[] = [];
      for (const [path, file] of files)
        if (path.startsWith(prefix)) found.push({ path, contentType: file.contentType, size: file.bytes.length });
      return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async clear() {
      files.clear();
    },
    async close() {},
  };
}
