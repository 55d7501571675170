import { checkFilePath, type FileInfo, type FileStore, type StoredFile } from "../ports/file-store.ts";

/** FileStorageInMemory: files live as long as the process. Copies in and out, never shares buffers. */
export function createMemoryFileStore(): FileStore {
  const files = new Map<string, StoredFile>();
  /** Who holds each file a package or an import brought (FileStore.hold); no await between look and change. */
  const holders = new Map<string, Set<string>>();
  const copy = (file: StoredFile): StoredFile => ({
    contentType: file.contentType,
    bytes: file.bytes.slice(),
    ...(file.owner ? { owner: { ...file.owner } } : {}),
  });
  return {
    async put(path, file) {
      checkFilePath(path);
      files.set(path, copy(file));
      holders.delete(path);
    },
    async create(path, file) {
      checkFilePath(path);
      if (files.has(path)) return false;
      files.set(path, copy(file));
      return true;
    },
    async hold(path, holder, file) {
      checkFilePath(path);
      const stored = files.get(path);
      if (stored === undefined) {
        files.set(path, copy(file));
        holders.set(path, new Set([holder]));
        return "created";
      }
      const held = holders.get(path);
      if (held === undefined || !Buffer.from(stored.bytes).equals(Buffer.from(file.bytes))) return "taken";
      held.add(holder);
      return "shared";
    },
    async release(path, holder) {
      checkFilePath(path);
      const held = holders.get(path);
      if (held === undefined) return files.has(path) ? "unheld" : "absent";
      held.delete(holder);
      if (held.size > 0) return "kept";
      holders.delete(path);
      files.delete(path);
      return "deleted";
    },
    async get(path) {
      checkFilePath(path);
      const file = files.get(path);
      return file && copy(file);
    },
    async delete(path) {
      checkFilePath(path);
      holders.delete(path);
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
      holders.clear();
    },
    async close() {},
  };
}
