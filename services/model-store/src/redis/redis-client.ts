import { Cluster, Redis, type RedisOptions } from "ioredis";

/**
 * A Redis connection that fails fast (ioredis' defaults queue and retry 20 times): no offline queue, one retry, a command
 * timeout, so an outage answers "unavailable" at once instead of hanging requests; it keeps
 * reconnecting in the background forever. Unfulfilled commands are NOT resent after a reconnect:
 * a commit whose reply was lost may have been applied, and sending it again would apply it twice.
 */
export function createRedisClient(
  url: string,
  options: { commandTimeoutMs: number; connectionName?: string; autoPipelining?: boolean },
): Redis {
  const settings: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(50 * times, 1000),
    connectionName: options.connectionName,
    // Commands issued in one event-loop turn (concurrent requests) go out in one write.
    enableAutoPipelining: options.autoPipelining ?? false,
  };
  const redis = new Redis(url, settings);
  // Errors surface through the commands that fail; without a listener ioredis prints every
  // reconnect attempt to the console.
  redis.on("error", () => {});
  return redis;
}

/**
 * The same fail-fast settings on a Redis Cluster (docs/adr/0040): ioredis' Cluster client routes each
 * command to the node that holds its key's slot and follows MOVED/ASK. `nodes` are
 * `redis://[user:password@]host:port`; credentials are taken from the first one that has them.
 *
 * Typed as Redis: every call the store makes goes through the command methods both clients share
 * (the cluster-only ones, `nodes()`, are reached through `asCluster`).
 */
export function createClusterClient(
  nodes: readonly string[],
  options: { commandTimeoutMs: number; connectionName?: string; autoPipelining?: boolean },
): Redis {
  const startup = nodes.map((node) => {
    const url = new URL(node);
    return { host: url.hostname, port: Number(url.port || 6379) };
  });
  const withCredentials = nodes.map((node) => new URL(node)).find((url) => url.password || url.username);
  const cluster = new Cluster(startup, {
    enableOfflineQueue: false,
    enableAutoPipelining: options.autoPipelining ?? false,
    clusterRetryStrategy: (times) => Math.min(50 * times, 1000),
    // A node that failed over answers CLUSTERDOWN/TRYAGAIN for a moment: retried a little, then 503.
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    redisOptions: {
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs,
      autoResendUnfulfilledCommands: false,
      connectionName: options.connectionName,
      ...(withCredentials
        ? {
            username: decodeURIComponent(withCredentials.username) || undefined,
            password: decodeURIComponent(withCredentials.password) || undefined,
          }
        : {}),
      ...(nodes[0]?.startsWith("rediss:") ? { tls: {} } : {}),
    },
  });
  cluster.on("error", () => {});
  return cluster as unknown as Redis;
}

/** The cluster client behind a Redis made by createClusterClient; undefined for a single Redis. */
export function asCluster(redis: Redis): Cluster | undefined {
  return (redis as unknown) instanceof Cluster ? (redis as unknown as Cluster) : undefined;
}

/**
 * The connections a SCAN has to walk: SCAN sees the keys of one node, so on a cluster every master
 * (a store's keys of one hash tag are on one of them); a single Redis is its own.
 */
export function scanTargets(redis: Redis): Redis[] {
  return asCluster(redis)?.nodes("master") ?? [redis];
}

/**
 * Wait until the connection is ready, or until the first attempt failed / `timeoutMs` passed: a
 * store that starts while Redis is down still starts, answers "unavailable" and reconnects.
 */
export async function firstConnection(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === "ready") return true;
  return await new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("error", onError);
      resolve(ready);
    };
    const onReady = () => done(true);
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on("ready", onReady);
    redis.on("error", onError);
  });
}

/** Close politely (QUIT) when connected; otherwise just drop the socket and stop reconnecting. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "end") return;
  if (redis.status === "ready") {
    try {
      await redis.quit();
      return;
    } catch {
      // fall through: the connection went away meanwhile
    }
  }
  redis.disconnect();
}
