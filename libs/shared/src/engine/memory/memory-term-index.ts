import type { IdentifiableKind } from "../ports/index.ts";

/**
 * The memory repository's filter index (docs/adr/0035): per kind, term → the ids carrying it,
 * sorted by creation ordinal (the order lists page in), and per id the terms it was indexed under
 * (to take them out again). Updated inside the repository's synchronous commit, so it is exactly as
 * atomic as the records.
 */

export interface TermPostings {
  ordinals: number[];
  ids: string[];
}

/** First index whose ordinal is greater than `after` (ordinals sorted ascending). */
export function firstOrdinalAfter(ordinals: readonly number[], after: number): number {
  let low = 0;
  let high = ordinals.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ordinals[mid] <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

export class MemoryTermIndex {
  private readonly postings = new Map<IdentifiableKind, Map<string, TermPostings>>();
  private readonly termsOfId = new Map<IdentifiableKind, Map<string, readonly string[]>>();

  /** Index `id` (at `ordinal`) under exactly `terms`; touches only the terms that changed. */
  set(kind: IdentifiableKind, id: string, ordinal: number, terms: readonly string[]): void {
    const byId = this.mapOf(this.termsOfId, kind);
    const old = byId.get(id) ?? [];
    const next = new Set(terms);
    const before = new Set(old);
    for (const term of old) if (!next.has(term)) this.unpost(kind, term, ordinal);
    for (const term of next) if (!before.has(term)) this.post(kind, term, ordinal, id);
    if (next.size === 0) byId.delete(id);
    else byId.set(id, [...next]);
  }

  remove(kind: IdentifiableKind, id: string, ordinal: number): void {
    this.set(kind, id, ordinal, []);
  }

  /** The postings of the rarest term (an absent term has none: nothing carries it). */
  rarest(kind: IdentifiableKind, terms: readonly string[]): TermPostings {
    const byTerm = this.postings.get(kind);
    let best: TermPostings | undefined;
    for (const term of terms) {
      const postings = byTerm?.get(term);
      if (!postings) return { ordinals: [], ids: [] };
      if (!best || postings.ids.length < best.ids.length) best = postings;
    }
    return best ?? { ordinals: [], ids: [] };
  }

  clear(): void {
    this.postings.clear();
    this.termsOfId.clear();
  }

  private post(kind: IdentifiableKind, term: string, ordinal: number, id: string): void {
    const byTerm = this.mapOf(this.postings, kind);
    let postings = byTerm.get(term);
    if (!postings) {
      postings = { ordinals: [], ids: [] };
      byTerm.set(term, postings);
    }
    // New identifiables get the largest ordinal, so this is an append unless an old one changed.
    const at = firstOrdinalAfter(postings.ordinals, ordinal);
    if (at > 0 && postings.ordinals[at - 1] === ordinal) return;
    postings.ordinals.splice(at, 0, ordinal);
    postings.ids.splice(at, 0, id);
  }

  private unpost(kind: IdentifiableKind, term: string, ordinal: number): void {
    const byTerm = this.postings.get(kind);
    const postings = byTerm?.get(term);
    if (!postings) return;
    const at = firstOrdinalAfter(postings.ordinals, ordinal) - 1;
    if (at < 0 || postings.ordinals[at] !== ordinal) return;
    postings.ordinals.splice(at, 1);
    postings.ids.splice(at, 1);
    if (postings.ids.length === 0) byTerm!.delete(term);
  }

  private mapOf<V>(maps: Map<IdentifiableKind, Map<string, V>>, kind: IdentifiableKind): Map<string, V> {
    let map = maps.get(kind);
    if (!map) {
      map = new Map();
      maps.set(kind, map);
    }
    return map;
  }
}
