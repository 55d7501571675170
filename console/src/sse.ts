/**
 * A Server-Sent Events reader over fetch (the event-stream format of the HTML standard): EventSource
 * cannot send an Authorization header, and the console must work with bearer tokens.
 */
export interface ServerEvent {
  id?: string;
  event: string;
  data: string;
}

/** Splits a byte stream into events; returns when the stream ends or `signal` aborts. */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: ServerEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream() as ReadableWritablePair<string, Uint8Array>).getReader();
  signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined), { once: true });
  let buffer = "";
  let id: string | undefined;
  let event = "";
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline = buffer.search(/\r\n|\r|\n/);
    // A CR at the end may be the first half of a CRLF cut between two chunks: wait for the next.
    while (newline >= 0 && !(newline === buffer.length - 1 && buffer.endsWith("\r"))) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        // A blank line ends an event; one without data is no event (comments, keep-alives).
        if (data.length > 0) onEvent({ id, event: event || "message", data: data.join("\n") });
        event = "";
        data = [];
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "data") data.push(text);
        else if (field === "event") event = text;
        else if (field === "id" && !text.includes("\0")) id = text;
      }
      newline = buffer.search(/\r\n|\r|\n/);
    }
  }
}
