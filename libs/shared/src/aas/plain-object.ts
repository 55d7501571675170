/**
 * A JSON object as parsed: `{}` or a null-prototype object, not an array, not null and not a class
 * instance (a Date, or a lossless-json LosslessNumber, which stands for a number). The one test for
 * "is this a JSON object" across the packages.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
