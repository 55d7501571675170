/** Time source, injectable so tests can control it. */
export interface Clock {
  now(): Date;
}

/** The second the cached prefix belongs to, and "YYYY-MM-DDTHH:mm:ss." of that second. */
let cachedSecond = Number.NaN;
let cachedPrefix = "";

/**
 * A Date whose ISO form (every change event's `time`, docs/adr/0046) comes from a per-second cache:
 * V8 formats `toISOString` in C++ through a printf-style formatter, about 0.6 µs a call here, once
 * per write; under load many writes fall in the same second, and only the milliseconds differ.
 * Otherwise a plain Date: the same value, the same string (clock.test.ts compares them).
 */
export class SystemDate extends Date {
  override toISOString(): string {
    const ms = this.getTime();
    const second = Math.floor(ms / 1000);
    if (second !== cachedSecond) {
      // Invalid dates throw here as they always do; years past 9999 keep their extended form.
      const iso = super.toISOString();
      cachedPrefix = iso.slice(0, -4);
      cachedSecond = second;
      return iso;
    }
    const millis = ms - second * 1000;
    return `${cachedPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
  }
}

export const systemClock: Clock = { now: () => new SystemDate() };
