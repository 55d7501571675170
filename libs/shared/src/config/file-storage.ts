import { z } from "zod";
import type { ClassedSection } from "./class-names.ts";

export const FILE_STORAGE_IN_MEMORY_CLASS = "filestorage.memory.FileStorageInMemory";
export const FILE_STORAGE_FILESYSTEM_CLASS = "filestorage.filesystem.FileStorageFilesystem";
export const FILE_STORAGE_REDIS_CLASS = "filestorage.redis.FileStorageRedis";

export const fileStorageInMemorySchema = z.strictObject({
  "@class": z.literal(FILE_STORAGE_IN_MEMORY_CLASS),
});

export const fileStorageFilesystemSchema = z.strictObject({
  "@class": z.literal(FILE_STORAGE_FILESYSTEM_CLASS),
  /** Directory of the stored files; absent = `<core.stateDir>/files` (filled in by the loader). */
  path: z.string().min(1).optional(),
  /**
   * FA³ST: a directory of files available from the start, never modified. Its files are copied
   * into the store at start where the store has no file of that path yet
   * (`<dir>/aasx/files/a.pdf` is the File value `/aasx/files/a.pdf`).
   */
  existingDataPath: z.string().min(1).optional(),
});

/** Files in Redis, owned by the model-store (distributed mode). Uses the persistence's Redis. */
export const fileStorageRedisSchema = z.strictObject({
  "@class": z.literal(FILE_STORAGE_REDIS_CLASS),
});

export type FileStorageInMemoryConfig = z.output<typeof fileStorageInMemorySchema>;
export type FileStorageFilesystemConfig = Omit<z.output<typeof fileStorageFilesystemSchema>, "path"> & { path: string };
export type FileStorageRedisConfig = z.output<typeof fileStorageRedisSchema>;
export type FileStorageConfig = FileStorageInMemoryConfig | FileStorageFilesystemConfig | FileStorageRedisConfig;

export const fileStorageSection: ClassedSection = {
  what: "fileStorage",
  known: [FILE_STORAGE_IN_MEMORY_CLASS, FILE_STORAGE_FILESYSTEM_CLASS, FILE_STORAGE_REDIS_CLASS],
  schemaFor(suffix) {
    switch (suffix) {
      case FILE_STORAGE_IN_MEMORY_CLASS:
        return fileStorageInMemorySchema;
      case FILE_STORAGE_FILESYSTEM_CLASS:
        return fileStorageFilesystemSchema;
      case FILE_STORAGE_REDIS_CLASS:
        return fileStorageRedisSchema;
      default:
        return undefined;
    }
  },
};
