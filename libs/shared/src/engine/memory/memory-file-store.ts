import { checkFilePath, type FileInfo, type FileStore, type StoredFile } from "../ports/file-store.ts";

/** FileStorageInMemory: files live as long as the process. Copies in and out, never shares buffers. */
export function createMemoryFileStore(): FileStore {
  const files = new Map<string, StoredFile>();
  const copy = (file: StoredFile): StoredFile => ({
    contentType: file.contentType,
    bytes: file.bytes.slice(),
    ...(file.owner ? { owner: { ...file.owner } } : {}),
  });
  return {
    async put(path, file) {
      checkFilePath(path);
      files.set(path, copy(file));
    },
    async create(path, file) {
      checkFilePath(path);
      if (files.has(path)) return false;
      files.set(path, copy(file));
      return true;
    },
    async get(path) {
      checkFilePath(path);
      const file = files.get(path);
      return file && copy(file);
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
