import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { NatsConnection } from "@nats-io/nats-core";
import { type RunningServer, startNats } from "../../../../tests/test-support/servers.ts";
import type { Command, CommandResult, CommandType, Reply } from "../contracts/index.ts";
import { createEngine, type Engine } from "../engine/create-engine.ts";
import { createMemoryRepository } from "../engine/memory/memory-repository.ts";
import type { CommandHandler, EventBus, StoreClient } from "../engine/ports/index.ts";
import { type CommandResponder, serveCommandsOverNats } from "./command-responder.ts";
import { connectNats } from "./connect-nats.ts";
import { createNatsEventBus } from "./nats-event-bus.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";
import {
  type CachingStoreClient,
  createCachingStoreClient,
  type ReadCacheOptions,
  WRITE_EVENT_WAIT_MS,
} from "./read-cache.ts";

// The http-gateway's read cache over real NATS: a model-store side (engine on memory, events on
// NATS, responder) and gateway sides (store clients, one with the cache).
const SUBMODEL = "urn:test:read-cache";
const quiet = () => {};
const submodel = (id: string) => ({
  modelType: "Submodel",
  id,
  idShort: "Cache",
  submodelElements: [
    { modelType: "Property", idShort: "Speed", valueType: "xs:int", value: "1" },
    { modelType: "Property", idShort: "Mode", valueType: "xs:string", value: "auto" },
  ],
});
const RAW = { rawValue: true } as const;
const readSpeed = {
  type: "GetSubmodelElementByPath",
  params: { submodelId: SUBMODEL, idShortPath: "Speed", modifiers: { content: "value" } },
} as Command<"GetSubmodelElementByPath">;
const patchSpeed = (value: number): Command<"PatchSubmodelElementValueByPath"> => ({
  type: "PatchSubmodelElementValueByPath",
  params: { submodelId: SUBMODEL, idShortPath: "Speed", body: String(value) },
  origin: "http",
});

function speedOf(reply: Reply<unknown>): number {
  assert.ok(reply.ok, JSON.stringify(reply));
  return (JSON.parse((reply.value as { rawJson: string }).rawJson) as { Speed: number }).Speed;
}

/** A gateway side over `connection`: its event bus and caching store client; `closers` gets their teardown. */
async function cachingGateway(
  connection: NatsConnection,
  closers: (() => Promise<void>)[],
  options: Omit<ReadCacheOptions, "bus">,
): Promise<CachingStoreClient> {
  const bus = createNatsEventBus({ connection });
  const client = await createCachingStoreClient(createNatsStoreClient({ connection }), { ...options, bus });
  closers.push(async () => {
    await client.close();
    await bus.close();
  });
  return client;
}

