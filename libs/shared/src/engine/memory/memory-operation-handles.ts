import type { Repository } from "../ports/index.ts";

type HandleMethods = Pick<
  Repository,
  "putOperationHandle" | "getOperationHandle" | "deleteOperationHandles" | "renewOperationRunner" | "isOperationRunnerAlive"
>;

interface Expiring {
  expiresAt: number;
}

/**
 * Operation handles and runner leases in process memory (the Repository's handle API for the memory
 * repository). Expiry is checked when read and swept now and then on write, so a long-running
 * process does not keep every handle it ever made. `now` is injectable for tests.
 */
export function createMemoryOperationHandles(now: () => number = Date.now): HandleMethods & { clearOperationHandles(): void } {
  const handles = new Map<string, Expiring & { json: string; version: number }>();
  const runners = new Map<string, Expiring>();
  let lastSweep = 0;

  const live = <T extends Expiring>(map: Map<string, T>, key: string): T | undefined => {
    const entry = map.get(key);
    if (entry && entry.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = () => {
    const at = now();
    if (at - lastSweep < 1000) return;
    lastSweep = at;
    for (const map of [handles, runners] as Map<string, Expiring>[]) {
      for (const [key, entry] of map) if (entry.expiresAt <= at) map.delete(key);
    }
  };

  return {
    async putOperationHandle(handleId, json, { ttlMs, expectedVersion }) {
      sweep();
      const stored = live(handles, handleId);
      if ((stored?.version ?? null) !== expectedVersion) return undefined;
      const version = (stored?.version ?? 0) + 1;
      handles.set(handleId, { json, version, expiresAt: now() + ttlMs });
      return version;
    },
    async getOperationHandle(handleId) {
      const stored = live(handles, handleId);
      return stored ? { json: stored.json, version: stored.version } : undefined;
    },
    async deleteOperationHandles() {
      const count = [...handles.keys()].filter((key) => live(handles, key)).length;
      handles.clear();
      return count;
    },
    async renewOperationRunner(runnerId, ttlMs) {
      runners.set(runnerId, { expiresAt: now() + ttlMs });
    },
    async isOperationRunnerAlive(runnerId) {
      return live(runners, runnerId) !== undefined;
    },
    clearOperationHandles() {
      handles.clear();
      runners.clear();
    },
  };
}
