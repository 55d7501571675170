import { CommandError } from "../../contracts/index.ts";

/**
 * `clientTimeoutDuration` is an xs:duration (OperationRequest, AAS Part 2). The engine cannot use the
 * config package's parser (dependency rules), and this one must also reject negative durations: a
 * client time-out below zero means nothing. Years count 365 days and months 30 days.
 */
const XS_DURATION =
  /^(-?)P(?=.)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

const DAY_MS = 86_400_000;

export function clientTimeoutMs(duration: unknown): number {
  const match = typeof duration === "string" ? XS_DURATION.exec(duration) : null;
  if (!match)
    throw new CommandError(
      "bad-request",
      `clientTimeoutDuration must be an xs:duration such as "PT30S", got ${shown(duration)}`,
    );
  const [, sign, years, months, days, hours, minutes, seconds] = match;
  if (sign === "-")
    throw new CommandError("bad-request", `clientTimeoutDuration must not be negative, got "${duration as string}"`);
  const n = (text: string | undefined) => (text === undefined ? 0 : Number(text));
  return Math.round(
    n(years) * 365 * DAY_MS +
      n(months) * 30 * DAY_MS +
      n(days) * DAY_MS +
      n(hours) * 3_600_000 +
      n(minutes) * 60_000 +
      n(seconds) * 1000,
  );
}

/** The client's value as JSON text; a number arrives as a lossless number (its digits as they came). */
function shown(value: unknown): string {
  if (
    typeof value === "object" &&
    value !== null &&
    (value as { isLosslessNumber?: unknown }).isLosslessNumber === true
  )
    return String((value as { value: unknown }).value);
  return JSON.stringify(value);
}
