/**
 * A TCP proxy in front of a real server (Redis) that can hold back what a client sends from a
 * chosen moment on: the first chunk matching `holdWhen` and everything after it on that connection
 * wait in the proxy until `release()`, even when the client dies meanwhile. So a test decides that
 * a commit was SENT but reaches Redis late (the store's command times out: outcome unknown), or
 * only after the sending process was killed. No mock: the bytes and the server are real.
 */
import net from "node:net";

export interface HoldingProxy {
  port: number;
  url: string;
  /** Hold the next chunk for which `match` is true (and all that follows it on its connection). */
  holdWhen(match: (chunk: Buffer) => boolean): void;
  /** Resolves once a chunk is being held. */
  held(): Promise<void>;
  /** Forward what was held, in order; a connection whose client is gone is ended afterwards. */
  release(): Promise<void>;
  close(): Promise<void>;
}

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  holding: Buffer[] | undefined;
  clientGone: boolean;
}

export async function startHoldingProxy(targetPort: number): Promise<HoldingProxy> {
  const links = new Set<Link>();
  let match: ((chunk: Buffer) => boolean) | undefined;
  let onHeld: (() => void) | undefined;
  let heldOnce: Promise<void> = new Promise((resolve) => (onHeld = resolve));

  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    const link: Link = { client, upstream, holding: undefined, clientGone: false };
    links.add(link);
    client.on("data", (chunk: Buffer) => {
      if (link.holding === undefined && match?.(chunk)) {
        match = undefined;
        link.holding = [];
        onHeld?.();
      }
      if (link.holding !== undefined) link.holding.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!client.destroyed) client.write(chunk);
    });
    const clientClosed = () => {
      link.clientGone = true;
      // What is held must still reach the server: keep the upstream open until release().
      if (link.holding === undefined) {
        upstream.end();
        links.delete(link);
      }
    };
    client.on("close", clientClosed);
    client.on("error", () => {});
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => {
      client.destroy();
      links.delete(link);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    holdWhen(predicate) {
      match = predicate;
      heldOnce = new Promise((resolve) => (onHeld = resolve));
    },
    held: () => heldOnce,
    async release() {
      for (const link of [...links]) {
        const held = link.holding;
        if (held === undefined) continue;
        link.holding = undefined;
        for (const chunk of held) link.upstream.write(chunk);
        if (link.clientGone) {
          // Let the server read the commands before it sees the end of the connection.
          await new Promise((resolve) => setTimeout(resolve, 300));
          link.upstream.end();
        }
      }
    },
    async close() {
      match = undefined;
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A chunk that carries a Lua script call (the commit) naming the idempotency record of `key`. */
export function commitOfKey(key: string): (chunk: Buffer) => boolean {
  const recordKey = `:idem:${Buffer.from(key, "utf8").toString("base64url")}`;
  return (chunk) => {
    const text = chunk.toString("latin1");
    return text.includes(recordKey) && /\$(7\r\nEVALSHA|4\r\nEVAL)\r\n/i.test(text);
  };
}