describe("read cache in front of the model-store", () => {
  let server: RunningServer;
  const connections: NatsConnection[] = [];
  let engine: Engine;
  let responder: CommandResponder;
  /** Reads of the Mode property are answered this many ms late (after the engine read them). */
  let slowModeMs = 0;
  let cache: CachingStoreClient;
  let elsewhere: StoreClient;
  const closers: (() => Promise<void>)[] = [];

  const connection = async (name: string) => {
    const made = await connectNats({ url: server.url, name, onChange: quiet });
    connections.push(made);
    return made;
  };
  const cachingClient = async (maxAgeMs: number, maxBytes = 1024 * 1024) =>
    cachingGateway(await connection("gateway"), closers, { maxAgeMs, maxBytes });

  before(async () => {
    server = await startNats();
    const storeSide = await connection("model-store");
    const events = createNatsEventBus({ connection: storeSide });
    engine = createEngine({ repository: createMemoryRepository(), bus: events, validation: false });
    const handler: CommandHandler = {
      async execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
        const reply = await engine.execute(command);
        const params = command.params as { idShortPath?: string };
        if (slowModeMs > 0 && command.type === "GetSubmodelElementByPath" && params.idShortPath === "Mode")
          await new Promise((resolve) => setTimeout(resolve, slowModeMs));
        return reply;
      },
    };
    responder = await serveCommandsOverNats({ connection: storeSide, handler, onError: quiet });
    closers.push(async () => {
      await responder.close();
      await events.close();
    });
    const created = await engine.execute({
      type: "PostSubmodel",
      params: { body: JSON.stringify(submodel(SUBMODEL)) },
    });
    assert.ok(created.ok, JSON.stringify(created));
    cache = await cachingClient(60_000);
    elsewhere = createNatsStoreClient({ connection: await connection("other-gateway") });
    closers.push(() => elsewhere.close());
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    await Promise.all(connections.map((c) => c.close()));
    await server?.stop();
  });

  it("answers a repeated read from the cache, with the same value and revision", async () => {
    const first = await cache.execute(readSpeed, RAW);
    const before = cache.stats();
    const second = await cache.execute(readSpeed, RAW);
    assert.deepEqual(second, first);
    assert.equal(cache.stats().hits, before.hits + 1);
    // Without rawValue (a reply the gateway would look into) the cache stays out of the way.
    const plain = await cache.execute(readSpeed);
    assert.equal(cache.stats().hits, before.hits + 1);
    assert.ok(plain.ok);
  });

  it("a read right after the gateway's own write always sees the write", async () => {
    for (let value = 100; value < 150; value++) {
      await cache.execute(readSpeed, RAW); // cached: the previous value
      const written = await cache.execute(patchSpeed(value));
      assert.ok(written.ok, JSON.stringify(written));
      assert.equal(speedOf(await cache.execute(readSpeed, RAW)), value);
    }
  });

  it("a write through another gateway reaches the cache by its event", async () => {
    await cache.execute(readSpeed, RAW);
    const written = await elsewhere.execute(patchSpeed(777));
    assert.ok(written.ok);
    const started = Date.now();
    while (speedOf(await cache.execute(readSpeed, RAW)) !== 777) {
      assert.ok(Date.now() - started < 2000, "the cache kept the old value for 2 s");
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  });

  it("a read overtaken by a write does not put the old value into the cache", async () => {
    const readMode = {
      type: "GetSubmodelElementByPath",
      params: { submodelId: SUBMODEL, idShortPath: "Mode", modifiers: { content: "value" } },
    } as Command;
    const write = {
      type: "PatchSubmodelElementValueByPath",
      params: { submodelId: SUBMODEL, idShortPath: "Mode", body: '"manual"' },
      origin: "http",
    } as Command;
    slowModeMs = 150;
    try {
      const slowRead = cache.execute(readMode, RAW); // reads "auto", answers 150 ms later
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.ok((await elsewhere.execute(write)).ok);
      const stale = await slowRead;
      assert.ok(stale.ok && (stale.value as { rawJson: string }).rawJson.includes("auto"));
    } finally {
      slowModeMs = 0;
    }
    const now = await cache.execute(readMode, RAW);
    assert.ok(now.ok && (now.value as { rawJson: string }).rawJson.includes("manual"), JSON.stringify(now));
  });

  it("lists are invalidated by a change to any identifiable of their kind", async () => {
    const list = { type: "GetAllSubmodels", params: { modifiers: { content: "reference" } } } as Command;
    const count = async () => {
      const reply = await cache.execute(list, { rawValue: "items" });
      assert.ok(reply.ok);
      return (JSON.parse((reply.value as { items: { rawJson: string } }).items.rawJson) as unknown[]).length;
    };
    const before = await count();
    assert.equal(await count(), before);
    assert.ok(
      (
        await elsewhere.execute({
          type: "PostSubmodel",
          params: { body: JSON.stringify(submodel("urn:test:read-cache:second")) },
        })
      ).ok,
    );
    const started = Date.now();
    while ((await count()) !== before + 1) {
      assert.ok(Date.now() - started < 2000, "the list stayed stale");
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  });

  it("a heartbeat ahead of the last event received clears everything", async () => {
    await cache.execute(readSpeed, RAW);
    assert.ok(cache.stats().entries > 0);
    const sequence = await engine.execute({ type: "GetSequence", params: {} });
    assert.ok(sequence.ok);
    const storeSide = await connection("heartbeat-sender");
    const bus = createNatsEventBus({ connection: storeSide });
    await bus.publishHeartbeat({ seq: (sequence.value as { seq: number }).seq + 5, time: new Date().toISOString() });
    const started = Date.now();
    while (cache.stats().entries > 0) {
      assert.ok(Date.now() - started < 2000, "entries survived a sequence gap");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await bus.close();
  });

  it("serves nothing older than maxAgeMs, and keeps its size under maxBytes", async () => {
    const short = await cachingClient(100, 8192);
    await short.execute(readSpeed, RAW);
    await short.execute(readSpeed, RAW);
    assert.equal(short.stats().hits, 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await short.execute(readSpeed, RAW);
    assert.equal(short.stats().hits, 1, "an answer older than maxAgeMs was served");
    for (let i = 0; i < 40; i++) {
      await short.execute(
        {
          type: "GetSubmodelById",
          params: {
            submodelId: SUBMODEL,
            modifiers: { level: "deep", extent: `withoutBlobValue`, content: "normal" },
            i,
          } as never,
        },
        RAW,
      );
      assert.ok(short.stats().bytes <= 8192, `${short.stats().bytes} bytes cached`);
    }
    // Bounded by evicting the least recently used, not by refusing to cache.
    assert.ok(short.stats().entries >= 2 && short.stats().entries < 40, JSON.stringify(short.stats()));
  });
});

describe("read cache across gateways, with events trailing the replies (the Redis outbox relay)", () => {
  const RELAY_LAG_MS = 25;
  let server: RunningServer;
  const connections: NatsConnection[] = [];
  const closers: (() => Promise<void>)[] = [];
  let gatewayA: CachingStoreClient;
  let gatewayB: CachingStoreClient;
  /** Events of these values are never published (a relay that lost them). */
  const dropEventsOf = new Set<string>();

  const connection = async (name: string) => {
    const made = await connectNats({ url: server.url, name, onChange: quiet });
    connections.push(made);
    return made;
  };
  const cachingClient = async (name: string) =>
    cachingGateway(await connection(name), closers, { maxAgeMs: 60_000, maxBytes: 1024 * 1024 });

  before(async () => {
    server = await startNats();
    const storeSide = await connection("model-store");
    const events = createNatsEventBus({ connection: storeSide });
    // Like the outbox relay: each event goes out on NATS a while after the write was answered.
    const relay: EventBus = {
      ...events,
      async publish(event) {
        const payload = JSON.stringify(event.payload ?? "");
        if ([...dropEventsOf].some((value) => payload.includes(value))) return;
        setTimeout(() => void events.publish(event), RELAY_LAG_MS);
      },
    };
    const engine = createEngine({ repository: createMemoryRepository(), bus: relay, validation: false });
    const responder = await serveCommandsOverNats({ connection: storeSide, handler: engine, onError: quiet });
    closers.push(async () => {
      await responder.close();
      await events.close();
    });
    assert.ok(
      (await engine.execute({ type: "PostSubmodel", params: { body: JSON.stringify(submodel(SUBMODEL)) } })).ok,
    );
    gatewayA = await cachingClient("gateway-a");
    gatewayB = await cachingClient("gateway-b");
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    await Promise.all(connections.map((c) => c.close()));
    await server?.stop();
  });

  it("a write through one gateway is read back through the other at once, though its event trails the reply", async () => {
    for (let value = 200; value < 230; value++) {
      await gatewayB.execute(readSpeed, RAW); // B holds the previous value
      const written = await gatewayA.execute(patchSpeed(value));
      assert.ok(written.ok && typeof written.seq === "number", JSON.stringify(written));
      assert.equal(speedOf(await gatewayB.execute(readSpeed, RAW)), value, `gateway B after write ${value}`);
      assert.equal(speedOf(await gatewayA.execute(readSpeed, RAW)), value, `gateway A after write ${value}`);
    }
    assert.ok(gatewayB.stats().hits > 0, "B still answers repeated reads from its cache");
  });

  it("a write whose event never comes is answered after the bounded wait; until the stream catches up the cache is bypassed and writes do not wait", async () => {
    dropEventsOf.add("4242");
    dropEventsOf.add("4343");
    try {
      let started = Date.now();
      assert.ok((await gatewayA.execute(patchSpeed(4242))).ok);
      let took = Date.now() - started;
      assert.ok(took >= WRITE_EVENT_WAIT_MS - 50 && took < WRITE_EVENT_WAIT_MS + 2000, `answered after ${took} ms`);
      assert.equal(gatewayA.stats().lagging, true);
      // The stream is behind: the next write does not wait again, and reads go to the store.
      started = Date.now();
      assert.ok((await gatewayA.execute(patchSpeed(4343))).ok);
      took = Date.now() - started;
      assert.ok(took < WRITE_EVENT_WAIT_MS - 100, `the second write waited ${took} ms`);
      const hits = gatewayA.stats().hits;
      assert.equal(speedOf(await gatewayA.execute(readSpeed, RAW)), 4343);
      assert.equal(speedOf(await gatewayA.execute(readSpeed, RAW)), 4343);
      assert.equal(gatewayA.stats().hits, hits, "nothing served from the cache while lagging");
    } finally {
      dropEventsOf.clear();
    }
    // An event past the lost ones: the stream has caught up, the cache serves again.
    assert.ok((await gatewayA.execute(patchSpeed(4444))).ok); // not waited for: the cache was lagging
    const started = Date.now();
    while (gatewayA.stats().lagging) {
      assert.ok(Date.now() - started < 2000, "still lagging after a later event arrived");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await gatewayA.execute(readSpeed, RAW);
    const hits = gatewayA.stats().hits;
    assert.equal(speedOf(await gatewayA.execute(readSpeed, RAW)), 4444);
    assert.equal(gatewayA.stats().hits, hits + 1);
  });

  it("a store that sent heartbeats and then falls silent (its relay died) is not trusted: no hits until it speaks again", async () => {
    const client = await cachingGateway(await connection("gateway-silence"), closers, {
      maxAgeMs: 60_000,
      maxBytes: 1024 * 1024,
      streamSilenceMs: 300,
    });
    const heartbeats = createNatsEventBus({ connection: await connection("relay-heartbeats") });
    closers.push(() => heartbeats.close());
    const sequence = await gatewayA.execute({ type: "GetSequence", params: {} } as Command);
    assert.ok(sequence.ok);
    const seq = (sequence.value as { seq: number }).seq;
    await heartbeats.publishHeartbeat({ seq, time: new Date().toISOString() });
    await client.execute(readSpeed, RAW);
    await client.execute(readSpeed, RAW);
    assert.equal(client.stats().hits, 1);
    await new Promise((resolve) => setTimeout(resolve, 450));
    assert.equal(client.stats().lagging, true);
    await client.execute(readSpeed, RAW);
    assert.equal(client.stats().hits, 1, "served from the cache while the store was silent");
    await heartbeats.publishHeartbeat({ seq, time: new Date().toISOString() });
    const started = Date.now();
    while (client.stats().lagging) {
      assert.ok(Date.now() - started < 2000, "still lagging after a heartbeat");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await client.execute(readSpeed, RAW);
    await client.execute(readSpeed, RAW);
    assert.ok(client.stats().hits > 1);
  });
});
