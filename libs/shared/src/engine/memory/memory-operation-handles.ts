import type { Repository } from "../ports/index.ts";
import { ExpiringMap } from "./expiring-map.ts";

type HandleMethods = Pick<
  Repository,
  | "putOperationHandle"
  | "getOperationHandle"
  | "deleteOperationHandles"
  | "renewOperationRunner"
  | "isOperationRunnerAlive"
>;

/**
 * Operation handles and runner leases in process memory (the Repository's handle API for the memory
 * repository), expiring (expiring-map.ts). `now` is injectable for tests.
 */
export function createMemoryOperationHandles(
  now: () => number = Date.now,
): HandleMethods & { clearOperationHandles(): void } {
  const handles = new ExpiringMap<{ json: string; version: number }>(now);
  const runners = new ExpiringMap<true>(now);

  return {
    async putOperationHandle(handleId, json, { ttlMs, expectedVersion }) {
      const stored = handles.get(handleId);
      if ((stored?.version ?? null) !== expectedVersion) return undefined;
      const version = (stored?.version ?? 0) + 1;
      handles.set(handleId, { json, version }, ttlMs);
      return version;
    },
    async getOperationHandle(handleId) {
      const stored = handles.get(handleId);
      return stored ? { json: stored.json, version: stored.version } : undefined;
    },
    async deleteOperationHandles() {
      const count = handles.countLive();
      handles.clear();
      return count;
    },
    async renewOperationRunner(runnerId, ttlMs) {
      runners.set(runnerId, true, ttlMs);
    },
    async isOperationRunnerAlive(runnerId) {
      return runners.get(runnerId) !== undefined;
    },
    clearOperationHandles() {
      handles.clear();
      runners.clear();
    },
  };
}
