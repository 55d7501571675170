import type { Logger } from "@twinport/shared";

/** How often, at most, refusals of one kind are logged while they go on. */
const LOG_EVERY_MS = 60_000;

export interface RefusalLog {
  /** One more refusal. */
  note(): void;
  /** Stops the count (the endpoint closes); what was not logged yet is dropped. */
  stop(): void;
}

/**
 * Refusals of one kind (connections past maxConnections, bodies past maxBufferedRequestBodySize) as
 * the log shows them: the first when it happens, then how many followed, once a minute while they go
 * on. A client that floods an endpoint makes one warning a minute, not one per attempt, and the
 * operator still learns how many were refused.
 */
export function refusalLog(logger: Logger | undefined, line: (count: number) => [object, string]): RefusalLog {
  let unlogged = 0;
  let timer: NodeJS.Timeout | undefined;
  const report = (count: number) => logger?.warn(...line(count));
  return {
    note() {
      if (timer !== undefined) {
        unlogged++;
        return;
      }
      report(1);
      timer = setInterval(() => {
        if (unlogged === 0) {
          clearInterval(timer);
          timer = undefined;
          return;
        }
        report(unlogged);
        unlogged = 0;
      }, LOG_EVERY_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
