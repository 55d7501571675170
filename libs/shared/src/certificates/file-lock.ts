import { randomUUID } from "node:crypto";
import { link, readFile, rename, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

export interface FileLockOptions {
  /** A lock not refreshed for this long belongs to a holder that died; it is taken over. */
  staleMs?: number;
  /** How often the holder refreshes the lock's modification time. */
  refreshMs?: number;
  /** Pause between attempts while another process holds the lock. */
  retryMs?: number;
}

/**
 * Runs `action` while holding the lock file `path`, across the processes (and containers) that
 * share the folder: replicas that start together on one state volume use it so that exactly one
 * of them creates a shared file. The lock is the file itself, created exclusively (O_EXCL, atomic
 * on local file systems and NFSv3+). Its holder touches it every `refreshMs`; one untouched for
 * `staleMs` is left from a crashed process and is taken over, so a crash never blocks the next
 * start. Process ids cannot tell that: in containers every replica is often pid 1.
 */
export async function withFileLock<T>(
  path: string,
  action: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 30_000;
  const refreshMs = options.refreshMs ?? Math.min(2_000, staleMs / 4);
  const retryMs = options.retryMs ?? 100;
  const token = `${hostname()} pid ${process.pid} ${randomUUID()}\n`;
  await acquire(path, token, staleMs, retryMs);
  const refresh = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, refreshMs);
  refresh.unref();
  try {
    return await action();
  } finally {
    clearInterval(refresh);
    await release(path, token);
  }
}

async function acquire(path: string, token: string, staleMs: number, retryMs: number): Promise<void> {
  for (;;) {
    try {
      await writeFile(path, token, { flag: "wx", mode: 0o644 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let modified: number;
    try {
      modified = (await stat(path)).mtimeMs;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    if (Date.now() - modified > staleMs) {
      await takeOver(path, staleMs);
      continue;
    }
    // Jitter: waiters that started together should not retry in lockstep.
    await sleep(retryMs * (0.5 + Math.random()));
  }
}

/**
 * Moves the stale lock aside under a name of its own before deleting it: of several waiters that
 * found it stale, one rename succeeds. A waiter that looked just before another one took over
 * moves a fresh lock instead; it sees the fresh time on what it moved and puts it back (link
 * never replaces a lock created meanwhile).
 */
async function takeOver(path: string, staleMs: number): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    if (Date.now() - (await stat(aside)).mtimeMs <= staleMs) await link(aside, path);
  } catch {
    // Someone holds the lock again, or the moved file is gone: either way, nothing to restore.
  }
  await unlink(aside).catch(() => {});
}

/** Deletes the lock only while it is still ours: a holder declared stale must not remove its successor's. */
async function release(path: string, token: string): Promise<void> {
  try {
    if ((await readFile(path, "utf8")) === token) await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
