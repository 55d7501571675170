import {
  ConfigError,
  copyExistingFiles,
  createFilesystemFileStore,
  createMemoryFileStore,
  FILE_STORAGE_FILESYSTEM_CLASS,
  FILE_STORAGE_REDIS_CLASS,
  type FileStore,
  PERSISTENCE_REDIS_CLASS,
  type TwinportConfig,
} from "@twinport/shared";

/**
 * The embedded process's FileStore from `fileStorage`: memory (default), a directory, or the
 * Redis of the persistence (FileStorageRedis needs PersistenceRedis: it has no URL of its own).
 */
export async function openEmbeddedFileStore(config: TwinportConfig): Promise<FileStore> {
  const storage = config.fileStorage;
  switch (storage["@class"]) {
    case FILE_STORAGE_FILESYSTEM_CLASS: {
      const store = filesystemFileStore(storage.path);
      // FA³ST's existingDataPath: files there from the start, the directory only read.
      if (storage.existingDataPath !== undefined) await copyExistingFiles(store, storage.existingDataPath);
      return store;
    }
    case FILE_STORAGE_REDIS_CLASS: {
      if (config.persistence["@class"] !== PERSISTENCE_REDIS_CLASS) {
        throw new ConfigError(
          `fileStorage ${FILE_STORAGE_REDIS_CLASS} keeps files in the persistence's Redis: persistence must be ${PERSISTENCE_REDIS_CLASS}`,
        );
      }
      const { createRedisFileStore } = await import("@twinport/model-store");
      return await createRedisFileStore({ url: config.persistence.url, keyPrefix: config.persistence.keyPrefix });
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
