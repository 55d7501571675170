import type { Commit, CommitResult } from "@twinport/shared";

/**
 * Group commit across callers: every commit handed in during one event-loop turn goes to Redis in
 * ONE script call at the end of the turn (setImmediate, the check phase right after the poll phase
 * that delivered the requests). With `appendfsync always` Redis fsyncs once per call instead of once
 * per commit, and parses one EVALSHA instead of many. Each commit inside stays atomic on its own
 * (see commit-script.ts), so callers see exactly what separate commits would give them.
 *
 * Large commits (a model load, a big PUT) go alone, so a small write never waits behind them in the
 * same script.
 */
export interface CommitQueue {
  /** The commits of one caller, kept together and in order in one script call. */
  submit(commits: Commit[]): Promise<CommitResult[]>;
}

/** Ops above which a commit is sent on its own. */
export const LARGE_COMMIT_OPS = 1_000;
/** Commits at most per script call: bounds how long one call holds Redis. */
const MAX_BATCH_COMMITS = 512;

interface Waiting {
  commits: Commit[];
  resolve(results: CommitResult[]): void;
  reject(error: unknown): void;
}

/**
 * `unsent(error)` tells a failure found before anything reached Redis (an unencodable commit): the
 * callers of such a group are then served one by one, so one caller's bad commit fails only itself.
 */
export function createCommitQueue(
  run: (commits: Commit[]) => Promise<CommitResult[]>,
  unsent: (error: unknown) => boolean,
): CommitQueue {
  let waiting: Waiting[] = [];

  const send = (group: Waiting[]) => {
    const all = group.flatMap((w) => w.commits);
    run(all).then(
      (results) => {
        let at = 0;
        for (const w of group) {
          w.resolve(results.slice(at, at + w.commits.length));
          at += w.commits.length;
        }
      },
      (error) => {
        if (group.length > 1 && unsent(error)) for (const w of group) send([w]);
        else for (const w of group) w.reject(error);
      },
    );
  };

  const flush = () => {
    const queued = waiting;
    waiting = [];
    let group: Waiting[] = [];
    let count = 0;
    for (const w of queued) {
      if (count > 0 && count + w.commits.length > MAX_BATCH_COMMITS) {
        send(group);
        group = [];
        count = 0;
      }
      group.push(w);
      count += w.commits.length;
    }
    if (group.length > 0) send(group);
  };

  return {
    submit(commits) {
      return new Promise<CommitResult[]>((resolve, reject) => {
        const entry = { commits, resolve, reject };
        if (commits.some((c) => c.ops.length > LARGE_COMMIT_OPS)) {
          send([entry]);
          return;
        }
        if (waiting.length === 0) setImmediate(flush);
        waiting.push(entry);
      });
    },
  };
}
