import type { Duplex } from "node:stream";

/**
 * Holds a stream's writes from the moment data arrives until the end of that event-loop turn
 * (setImmediate), so that everything the received data makes us send leaves in one socket write.
 *
 * Why: mqtt.js answers each QoS 1 PUBLISH with a PUBACK, and mqtt-packet uncorks after every packet,
 * so a chunk of 20 PUBLISHes made 20 `writev` calls. At 5,000 messages/s those system calls were
 * the model-store's largest single cost (bench/asset-ingest.ts profile: a fifth of its samples in
 * `writev` under the PUBACKs). Corked for the turn, one chunk's PUBACKs go out together. Nothing is
 * held longer than the turn that received the data, so the broker's in-flight window refills as
 * soon as before; nothing is reordered (a cork only delays).
 *
 * The listener is prepended: it must cork before mqtt.js handles the data (its pipe writes the first
 * PUBACK synchronously).
 */
export function writesPerTurn(stream: Duplex): void {
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  stream.prependListener("data", () => {
    if (corked || stream.destroyed) return;
    corked = true;
    stream.cork();
    setImmediate(uncork);
  });
}
