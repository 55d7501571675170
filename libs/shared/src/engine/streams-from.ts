import type { StoreClient } from "./ports/index.ts";

/**
 * `client` (a read cache, which has nothing to cache of a whole-model stream) with the streamed
 * commands of `streaming`, the client it wraps: streams pass it by (docs/adr/0034).
 */
export function withStreamsFrom<C extends StoreClient>(client: C, streaming: StoreClient): C {
  if (client.stream !== undefined || streaming.stream === undefined) return client;
  return Object.assign(client, { stream: streaming.stream.bind(streaming) });
}
