import { batchIndexOf, batchRevision, type Commit, type CommitResult } from "@twinport/shared";

/**
 * Group commit across callers: every commit handed in during one event-loop turn goes to Redis in
 * ONE script call at the end of the turn (setImmediate, the check phase right after the poll phase
 * that delivered the requests). With `appendfsync always` Redis fsyncs once per call instead of once
 * per commit, and parses one EVALSHA instead of many. Each commit inside stays atomic on its own
 * (see commit-script.ts), so callers see exactly what separate commits would give them.
 *
 * At most two script calls are in flight (docs/adr/0048): commits handed in while both are on their
 * way to Redis (and being fsynced there) wait for one answer and then go together in one call (classic
 * group commit, issue 12). Redis fsyncs once per turn of its event loop, before it answers what it
 * ran in that turn; a second call that arrives during the first one's fsync runs in the next turn
 * with its own fsync, but at once, not after a round trip through this process (with one call in
 * flight Redis sat idle while this process took the answer, settled its commits and sent the next). When nothing is in flight a commit still
 * leaves at the end of its turn. Writes to one element are unaffected: the commit runner sends a
 * target's next group only once the one before has committed (docs/adr/0047).
 *
 * Large commits (a model load, a big PUT: many ops or much text, isLargeCommit) go alone and at
 * once (on their own connection), so a small write never waits behind them in the same script.
 */
export interface CommitQueue {
  /** The commits of one caller, kept together and in order in one script call. */
  submit(commits: Commit[]): Promise<CommitResult[]>;
}

/** Ops above which a commit is sent on its own. */
export const LARGE_COMMIT_OPS = 1_000;
/**
 * JSON text (characters, over the ops) above which commits are large too, however few their ops:
 * one identifiable of 300 MB is one op. Redis with `appendfsync always` applies ~30 ms per MiB
 * (the text, and the event that repeats it, parsed, stored, appended and fsynced: 4 MiB ~150 ms,
 * 64 MiB ~1.9 s on the 2-core development machine), so 4 MiB stays far below the fail-fast
 * command timeout (2 s) while anything that may come near it goes on the long-timeout connection.
 */
export const LARGE_COMMIT_BYTES = 4 * 1024 * 1024;

/** Whether commits may hold Redis for long: many ops in one, or much text in all of them. */
export function isLargeCommit(commits: readonly Commit[]): boolean {
  let bytes = 0;
  for (const commit of commits) {
    if (commit.ops.length > LARGE_COMMIT_OPS) return true;
    for (const op of commit.ops) if ("json" in op) bytes += op.json.length;
    if (bytes > LARGE_COMMIT_BYTES) return true;
  }
  return false;
}
/** Commits at most per script call: bounds how long one call holds Redis. */
const MAX_BATCH_COMMITS = 512;
/** Script calls of small commits on their way at once (see above; docs/adr/0048). */
export const DEFAULT_MAX_IN_FLIGHT = 2;

interface Waiting {
  commits: Commit[];
  resolve(results: CommitResult[]): void;
  reject(error: unknown): void;
}

/**
 * A caller's commits as they sit at `offset` in a script call: a placeholder revision names a commit
 * of the caller's own batch (`batchRevision(j)`, a write planned on top of its j-th commit), so in
 * the call it names commit `offset + j`. Left as it was, it named another caller's commit: the
 * compare-and-set then checked the wrong seq, and a write planned on a state that never came to be
 * could pass (when that other commit had touched the same element) or a good one fail.
 */
export function rebased(commits: Commit[], offset: number): Commit[] {
  if (offset === 0) return commits;
  return commits.map((commit) => {
    if (!commit.preconditions.some((p) => "revision" in p && batchIndexOf(p.revision) !== undefined)) return commit;
    const preconditions = commit.preconditions.map((p) => {
      const index = "revision" in p ? batchIndexOf(p.revision) : undefined;
      return index === undefined ? p : { ...p, revision: batchRevision(index + offset) };
    });
    return { ...commit, preconditions };
  });
}

/**
 * `unsent(error)` tells a failure found before anything reached Redis (an unencodable commit): the
 * callers of such a group are then served one by one, so one caller's bad commit fails only itself.
 */
export function createCommitQueue(
  run: (commits: Commit[]) => Promise<CommitResult[]>,
  unsent: (error: unknown) => boolean,
  maxInFlight = DEFAULT_MAX_IN_FLIGHT,
): CommitQueue {
  let waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || waiting.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };

  const send = (group: Waiting[], counted: boolean) => {
    const all: Commit[] = [];
    for (const w of group) all.push(...rebased(w.commits, all.length));
    if (counted) inFlight++;
    const done = () => {
      if (!counted) return;
      inFlight--;
      // The commits that came meanwhile leave together, at the end of this turn (so the commits the
      // answers lead to, e.g. re-planned ones, join them).
      schedule();
    };
    run(all).then(
      (results) => {
        let at = 0;
        for (const w of group) {
          w.resolve(results.slice(at, at + w.commits.length));
          at += w.commits.length;
        }
        done();
      },
      (error) => {
        if (group.length > 1 && unsent(error)) for (const w of group) send([w], false);
        else for (const w of group) w.reject(error);
        done();
      },
    );
  };

  const flush = () => {
    scheduled = false;
    while (inFlight < maxInFlight && waiting.length > 0) {
      let count = 0;
      let taken = 0;
      while (taken < waiting.length) {
        const n = waiting[taken]!.commits.length;
        if (count > 0 && count + n > MAX_BATCH_COMMITS) break;
        count += n;
        taken++;
      }
      send(waiting.splice(0, taken), true);
    }
  };

  return {
    submit(commits) {
      return new Promise<CommitResult[]>((resolve, reject) => {
        const entry = { commits, resolve, reject };
        if (isLargeCommit(commits)) {
          send([entry], false);
          return;
        }
        waiting.push(entry);
        if (inFlight < maxInFlight) schedule();
      });
    },
  };
}
