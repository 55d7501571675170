import type { Logger } from "@twinport/shared";

/** How long the refusals of one reason are gathered into one line. */
const BURST_MS = 1000;

export interface CommandRefusals {
  /** A command answered "unavailable": nothing was done (the reply's message says why). */
  note(commandType: string, message: string): void;
  /** Logs what is gathered now (at stop). */
  flush(): void;
}

/**
 * The model-store's refusals as its log shows them. A client got a 503 for each; without a line
 * here an operator saw the errors at the gateways and nothing in the store that gave them. A stall
 * (SIGSTOP, a VM pause, Redis or NATS away) refuses every command that queued meanwhile, hundreds
 * in a turn, so they are gathered per reason for a second from the first one: one warn line per
 * burst with the reason, the count and the count per command type, as keeper-problems.ts keeps an
 * outage of the event log to one line.
 */
export function commandRefusals(logger: Logger, burstMs = BURST_MS): CommandRefusals {
  let gathered = new Map<string, { count: number; commands: Record<string, number> }>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const bursts = gathered;
    gathered = new Map();
    for (const [reason, { count, commands }] of bursts)
      logger.warn(
        { component: "command-responder", reason, count, commands },
        `refused ${count} command${count === 1 ? "" : "s"} (503 to their callers): ${reason}`,
      );
  };
  return {
    note(commandType, message) {
      // The message names its command first; the reason is the same for every command it refused.
      const reason = message.startsWith(`${commandType}: `) ? message.slice(commandType.length + 2) : message;
      let burst = gathered.get(reason);
      if (burst === undefined) {
        burst = { count: 0, commands: {} };
        gathered.set(reason, burst);
      }
      burst.count++;
      burst.commands[commandType] = (burst.commands[commandType] ?? 0) + 1;
      if (timer === undefined) {
        timer = setTimeout(flush, burstMs);
        timer.unref();
      }
    },
    flush,
  };
}
