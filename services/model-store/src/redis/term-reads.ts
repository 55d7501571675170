import {
  CommandError,
  type IdentifiableKind,
  identifiableCursor,
  ordinalOfCursor,
  type RepositoryPage,
  type StoredIdentifiable,
} from "@twinport/shared";
import type { Redis } from "ioredis";
import { redisCall } from "./redis-errors.ts";
import { orderKeyOf, type RedisLayout, unpackIdentifiable } from "./redis-layout.ts";

/**
 * Candidates of a filtered list from the filter index (docs/adr/0035, redis-layout.ts): the
 * entries of the rarest term, from the cursor's ordinal on, in creation order. Cursors are the
 * ordinals listIdentifiables pages by, so a page may continue one of either.
 *
 * An entry counts only while its ordinal is still the id's ordinal (ZMSCORE, in the same round trip
 * as the records): the index can never make an id appear twice, whatever it holds.
 */
export async function listByTerms(
  redis: Redis,
  layout: RedisLayout,
  kind: IdentifiableKind,
  terms: readonly string[],
  page: { cursor?: string; limit: number },
): Promise<RepositoryPage<StoredIdentifiable>> {
  const { index } = layout.termIndex(kind);
  const { rec, order } = layout.identifiable(kind);
  let after = -1;
  if (page.cursor !== undefined) {
    after = ordinalOfCursor(kind, page.cursor);
  }
  const limit = Math.max(page.limit, 0);
  if (limit === 0 || terms.length === 0) return { items: [] };
  const term = terms.length === 1 ? terms[0]! : await rarest(redis, index, terms);
  if (term === undefined) return { items: [] };
  const start = after < 0 ? `[${term}\0` : `[${term}\0${orderKeyOf(after + 1)}`;
  // limit + 1 tells whether another page follows, so the last page has no cursor.
  const members = await redisCall(redis.zrangebylex(index, start, `(${term}\x01`, "LIMIT", 0, limit + 1));
  const taken = members.slice(0, limit);
  const ids = taken.map((member) => member.slice(term.length + 17));
  const ordinals = taken.map((member) => Number.parseInt(member.slice(term.length + 1, term.length + 17), 16));
  const items: StoredIdentifiable[] = [];
  if (ids.length > 0) {
    const [values, scores] = await Promise.all([
      redisCall(redis.hmget(rec, ...ids)),
      redisCall(redis.zmscore(order, ...ids)),
    ]);
    ids.forEach((id, i) => {
      // Deleted since, or an entry of an earlier life of the id: skipped, the cursor still moves past it.
      if (values[i] !== null && Number(scores[i]) === ordinals[i])
        items.push({ kind, id, ...unpackIdentifiable(values[i]!) });
    });
  }
  if (members.length <= limit) return { items };
  return { items, cursor: identifiableCursor(kind, ordinals[ordinals.length - 1]!) };
}

/** The term with the fewest entries (undefined when one has none: nothing carries every term). */
async function rarest(redis: Redis, index: string, terms: readonly string[]): Promise<string | undefined> {
  const counts = await Promise.all(terms.map((t) => redisCall(redis.zlexcount(index, `[${t}\0`, `(${t}\x01`))));
  let best = 0;
  for (let i = 1; i < counts.length; i++) if (counts[i]! < counts[best]!) best = i;
  return counts[best] === 0 ? undefined : terms[best];
}
