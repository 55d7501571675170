/** Test support for the bus tests (libs/shared/src/bus): a real nats-server for one describe block. */
import { after, before } from "node:test";
import type { NatsConnection } from "@nats-io/nats-core";
import { connectNats } from "@twinport/shared";
import { type RunningServer, startNats } from "./servers.ts";

/**
 * Starts a nats-server before the enclosing describe block's tests and stops it after them, with
 * every connection `connection` made (already closed ones are left as they are: a test may close
 * one to play a process that went away).
 */
export function natsForSuite(): { connection(name: string): Promise<NatsConnection> } {
  let server: RunningServer;
  const connections: NatsConnection[] = [];
  before(async () => {
    server = await startNats();
  });
  after(async () => {
    await Promise.all(connections.map((c) => (c.isClosed() ? undefined : c.close())));
    await server?.stop();
  });
  return {
    async connection(name) {
      const made = await connectNats({ url: server.url, name, onChange: () => {} });
      connections.push(made);
      return made;
    },
  };
}
