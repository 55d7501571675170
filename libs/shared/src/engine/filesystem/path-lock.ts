import { open, rm, stat } from "node:fs/promises";

/**
 * A lock on one stored path, across every process sharing the directory (fileStorage.path may be a
 * folder every model-store replica mounts): a lock file created with O_EXCL, which exactly one
 * creator gets. FileStore.hold and FileStore.release run under it, so a release's "last holder?"
 * and its delete are never split by a hold sharing the file.
 *
 * A holder that died leaves its lock file: one older than STALE_LOCK_MS is taken for dead and
 * removed (a hold or release takes milliseconds; a stalled mount errs on waiting longer).
 */
const STALE_LOCK_MS = 10_000;
const RETRY_MS = 5;

export async function underPathLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      await (await open(lockFile, "wx")).close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException)?.code !== "EEXIST") throw error;
      const since = await stat(lockFile).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) await rm(lockFile, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockFile, { force: true });
  }
}
