/**
 * Chunks as a response body that reads the next chunk only when the socket took the last one
 * (@hono/node-server waits for 'drain'): a slow client slows the producer instead of filling
 * memory. A client that goes away cancels the stream, which ends the producer (its `return()`).
 */
export function bodyStream(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const step = await iterator.next();
          if (step.done) controller.close();
          else controller.enqueue(step.value);
        } catch (error) {
          // Headers are gone already: the only honest signal left is a broken response.
          controller.error(error);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
