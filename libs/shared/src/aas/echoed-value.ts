/**
 * How many characters of a client's value (an id, an idShortPath, a handle id, a cursor) an error
 * message quotes. A valid identifier or idShortPath of any real model fits whole (an idShort has at
 * most 128 characters); a 12 KB value sent in a path must not come back whole in the 4xx Result,
 * where it bloats logs and answers and makes the message unreadable.
 */
export const ECHOED_VALUE_MAX_CHARACTERS = 256;

/**
 * The client's value as an error message quotes it: whole up to ECHOED_VALUE_MAX_CHARACTERS, else
 * its beginning, an ellipsis and its length, so the client still sees which value it was and that
 * it was cut. Never cut inside a surrogate pair: the Result would carry a lone surrogate.
 */
export function echoed(value: string): string {
  if (value.length <= ECHOED_VALUE_MAX_CHARACTERS) return value;
  const last = value.charCodeAt(ECHOED_VALUE_MAX_CHARACTERS - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? ECHOED_VALUE_MAX_CHARACTERS - 1 : ECHOED_VALUE_MAX_CHARACTERS;
  return `${value.slice(0, end)}… (${value.length} characters)`;
}
