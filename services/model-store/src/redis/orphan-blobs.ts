import type { Redis } from "ioredis";
import { scanTargets } from "./redis-client.ts";
import { redisCall } from "./redis-errors.ts";

/**
 * A blob the index no longer names, left by a process that died between the script that unlinked
 * it (a put that replaced it, a delete, a release) and its own UNLINK of the bytes: nothing would
 * ever remove it, and it is as large as the file was. A FileStore opening Redis removes them.
 *
 * Only blobs without an expiry are candidates: a blob being written carries one until the script
 * that links it removes it, in the same step as it enters the index. So a blob without an expiry
 * was linked when the scan saw it; the index is read after the scan, and a blob it does not name
 * then has been unlinked since (blob ids are never reused), so it is garbage whoever unlinked it.
 * Returns how many it removed.
 */
export async function removeOrphanBlobs(
  redis: Redis,
  blobPattern: string,
  linkedBlobKeys: () => Promise<Set<string>>,
): Promise<number> {
  const candidates: string[] = [];
  // SCAN sees one node: on a cluster, the blobs (all in the one hash tag) are on one of the masters.
  for (const node of scanTargets(redis)) {
    let cursor = "0";
    do {
      const [next, keys] = await redisCall(node.scan(cursor, "MATCH", blobPattern, "COUNT", 1000));
      cursor = next;
      if (keys.length === 0) continue;
      const ttls = await Promise.all(keys.map((key) => redisCall(redis.pttl(key))));
      keys.forEach((key, i) => {
        if (ttls[i] === -1) candidates.push(key);
      });
    } while (cursor !== "0");
  }
  if (candidates.length === 0) return 0;
  const linked = await linkedBlobKeys();
  const orphans = candidates.filter((key) => !linked.has(key));
  for (const key of orphans) await redisCall(redis.unlink(key));
  return orphans.length;
}
