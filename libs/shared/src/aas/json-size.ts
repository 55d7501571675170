/**
 * Whether `value` written as JSON surely takes more than `limit` characters: its strings and member
 * names alone do. Stops as soon as they do, so a Blob's value of tens of megabytes is measured by
 * its length, not by writing the whole element out (JSON.stringify of a 40 MB element held the event
 * loop ~100 ms only to learn that it is too big for an event). `false` does not mean it fits.
 */
export function jsonSurelyLongerThan(value: unknown, limit: number): boolean {
  let chars = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") chars += item.length;
    else if (Array.isArray(item)) for (const element of item) pending.push(element);
    else if (typeof item === "object" && item !== null)
      for (const key of Object.keys(item)) {
        chars += key.length;
        pending.push((item as Record<string, unknown>)[key]);
      }
    if (chars > limit) return true;
  }
  return false;
}
