/**
 * Keeps the values of the submodel on screen current, whoever changes them (HTTP, OPC UA, an asset
 * connection): the server's change stream `GET /api/v3.0/events?kinds=element&id=…` (Server-Sent
 * Events) where the server has it; where it answers anything else (an older Twinport without the
 * route: 400/404), reading the submodel's `$value` every 2 seconds instead (docs/console.md).
 */
import { API, authHeaders, b64, getJson } from "./api.ts";
import { readEvents } from "./sse.ts";

export const POLL_INTERVAL_MS = 2_000;
const RECONNECT_MS = 2_000;

export type LiveMode = "events" | "polling" | "connecting";

export interface LiveHandlers {
  /** One element's new value (ValueOnly) at its idShortPath. */
  onValue(idShortPath: string, value: unknown): void;
  /** The whole submodel's ValueOnly (polling). */
  onSubmodelValue(value: Record<string, unknown>): void;
  /** Something beyond a value changed (an element added/removed, or the stream was reset): read it all again. */
  onReload(): void;
  onMode(mode: LiveMode): void;
}

interface ChangeEvent {
  kind?: string;
  id?: string;
  idShortPath?: string;
  value?: unknown;
}

/** Follows one submodel until the returned function is called. */
export function followSubmodel(submodelId: string, handlers: LiveHandlers): () => void {
  const abort = new AbortController();
  const { signal } = abort;
  let lastEventId: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const poll = async (): Promise<void> => {
    if (signal.aborted) return;
    try {
      handlers.onSubmodelValue(await getJson<Record<string, unknown>>(`/submodels/${b64(submodelId)}/$value`));
    } catch {
      // A failed poll (server restarting, token expired) is retried at the next tick; a 401 has
      // already asked for a token.
    }
    if (!signal.aborted) timer = setTimeout(poll, POLL_INTERVAL_MS);
  };

  const stream = async (): Promise<void> => {
    handlers.onMode("connecting");
    let response: Response;
    try {
      const headers = authHeaders({ Accept: "text/event-stream" });
      if (lastEventId !== undefined) headers.set("Last-Event-ID", lastEventId);
      response = await fetch(`${API}/events?kinds=element&id=${b64(submodelId)}`, { headers, signal });
    } catch {
      if (!signal.aborted) timer = setTimeout(stream, RECONNECT_MS);
      return;
    }
    if (!response.ok || !response.body || !response.headers.get("Content-Type")?.startsWith("text/event-stream")) {
      // No change stream here: the documented fallback.
      void response.body?.cancel();
      handlers.onMode("polling");
      void poll();
      return;
    }
    handlers.onMode("events");
    // Changes made while the stream was down are not in the values on screen: read them again.
    if (lastEventId !== undefined) handlers.onReload();
    try {
      await readEvents(
        response.body,
        (event) => {
          if (event.id !== undefined) lastEventId = event.id;
          if (event.event === "reset") return handlers.onReload();
          let change: ChangeEvent;
          try {
            change = JSON.parse(event.data) as ChangeEvent;
          } catch {
            return;
          }
          if (change.id !== undefined && change.id !== submodelId) return;
          if (event.event === "element.value-changed" && change.idShortPath !== undefined)
            handlers.onValue(change.idShortPath, change.value);
          else if (event.event.startsWith("element.") || event.event.startsWith("submodel.")) handlers.onReload();
        },
        signal,
      );
    } catch {
      // The connection broke: reconnect below.
    }
    if (!signal.aborted) {
      handlers.onMode("connecting");
      timer = setTimeout(stream, RECONNECT_MS);
    }
  };

  void stream();
  return () => {
    abort.abort();
    clearTimeout(timer);
  };
}
