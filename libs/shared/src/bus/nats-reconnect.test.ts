import assert from "node:assert/strict";
import { it } from "node:test";
import type { NatsConnection } from "@nats-io/nats-core";
import { type RunningServer, startNats } from "../../../../tests/test-support/servers.ts";
import type { Command, CommandResult, CommandType, Reply } from "../contracts/index.ts";
import type { EventBus, StoreClient } from "../engine/ports/index.ts";
import { sampleEvent, waitUntil } from "../test-support/index.ts";
import { type CommandResponder, serveCommandsOverNats } from "./command-responder.ts";
import { connectNats } from "./connect-nats.ts";
import { createNatsEventBus } from "./nats-event-bus.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";

it("recovers from a NATS restart on the same port: onReconnect fires, events and commands flow again", async () => {
  let server: RunningServer = await startNats();
  const { port, url } = server;
  const changes: string[] = [];
  const opened: NatsConnection[] = [];
  const parts: { close(): Promise<void> }[] = [];
  try {
    const storeSide = await connectNats({
      url,
      name: "model-store",
      onChange: (change) => changes.push(`store ${change}`),
    });
    const gatewaySide = await connectNats({
      url,
      name: "gateway",
      onChange: (change) => changes.push(`gateway ${change}`),
    });
    opened.push(storeSide, gatewaySide);
    const publisher: EventBus = createNatsEventBus({ connection: storeSide });
    const subscriber: EventBus = createNatsEventBus({ connection: gatewaySide });
    const responder: CommandResponder = await serveCommandsOverNats({
      connection: storeSide,
      handler: {
        async execute<T extends CommandType>(_command: Command<T>): Promise<Reply<CommandResult<T>>> {
          return { ok: true, value: { seq: 42 } } as Reply<CommandResult<T>>;
        },
      },
    });
    const client: StoreClient = createNatsStoreClient({ connection: gatewaySide, requestTimeoutMs: 2_000 });
    parts.push(client, responder, subscriber, publisher);

    const seen: number[] = [];
    let reconnects = 0;
    await subscriber.subscribe({ onEvent: (event) => seen.push(event.seq), onReconnect: () => reconnects++ });
    await publisher.publish(sampleEvent(1));
    await waitUntil(() => seen.length === 1, "the first event arrived");

    await server.stop();
    await waitUntil(() => changes.includes("gateway disconnect"), "the gateway noticed the outage");
    const duringOutage = await client.execute({ type: "GetSequence", params: {} });
    assert.equal(!duringOutage.ok && duringOutage.error.code, "unavailable", "fails fast while NATS is down");

    server = await startNats({ port });
    await waitUntil(() => reconnects === 1, "the subscriber was told to resync", 10_000);
    await waitUntil(() => changes.includes("store reconnect"), "the publisher reconnected", 10_000);

    // Core NATS drops what is published before the other side's subscription is back on the server
    // (the gateway's onReconnect resync covers that window), so publish until delivery resumes.
    let next = 2;
    await publisher.publish(sampleEvent(next));
    const republish = setInterval(() => void publisher.publish(sampleEvent(++next)).catch(() => undefined), 500);
    try {
      await waitUntil(() => seen.some((seq) => seq >= 2), "an event published after the restart arrived", 10_000);
    } finally {
      clearInterval(republish);
    }
    assert.deepEqual(await client.execute({ type: "GetSequence", params: {} }), { ok: true, value: { seq: 42 } });
    assert.equal(reconnects, 1);
  } finally {
    for (const part of parts) await part.close();
    for (const connection of opened) await connection.close();
    await server.stop();
  }
});
