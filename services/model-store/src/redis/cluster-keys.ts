import type { Redis } from "ioredis";
import { asCluster } from "./redis-client.ts";
import type { RedisLayout } from "./redis-layout.ts";

/**
 * Every key of a store on a Redis Cluster, node by node (SCAN sees one node's keys only): the
 * catalog's and every submodel's. Keys of different slots cannot go in one UNLINK, so they go one
 * per command, pipelined (the Cluster client routes each to its node).
 */
export async function* clusterStoreKeys(redis: Redis, layout: RedisLayout): AsyncGenerator<string[]> {
  const cluster = asCluster(redis);
  if (!cluster) throw new TypeError("clusterStoreKeys needs a Redis Cluster client");
  const patterns = [layout.pattern, ...(layout.contentPattern ? [layout.contentPattern] : [])];
  for (const node of cluster.nodes("master")) {
    for (const pattern of patterns) {
      let cursor = "0";
      do {
        const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
        cursor = next;
        if (found.length > 0) yield found;
      } while (cursor !== "0");
    }
  }
}

/** Deletes every key of the store but `keep` (what `clear()` keeps; see redis-repository.ts). */
export async function clearClusterStore(redis: Redis, layout: RedisLayout, keep: ReadonlySet<string>): Promise<void> {
  for await (const found of clusterStoreKeys(redis, layout)) {
    const doomed = found.filter((k) => !keep.has(k));
    if (doomed.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of doomed) pipeline.unlink(key);
    const replies = await pipeline.exec();
    for (const [error] of replies ?? []) if (error) throw error;
  }
}
