import type { Redis } from "ioredis";
import { luaScript } from "../redis/lua-script.ts";
import { redisCall } from "../redis/redis-errors.ts";
import type { Log } from "./asset-connection-types.ts";

/**
 * /reset removes the asset connections of the configuration file (spec §4.2, as FA³ST does), in
 * every process that runs them, before the model is deleted; a restart starts them again from the
 * file, as in FA³ST. Connections derived from AIMC submodels need nothing here: they stop when
 * reset deletes their AIMC.
 *
 * Alone with its store (embedded on memory), the reset hook just drops them. On Redis the
 * ResetStore command runs in ONE process (model-store replica or embedded process), but every
 * process that runs the file's connections must drop them:
 * - A counter in the store's key space (`asset-connections:reset`) counts the resets. Each process
 *   that runs configured connections takes its value as its baseline when it starts (a process that
 *   starts after a reset runs its connections, like a restart), checks it every `checkIntervalMs`
 *   and drops its connections once it moved.
 * - While it runs them, each process keeps an entry `<baseline>:<expires at>` in the hash
 *   `asset-connections:reset-replicas` (Redis time, refreshed on each check), and removes it when
 *   it dropped them.
 * - The hook bumps the counter, drops this process's connections and then waits until no live
 *   entry has an older baseline: when /reset goes on to delete the model, and when it answers, no
 *   process invokes a dropped operation provider or writes a dropped provider's value any more. A
 *   process that stopped checking (dead, or paused longer than `replicaTtlMs`) is not waited for
 *   beyond its entry's expiry; should it wake up, its first check drops its connections.
 */
export interface ConfiguredConnectionsResetOptions {
  /** The running connections (startAssetConnections). */
  connections: { dropConfigured(): Promise<string[]> };
  /** The engine's reset hooks (createEngine's `resetHooks`): the hook is put first. */
  resetHooks: (() => Promise<void>)[];
  /** The store's Redis; absent: this process is alone with its store. */
  redis?: {
    redis: Redis;
    /** The store's key for a name (keeps the store's prefix and hash tag). */
    key: (name: string) => string;
    /** Unique per process. */
    owner: string;
  };
  /** How often a process looks at the counter (default 250 ms): the longest a /reset waits for a live process. */
  checkIntervalMs?: number;
  /** How long an entry lives without a check (default 5000 ms, like the connection leases). */
  replicaTtlMs?: number;
  log: Log;
}

const RESET_KEY = "asset-connections:reset";
const REPLICAS_KEY = "asset-connections:reset-replicas";

/**
 * A process's check: the counter's value; while it still equals the baseline (ARGV[2]; empty when
 * joining: the current value becomes it), the process's entry is refreshed once half its time to
 * live (ARGV[3]) has passed. Once it moved, the
 * entry stays until the process has stopped its connections (and removes it): that is what a
 * /reset waits for.
 */
const CHECK = luaScript(`
local counter = redis.call('GET', KEYS[1]) or '0'
local baseline = ARGV[2]
if baseline == '' then baseline = counter end
if counter == baseline then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local ttl = tonumber(ARGV[3])
  local entry = redis.call('HGET', KEYS[2], ARGV[1])
  local expires = entry and tonumber(string.match(entry, ':(%d+)$'))
  -- Written only when it has less than half its life left: a check that writes goes to the AOF
  -- (and its fsync), four times a second per process otherwise.
  if not expires or expires - now < ttl / 2 then
    redis.call('HSET', KEYS[2], ARGV[1], baseline .. ':' .. string.format('%.0f', now + ttl))
  end
end
return counter
`);

/** The hook's bump: the new counter value; the resetting process needs no entry any more. */
const BUMP = luaScript(`
local counter = redis.call('INCR', KEYS[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return tostring(counter)
`);

/** The live processes still running connections from before reset ARGV[1]; expired entries go. */
const PENDING = luaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local entries = redis.call('HGETALL', KEYS[1])
local pending = {}
for i = 1, #entries, 2 do
  local baseline, expires = string.match(entries[i + 1], '^(%d+):(%d+)$')
  if not expires or tonumber(expires) <= now then
    redis.call('HDEL', KEYS[1], entries[i])
  elseif tonumber(baseline) < tonumber(ARGV[1]) then
    pending[#pending + 1] = entries[i]
  end
end
return pending
`);

/**
 * Registers the reset hook that drops this process's configured connections and, on Redis, starts
 * the checks that drop them when another process ran the reset. Returns what stops the checks.
 */
export async function dropConfiguredConnectionsOnReset(
  options: ConfiguredConnectionsResetOptions,
): Promise<() => Promise<void>> {
  const { connections, redis, log } = options;
  let dropped: Promise<void> | undefined;
  // Once: the file's connections are gone from this process for good.
  const drop = (why: string) =>
    (dropped ??= connections.dropConfigured().then(async (names) => {
      if (names.length > 0)
        log(
          `twinport asset-connections: ${why}: stopped ${names.join(", ")} (the configuration file's connections start again when this process restarts)`,
        );
      // Only now: a /reset waits for this entry to go.
      if (redis) await redisCall(redis.redis.hdel(redis.key(REPLICAS_KEY), redis.owner)).catch(() => undefined);
    }));
  // First of the hooks: no invocation can start on a dropped provider after the engine cleared
  // the pending operations.
  if (!redis) {
    options.resetHooks.unshift(() => drop("/reset"));
    return async () => {};
  }
  const checkIntervalMs = options.checkIntervalMs ?? 250;
  const ttlMs = options.replicaTtlMs ?? 5000;
  const keys = [redis.key(RESET_KEY), redis.key(REPLICAS_KEY)];
  const check = async (baseline: string) =>
    String(await redisCall(CHECK.run(redis.redis, keys, [redis.owner, baseline, ttlMs])));
  const baseline = await check("");
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> = Promise.resolve();
  let failing = false;
  const schedule = () => {
    if (stopped || dropped) return;
    timer = setTimeout(() => {
      checking = (async () => {
        try {
          const counter = await check(baseline);
          if (failing) log("twinport asset-connections: checking for a /reset works again");
          failing = false;
          if (counter !== baseline) await drop("a /reset in another process");
        } catch (error) {
          if (!failing) log(`twinport asset-connections: cannot check for a /reset: ${(error as Error).message}`);
          failing = true;
        }
        schedule();
      })();
    }, checkIntervalMs);
  };
  schedule();

  options.resetHooks.unshift(async () => {
    const counter = String(await redisCall(BUMP.run(redis.redis, keys, [redis.owner])));
    await drop("/reset");
    clearTimeout(timer);
    // A process checks every checkIntervalMs; one that stopped checking expires after ttlMs.
    const deadline = Date.now() + ttlMs + checkIntervalMs;
    let pending: string[] = [];
    for (;;) {
      pending = (await redisCall(PENDING.run(redis.redis, [keys[1]!], [counter]))) as string[];
      if (pending.length === 0 || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(10, Math.floor(checkIntervalMs / 2))));
    }
    if (pending.length > 0)
      log(
        `twinport asset-connections: /reset: ${pending.join(", ")} did not confirm stopping the configured connections; they stop when they next check`,
      );
  });

  return async () => {
    stopped = true;
    clearTimeout(timer);
    await checking.catch(() => undefined);
    // Leaving: a /reset need not wait for this process's entry to expire.
    if (!dropped) await redisCall(redis.redis.hdel(keys[1]!, redis.owner)).catch(() => undefined);
  };
}
