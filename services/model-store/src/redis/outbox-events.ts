import type { ChangeEvent } from "@twinport/shared";
import type { Redis } from "ioredis";
import { redisCall } from "./redis-errors.ts";

/**
 * The outbox stream as an event log: every commit appends its event there, inside the commit script
 * (entry id `<seq>-0`, fields seq and event). The committing replica publishes the event itself; the
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
  return entries.map(([, fields]) => eventOf(fields));
}

export function eventOf(fields: string[]): ChangeEvent {
  let seq = 0;
  let json = "{}";
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i] === "seq") seq = Number(fields[i + 1]);
    else if (fields[i] === "event") json = fields[i + 1]!;
  }
  return { ...(JSON.parse(json) as Omit<ChangeEvent, "seq" | "revision">), seq, revision: seq };
}
