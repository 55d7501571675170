/**
 * Clients of GET /events for the event stream suite: a real EventSource (the `eventsource` package,
 * which reconnects by itself with Last-Event-ID, as a browser does) and a raw HTTP reader that sees
 * every byte (comments, the end of the response) and can stop reading (a slow client).
 */
import { request } from "node:http";
import { EventSource } from "eventsource";

export interface StreamEvent {
  type: string;
  id: string;
  data: Record<string, unknown>;
}

const ENTITIES = ["shell", "submodel", "element", "concept-description", "operation"];
const CHANGES = ["created", "updated", "deleted", "value-changed", "invoked", "finished"];
const CONTROL = ["reset", "overflow", "shutdown", "failed", "unavailable", "expired"];
export const EVENT_NAMES = [...ENTITIES.flatMap((e) => CHANGES.map((c) => `${e}.${c}`)), ...CONTROL];

export interface Follower {
  events: StreamEvent[];
  /** Times the connection (re)opened. */
  opens: number;
  waitFor(check: (events: StreamEvent[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Follows `url` with an EventSource; `headers` go on every (re)connection. */
export function follow(url: string, headers: Record<string, string> = {}): Follower {
  const events: StreamEvent[] = [];
  const source = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers } }),
  });
  const follower: Follower = {
    events,
    opens: 0,
    async waitFor(check, what, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!check(events)) {
        if (Date.now() > until)
          throw new Error(`timed out waiting for ${what}; got ${events.map((e) => `${e.id}:${e.type}`).join(" ")}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => source.close(),
  };
  source.addEventListener("open", () => follower.opens++);
  for (const name of EVENT_NAMES)
    source.addEventListener(name, (message) =>
      events.push({ type: name, id: message.lastEventId, data: JSON.parse(message.data) }),
    );
  return follower;
}

export interface RawStream {
  status: number;
  text(): string;
  /** Resolves when the server ended the response (or the connection broke). */
  ended: Promise<"end" | "aborted">;
  pause(): void;
  resume(): void;
  close(): void;
}

/** GET with a plain HTTP request, collecting the body as text. */
export function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      const ended = new Promise<"end" | "aborted">((done) => {
        res.once("end", () => done("end"));
        res.once("aborted", () => done("aborted"));
        res.once("error", () => done("aborted"));
        res.once("close", () => done(res.complete ? "end" : "aborted"));
      });
      resolve({
        status: res.statusCode ?? 0,
        text: () => body,
        ended,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      });
    });
    req.once("error", reject);
    req.end();
  });
}

export interface SlowReader {
  status: number;
  text(): string;
  /** Resolves when the server ended the response (or the connection broke). */
  ended: Promise<"end" | "aborted">;
  /** Reads `bytes` every `everyMs` from now on, no faster (until then it reads nothing); again: a new pace. */
  readAtPace(bytes: number, everyMs: number): void;
  close(): void;
}

/**
 * GET with a plain HTTP request whose body is read only at a pace: nothing until readAtPace(),
 * then at most so many bytes per tick (the response is not flowing, so the socket, and behind it
 * the server's socket, fill up in between: a real slow client).
 */
export function openSlowReader(url: string, headers: Record<string, string> = {}): Promise<SlowReader> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
      let body = "";
      let timer: NodeJS.Timeout | undefined;
      res.setEncoding("utf8");
      const ended = new Promise<"end" | "aborted">((done) => {
        res.once("end", () => done("end"));
        res.once("aborted", () => done("aborted"));
        res.once("error", () => done("aborted"));
        res.once("close", () => done(res.complete ? "end" : "aborted"));
      }).finally(() => clearInterval(timer));
      resolve({
        status: res.statusCode ?? 0,
        text: () => body,
        ended,
        readAtPace(bytes, everyMs) {
          clearInterval(timer);
          timer = setInterval(() => {
            // read(n) answers null until n characters are there, except at the end (then the rest;
            // the read after that emits "end").
            const chunk = res.read(bytes) as string | null;
            if (chunk !== null) body += chunk;
          }, everyMs);
        },
        close: () => {
          clearInterval(timer);
          req.destroy();
        },
      });
    });
    req.once("error", reject);
    req.end();
  });
}

/** The events in a raw body: `id`, `event`, parsed `data`. */
export function parseEvents(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of text.split("\n\n")) {
    const fields = new Map<string, string>();
    for (const line of block.split("\n")) {
      const colon = line.indexOf(": ");
      if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 2));
    }
    if (fields.has("event"))
      events.push({ type: fields.get("event")!, id: fields.get("id") ?? "", data: JSON.parse(fields.get("data")!) });
  }
  return events;
}

export const waitUntil = async (check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
