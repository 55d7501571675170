/**
 * Progress of long work (building a large OPC UA address space, a resync, loading large models)
 * for a person watching: a line every few seconds while it runs ("building OPC UA address space:
 * 40,000 / 100,000 elements"), and one final line with the counts and the time it took. Short work
 * logs only the final line. Both go through the process's log, so they are JSON lines (with the
 * numbers as fields) or short human lines, as the log format says.
 */
export interface ProgressLog {
  /** `fields` carry the numbers for JSON log lines: task, done, total, unit, ms. */
  (fields: Record<string, unknown>, line: string): void;
}

export interface Progress {
  /** `count` more units done (default 1). */
  advance(count?: number): void;
  /**
   * The final line: `${finished}: N units in T s`, with `summary` after the counts. `done` gives
   * the count when the work could not report it on the way (one command that loads everything).
   */
  finish(summary?: string, done?: number): void;
}

export interface ProgressOptions {
  /** What is under way, e.g. "building OPC UA address space". */
  task: string;
  /** The final line's opening, e.g. "built OPC UA address space". */
  finished: string;
  /** What is counted, plural, e.g. "elements". */
  unit: string;
  /** Known in advance, or not (then the line says "so far"). */
  total?: number;
  /** Between two progress lines; default core.progressIntervalMs (3 s). */
  intervalMs?: number;
  now?: () => number;
}

export const DEFAULT_PROGRESS_INTERVAL_MS = 3000;

/** core.progressIntervalMs, set once per process by runRole: the interval of every progress line. */
let processInterval = DEFAULT_PROGRESS_INTERVAL_MS;
export function setProgressInterval(ms: number): void {
  processInterval = ms;
}

export function startProgress(log: ProgressLog, options: ProgressOptions): Progress {
  const now = options.now ?? (() => performance.now());
  const interval = options.intervalMs ?? processInterval;
  const started = now();
  let lastLine = started;
  let done = 0;
  const { task, unit, total } = options;
  return {
    advance(count = 1) {
      done += count;
      const at = now();
      if (at - lastLine < interval) return;
      lastLine = at;
      const amount =
        total === undefined ? `${number(done)} ${unit} so far` : `${number(done)} / ${number(total)} ${unit}`;
      log({ task, done, ...(total === undefined ? {} : { total }), unit }, `${task}: ${amount}`);
    },
    finish(summary, total) {
      if (total !== undefined) done = total;
      const ms = Math.round(now() - started);
      log(
        { task, done, unit, ms },
        `${options.finished}: ${number(done)} ${unit}${summary ? `, ${summary}` : ""} in ${seconds(ms)}`,
      );
    },
  };
}

function number(value: number): string {
  return value.toLocaleString("en");
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Progress lines for an import, only while `during` runs (the start-up load, not every POST
 * /import): pass `onCommit` as the engine's `importProgress`. Reading and checking the files comes
 * first (its count grows with no total known), then writing (out of the total read).
 */
export function importProgressLines(log: ProgressLog, task: string) {
  let reading: Progress | undefined;
  let writing: Progress | undefined;
  let active = false;
  const unit = "shells, submodels and concept descriptions";
  return {
    onCommit(_done: number, total: number | undefined, phase: "reading" | "writing" = "writing"): void {
      if (!active) return;
      if (phase === "reading") {
        reading ??= startProgress(log, { task: `${task}: reading and checking`, finished: task, unit });
        reading.advance();
        return;
      }
      writing ??= startProgress(log, { task, finished: task, unit, ...(total === undefined ? {} : { total }) });
      writing.advance();
    },
    async during<T>(work: () => Promise<T>): Promise<T> {
      active = true;
      reading = undefined;
      writing = undefined;
      try {
        return await work();
      } finally {
        active = false;
      }
    },
  };
}
