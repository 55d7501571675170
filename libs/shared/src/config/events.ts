import { z } from "zod";

/**
 * The `events` section (issue 15, docs/events.md): how long committed change events stay in the
 * event log (the Redis outbox in distributed mode, a bounded in-memory log in embedded memory mode)
 * and how the HTTP event stream (`GET /api/v3.0/events`) treats its clients. Ours, not FA³ST's.
 */
export const eventsSchema = z.strictObject({
  /** Events the log keeps at most (older ones are trimmed), in Redis and in memory. */
  retentionMaxEvents: z.number().int().min(10).default(100_000),
  /** Events older than this (ms) are trimmed too. Default 24 h. Keep it well above a second: a gap in the bus is filled from the log. */
  retentionMaxAgeMs: z.number().int().min(2000).default(86_400_000),
  /** A comment line (`: heartbeat`) on every open stream this often (ms), so proxies keep it open. */
  heartbeatIntervalMs: z.number().int().min(100).default(15_000),
  /**
   * Bytes an event stream may have waiting for a slow client (written but not yet taken by its
   * socket). Over it the client gets `event: overflow` and the stream closes.
   */
  maxBufferedBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Live events one stream may hold while it is still replaying from the log; over it: overflow. */
  maxQueuedEvents: z.number().int().min(1).default(10_000),
  /**
   * Event streams one process serves at once; a further one is refused (503). Each may hold
   * maxBufferedBytes for a client that does not read and costs work per event: without a bound, a
   * thousand idle streams held a gigabyte and stalled every other request.
   */
  maxStreams: z.number().int().min(1).default(500),
});

export type EventsConfig = z.output<typeof eventsSchema>;

/** The section with its defaults (a configuration built in code may leave it out). */
export function eventsConfigOf(events: Partial<EventsConfig> | undefined): EventsConfig {
  return eventsSchema.parse(events ?? {});
}
