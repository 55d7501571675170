import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NatsConnection } from "@nats-io/nats-core";
import { natsForSuite } from "../../../../tests/test-support/nats-for-suite.ts";
import type { Command, CommandResult, CommandType, Reply } from "../contracts/index.ts";
import { replicaCommandSubject } from "../contracts/subjects.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import { serveCommandsOverNats } from "./command-responder.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";
import { partitionKeyOf, pickReplica } from "./replica-routing.ts";

const quiet = () => {};
const keys = Array.from({ length: 1_000 }, (_, i) => `urn:example:submodel:${i}`);

describe("replica routing: rendezvous hashing", () => {
  it("spreads keys over the replicas and moves only the keys of a replica that leaves", () => {
    const three = ["r-a", "r-b", "r-c"];
    const before = new Map(keys.map((k) => [k, pickReplica(three, k)!]));
    const counts = three.map((id) => [...before.values()].filter((v) => v === id).length);
    for (const n of counts) assert.ok(n > 250 && n < 420, `an even spread over 3 replicas (${counts})`);
    // The order the replicas are listed in does not matter.
    for (const k of keys.slice(0, 50)) assert.equal(pickReplica([...three].reverse(), k), before.get(k));
    const two = ["r-a", "r-c"];
    for (const k of keys) {
      const now = pickReplica(two, k)!;
      if (before.get(k) !== "r-b") assert.equal(now, before.get(k), `${k} stays where it was`);
      else assert.ok(two.includes(now));
    }
    assert.equal(pickReplica([], "x"), undefined);
  });

  it("routes by the submodel, else the shell or concept description", () => {
    const cmd = (params: object) => ({ type: "GetSequence", params }) as unknown as Command;
    assert.equal(partitionKeyOf(cmd({ submodelId: "sm", aasId: "aas" })), "sm");
    assert.equal(partitionKeyOf(cmd({ aasId: "aas" })), "aas");
    assert.equal(partitionKeyOf(cmd({ cdId: "cd" })), "cd");
    assert.equal(partitionKeyOf(cmd({})), undefined);
  });
});

describe("replica routing over NATS (two model-store replicas)", () => {
  const { connection } = natsForSuite();

  const read = (client: ReturnType<typeof createNatsStoreClient>, submodelId: string) =>
    client.execute({ type: "GetSubmodelById", params: { submodelId } });

  it("sends each submodel's commands to one replica, uses both, and fails over when one dies", async () => {
    const handlers = [recordingHandler("a"), recordingHandler("b")];
    const sides = [await connection("store-a"), await connection("store-b")];
    const responders = await Promise.all(
      handlers.map((handler, i) => serveCommandsOverNats({ connection: sides[i]!, handler, onError: quiet })),
    );
    const client = createNatsStoreClient({ connection: await connection("gateway"), requestTimeoutMs: 5_000 });
    try {
      // The client asked who is there when it started; the answers arrive within a round trip.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const submodels = keys.slice(0, 40);
      for (let round = 0; round < 3; round++) {
        const replies = await Promise.all(submodels.map((id) => read(client, id)));
        for (const reply of replies) assert.equal(reply.ok, true);
      }
      const servedBy = new Map<string, Set<string>>();
      for (const h of handlers)
        for (const id of h.seen) (servedBy.get(id) ?? servedBy.set(id, new Set()).get(id)!).add(h.name);
      for (const id of submodels) assert.equal(servedBy.get(id)?.size, 1, `${id} always reached the same replica`);
      const split = handlers.map((h) => h.seen.length);
      assert.ok(
        split.every((n) => n >= 15),
        `both replicas served their share (${split}); the queue group alone would mix each submodel's commands`,
      );
      assert.deepEqual(
        new Set(submodels.map((id) => pickReplica([responders[0]!.replicaId, responders[1]!.replicaId].sort(), id))),
        new Set([responders[0]!.replicaId, responders[1]!.replicaId]),
      );

      // Replica b dies without a goodbye: its submodels are served by a at once (no responders → queue group).
      await sides[1]!.close();
      // Once the server has noticed: a request sent in the moment between the socket closing and the
      // server dropping its subscription reaches nobody and times out (504, outcome unknown), as for
      // a killed process. Under load that moment lasts long enough to be hit, so wait it out.
      await untilNoResponders(
        await connection("probe"),
        replicaCommandSubject(responders[1]!.replicaId, "GetSubmodelById"),
      );
      const afterDeath = await Promise.all(submodels.map((id) => read(client, id)));
      for (const reply of afterDeath) assert.equal(reply.ok, true, JSON.stringify(reply));
      assert.equal(handlers[0]!.seen.length, split[0]! + submodels.length, "replica a served every submodel");
    } finally {
      await client.close();
      await responders[0]!.close();
    }
  });

  it("a replica that stops says goodbye, and a new one gets its share", async () => {
    const a = recordingHandler("a");
    const b = recordingHandler("b");
    const first = await serveCommandsOverNats({ connection: await connection("store-a2"), handler: a, onError: quiet });
    const client = createNatsStoreClient({ connection: await connection("gateway2"), requestTimeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await serveCommandsOverNats({
      connection: await connection("store-b2"),
      handler: b,
      onError: quiet,
    });
    try {
      // The newcomer announced itself when it started: the client routes to it without a query.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await Promise.all(keys.slice(0, 40).map((id) => read(client, id)));
      assert.ok(b.seen.length >= 10, `the new replica serves its share (${b.seen.length} of 40)`);
      await second.close();
      const before = a.seen.length;
      const replies = await Promise.all(keys.slice(0, 40).map((id) => read(client, id)));
      for (const reply of replies) assert.equal(reply.ok, true);
      assert.equal(a.seen.length, before + 40);
    } finally {
      await client.close();
      await first.close();
    }
  });
});

function recordingHandler(name: string): CommandHandler & { name: string; seen: string[] } {
  const seen: string[] = [];
  return {
    name,
    seen,
    async execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
      seen.push((command.params as { submodelId: string }).submodelId);
      return { ok: true, value: { replica: name } } as Reply<CommandResult<T>>;
    },
  };
}

/** Resolves once nobody subscribes to `subject` any more (the server answers "no responders"). */
async function untilNoResponders(probe: NatsConnection, subject: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await probe.request(subject, new Uint8Array(), { timeout: 250 });
    } catch (error) {
      if (/no responders/i.test((error as Error).message)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${subject} still has a subscriber`);
}
