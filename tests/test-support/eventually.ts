/**
 * Reads until `check` accepts what was read, and returns it; fails after `timeoutMs` with the last
 * value read. For state that other processes change in their own time (asset polls, failovers).
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  check: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < until) {
    last = await read();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms; last ${JSON.stringify(last)}`);
}
