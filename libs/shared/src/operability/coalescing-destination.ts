/**
 * A log destination that gathers the lines of one event-loop turn and hands them to the real
 * destination in one write at the end of the turn (setImmediate). stderr is synchronous for files
 * and pipes, so a line per write cost a system call per write (profiled: about a sixth of an
 * embedded PATCH $value's CPU); under load many lines now share one.
 *
 * Nothing is held longer than the turn it was logged in, and lines at level error or above (pino
 * level ≥ 50) go out at once, together with what was gathered before them, so a process that
 * crashes right after logging its failure still leaves the line. `flush()` (pino's logger.flush)
 * writes what is gathered synchronously: the role runner calls it before it exits.
 */
export interface CoalescingDestination {
  write(text: string): boolean;
  flush(callback?: (error?: Error) => void): void;
}

const ERROR_LEVEL = 50;

export function coalescingDestination(target: { write(text: string): unknown }): CoalescingDestination {
  let pending = "";
  let scheduled = false;
  const flushNow = () => {
    scheduled = false;
    if (pending === "") return;
    const text = pending;
    pending = "";
    target.write(text);
  };
  return {
    write(text) {
      pending += text;
      if (isErrorLine(text)) flushNow();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flushNow);
      }
      return true;
    },
    flush(callback) {
      flushNow();
      callback?.();
    },
  };
}

/** pino writes `{"level":N,...`: the level is the first field of every line. */
function isErrorLine(text: string): boolean {
  const match = /^\{"level":(\d+)/.exec(text);
  return match === null || Number(match[1]) >= ERROR_LEVEL;
}
