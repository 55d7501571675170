import { Redis, type RedisOptions } from "ioredis";

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
