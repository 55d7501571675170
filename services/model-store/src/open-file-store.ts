import {
  ConfigError,
  copyExistingFiles,
  createFilesystemFileStore,
  createMemoryFileStore,
  FILE_STORAGE_FILESYSTEM_CLASS,
  FILE_STORAGE_REDIS_CLASS,
  type FileStore,
  type PersistenceRedisConfig,
  type TwinportConfig,
} from "@twinport/shared";
import { createRedisFileStore } from "./redis/file-store-redis.ts";

/**
 * The model-store's FileStore from `fileStorage`: Redis by default (the files live with the model
 * and every replica sees them), or a directory every replica shares. Memory is accepted for a
 * single replica (each replica would otherwise hold different files).
 */
export async function openModelStoreFileStore(
  config: TwinportConfig,
  persistence: PersistenceRedisConfig,
): Promise<FileStore> {
  const storage = config.fileStorage;
  switch (storage["@class"]) {
    case FILE_STORAGE_REDIS_CLASS:
      return await createRedisFileStore({
        url: persistence.url,
        keyPrefix: persistence.keyPrefix,
        ...(persistence.cluster ? { cluster: persistence.cluster } : {}),
      });
    case FILE_STORAGE_FILESYSTEM_CLASS: {
      const store = filesystemFileStore(storage.path);
      if (storage.existingDataPath !== undefined) await copyExistingFiles(store, storage.existingDataPath);
      return store;
    }
    default:
      return createMemoryFileStore();
  }
}

/** The folder named by fileStorage.path, or a ConfigError naming the setting (a start that cannot keep files). */
function filesystemFileStore(path: string): FileStore {
  try {
    return createFilesystemFileStore({ directory: path });
  } catch (error) {
    throw new ConfigError(`fileStorage.path '${path}' cannot be used: ${(error as Error).message}`);
  }
}
