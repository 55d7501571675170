import { type OutputModifiers, rememberJsonText } from "../contracts/index.ts";

/**
 * Whole submodels as last assembled, by submodel id, revision and modifiers: a repeated GET of an
 * unchanged large submodel costs the revision's point read instead of reading, parsing and
 * assembling every element record again (a 1,000-element submodel: ~4 ms of model-store CPU). The
 * revision is read fresh for every request and covers every element (ADR 0002), so an entry can
 * never be served for a changed submodel. Values are deep-frozen (callers share them) and their
 * JSON text is kept beside them, so the reply is not serialized again either. Bounded by their
 * footprint (the text, the parsed value and the bookkeeping: FOOTPRINT_PER_CHAR), least recently
 * used first out.
 */
export interface RenderedSubmodels {
  get(submodelId: string, revision: number, modifiers: OutputModifiers | undefined): unknown | undefined;
  set(submodelId: string, revision: number, modifiers: OutputModifiers | undefined, value: unknown): void;
  /** Accounted bytes, never above maxBytes. */
  readonly bytes: number;
  readonly entries: number;
  /** Rows of the newest-revision index (pruned to a bounded multiple of the entries). */
  readonly indexed: number;
}

/** Submodels smaller than this are assembled every time: caching them saves little. */
const MIN_CACHED_BYTES = 16 * 1024;
/**
 * Heap bytes per character of an entry's JSON text: the text itself (one byte per character) and
 * the parsed, frozen value beside it (measured with `node --expose-gc`: 1.86 bytes per character in
 * all for submodels of xs:int Properties, the most object-heavy shape; issue 19), rounded up.
 */
export const FOOTPRINT_PER_CHAR = 2.5;
/** Per entry: the key (twice: map and index), the entry object, map slots. */
const ENTRY_OVERHEAD_BYTES = 512;

export function createRenderedSubmodels(maxBytes: number): RenderedSubmodels {
  const entries = new Map<string, { value: unknown; bytes: number }>();
  /** Only the newest revision of a submodel is worth keeping: older keys are dropped on sight. */
  const latest = new Map<string, string[]>();
  let bytes = 0;
  const keyOf = (submodelId: string, revision: number, modifiers: OutputModifiers | undefined) =>
    `${submodelId}\u0000${revision}\u0000${JSON.stringify(modifiers ?? {})}`;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.bytes;
  };
  return {
    get(submodelId, revision, modifiers) {
      const key = keyOf(submodelId, revision, modifiers);
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(submodelId, revision, modifiers, value) {
      if (typeof value !== "object" || value === null) return;
      const text = JSON.stringify(value);
      const key = keyOf(submodelId, revision, modifiers);
      const size = Math.ceil(text.length * FOOTPRINT_PER_CHAR) + key.length * 4 + ENTRY_OVERHEAD_BYTES;
      if (text.length < MIN_CACHED_BYTES || size > maxBytes / 4) return;
      // A newer revision makes every older entry of this submodel dead weight.
      const current = `${submodelId}\u0000${revision}\u0000`;
      const mine = (latest.get(submodelId) ?? []).filter((k) => {
        if (k.startsWith(current) && k !== key) return entries.has(k);
        drop(k);
        return false;
      });
      deepFreeze(value);
      rememberJsonText(value, text);
      drop(key);
      entries.set(key, { value, bytes: size });
      latest.set(submodelId, [...mine, key]);
      bytes += size;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        drop(oldest);
      }
      if (latest.size > entries.size * 4 + 1000)
        for (const [id, keys] of latest) if (!keys.some((k) => entries.has(k))) latest.delete(id);
    },
    get bytes() {
      return bytes;
    },
    get entries() {
      return entries.size;
    },
    get indexed() {
      return latest.size;
    },
  };
}

function deepFreeze(value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== "object" || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const child of Object.values(next)) stack.push(child);
  }
}
