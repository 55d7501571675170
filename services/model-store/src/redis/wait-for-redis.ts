import type { Redis } from "ioredis";

/** Without an error to name, how long a connection may stay unready before the wait is reported. */
const QUIET_WAIT_MS = 2000;

/**
 * Resolves once the connection is ready, however long that takes: ioredis reconnects on its own
 * (redis-client.ts), this only waits for it. `onProblem` hears each reason once while it lasts
 * (every reconnect attempt fails the same way: one log line, not one per attempt), and the
 * connection's state when Redis neither answers nor fails within QUIET_WAIT_MS (e.g. still loading
 * its data set). Used where what starts next needs Redis (seeding, the filter index build), so a
 * process started before Redis waits instead of failing (Kubernetes has no depends_on).
 */
export async function waitForRedis(redis: Redis, onProblem: (problem: string) => void): Promise<void> {
  if (redis.status === "ready") return;
  // Each reason once, even when two alternate (DNS answers, then the port refuses, then DNS fails...).
  const told = new Set<string>();
  const tell = (problem: string) => {
    if (told.has(problem)) return;
    told.add(problem);
    onProblem(problem);
  };
  await new Promise<void>((resolve) => {
    const onError = (error: Error) => tell(error.message || String(error));
    const onReady = () => {
      clearTimeout(quiet);
      redis.off("error", onError);
      redis.off("ready", onReady);
      resolve();
    };
    const quiet = setTimeout(() => {
      if (told.size === 0) tell(`no answer yet (connection ${redis.status})`);
    }, QUIET_WAIT_MS);
    redis.on("error", onError);
    redis.on("ready", onReady);
  });
}
