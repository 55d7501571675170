import type { ChangeEvent } from "@twinport/shared";
import type { Redis } from "ioredis";
import { redisCall } from "./redis-errors.ts";

/**
 * The outbox stream as an event log: every commit appends its event there, inside the commit script
 * (entry id `<seq>-0`, fields seq and event). Readers take the seq from the id when the field is
 * missing, so a later version may stop writing it once no replica older than docs/adr/0047 reads. The committing replica publishes the event itself; the
 * log is how a subscriber that missed one fills the gap (GetEvents), and what the outbox keeper
 * trims to its retention.
 */
export async function readOutboxEvents(
  redis: Redis,
  outboxKey: string,
  after: number,
  limit: number,
): Promise<ChangeEvent[]> {
  const entries = (await redisCall(redis.xrange(outboxKey, String(after + 1), "+", "COUNT", limit))) as [
    string,
    string[],
  ][];
  return entries.map(([id, fields]) => eventOf(id, fields));
}

/** The event of an outbox entry: its seq is the entry id's first part. */
export function eventOf(id: string, fields: string[]): ChangeEvent {
  let seq = Number.parseInt(id, 10);
  let json = "{}";
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i] === "seq") seq = Number(fields[i + 1]);
    else if (fields[i] === "event") json = fields[i + 1]!;
  }
  return { ...(JSON.parse(json) as Omit<ChangeEvent, "seq" | "revision">), seq, revision: seq };
}

/**
 * The oldest seq the log holds and the store's latest seq, in one MULTI: a commit appends to the
 * log and raises the seq in one script, so the two agree (an event committed meanwhile is either
 * in both or in neither).
 */
export async function outboxBounds(
  redis: Redis,
  outboxKey: string,
  sequenceKey: string,
): Promise<{ oldest?: number; latest: number }> {
  const replies = await redisCall(redis.multi().get(sequenceKey).xrange(outboxKey, "-", "+", "COUNT", 1).exec());
  const [seqReply, firstReply] = replies ?? [];
  if (seqReply?.[0]) throw seqReply[0];
  if (firstReply?.[0]) throw firstReply[0];
  const latest = Number(seqReply?.[1] ?? 0);
  const first = (firstReply?.[1] ?? []) as [string, string[]][];
  return first.length === 0 ? { latest } : { oldest: eventOf(first[0]![0], first[0]![1]).seq, latest };
}
