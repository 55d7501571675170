import type { OPCUAServer, Request, Response } from "node-opcua";

/**
 * Keeps what a request held until node-opcua has answered it. `on_request` returns as soon as a
 * service has started, but Write, Call and CreateMonitoredItems find their nodes later, after
 * awaits of their own: released on return, a request's nodes could be released for another's
 * (maxMaterializedElements) before its service looked them up, and a Write to a node that exists
 * answered BadNodeIdUnknown (black-box finding). node-opcua emits every answer it sends on a
 * secured channel (all of them: even SecurityMode None opens one) as the server's "response" event,
 * with the request's handle.
 *
 * Nothing held stays for good: a channel that closes releases its requests' holds, and a request
 * whose answer never comes (a client whose handles repeat, say) is released after ANSWER_BOUND_MS.
 */
const ANSWER_BOUND_MS = 60_000;

interface Waiting {
  held: string[];
  timer: NodeJS.Timeout;
}

export interface AnswerWatch {
  /** Releases `held` once `request` is answered on `channel` (at once when nothing is held). */
  releaseWithAnswer(channel: object, request: Request, held: string[]): void;
  close(): void;
}

export function answerWatch(server: OPCUAServer, release: (held: string[]) => void): AnswerWatch {
  /** Per channel, per request handle: the requests not yet answered, oldest first. */
  const waiting = new Map<object, Map<number, Waiting[]>>();

  const settle = (entry: Waiting) => {
    clearTimeout(entry.timer);
    release(entry.held);
  };

  const onResponse = (response: Response, channel: object) => {
    const byHandle = waiting.get(channel);
    const handle = response.responseHeader?.requestHandle;
    const queue = handle === undefined ? undefined : byHandle?.get(handle);
    const entry = queue?.shift();
    if (entry === undefined) return;
    if (queue!.length === 0) byHandle!.delete(handle!);
    if (byHandle!.size === 0) waiting.delete(channel);
    settle(entry);
  };
  const onClose = (channel: object) => {
    const byHandle = waiting.get(channel);
    if (byHandle === undefined) return;
    waiting.delete(channel);
    for (const queue of byHandle.values()) for (const entry of queue) settle(entry);
  };
  const events = server as unknown as NodeJS.EventEmitter;
  events.on("response", onResponse);
  events.on("closeChannel", onClose);

  return {
    releaseWithAnswer(channel, request, held) {
      if (held.length === 0) return;
      const handle = request.requestHeader?.requestHandle ?? 0;
      let byHandle = waiting.get(channel);
      if (byHandle === undefined) waiting.set(channel, (byHandle = new Map()));
      let queue = byHandle.get(handle);
      if (queue === undefined) byHandle.set(handle, (queue = []));
      const entry: Waiting = {
        held,
        timer: setTimeout(() => {
          const at = queue!.indexOf(entry);
          if (at >= 0) queue!.splice(at, 1);
          if (queue!.length === 0) byHandle!.delete(handle);
          if (byHandle!.size === 0) waiting.delete(channel);
          release(held);
        }, ANSWER_BOUND_MS),
      };
      entry.timer.unref();
      queue.push(entry);
    },
    close() {
      events.off("response", onResponse);
      events.off("closeChannel", onClose);
      for (const channel of [...waiting.keys()]) onClose(channel);
    },
  };
}
