/**
 * Idempotency-Key handling of the engine (docs/adr/0017), run against every Repository
 * implementation: a keyed write runs once, repeats get the first reply, in one engine and across
 * engines (replicas) sharing the repository.
 */

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { ChangeEvent, Command, CommandType, Reply } from "../contracts/index.ts";
import { createIdempotency, MAX_KEPT_REPLY_CHARS } from "../engine/idempotency.ts";
import { createEngine, createInProcessEventBus, type Engine, type Repository } from "../engine/index.ts";
import { EXAMPLE_MODEL_TEXT } from "./example-model.ts";

const SUBMODEL = "https://example.org/submodels/technical-data-1";

export function idempotencyContract(name: string, makeRepository: () => Promise<Repository>): void {
  describe(`idempotency keys on ${name}`, () => {
    let repository: Repository;
    let engine: Engine;
    let events: ChangeEvent[];
    let n = 0;
    let key: string;

    const keyed = <T extends CommandType>(
      type: T,
      params: Command<T>["params"],
      fingerprint = `fp-${type}`,
      k = key,
    ): Command<T> => ({ type, params, origin: "test", idempotency: { key: k, fingerprint } }) as Command<T>;
    const tags = async (on: Engine = engine) => {
      const reply = await on.execute({
        type: "GetSubmodelElementByPath",
        params: { submodelId: SUBMODEL, idShortPath: "Tags" },
      });
      assert.ok(reply.ok);
      return (reply.value as { value?: unknown[] }).value ?? [];
    };
    const deleteFirstTag = () => keyed("DeleteSubmodelElementByPath", { submodelId: SUBMODEL, idShortPath: "Tags[0]" });
    const postProperty = (idShort: string, fingerprint?: string) =>
      keyed(
        "PostSubmodelElement",
        {
          submodelId: SUBMODEL,
          body: JSON.stringify({ modelType: "Property", idShort, valueType: "xs:int", value: "1" }),
        },
        fingerprint,
      );

    before(async () => {
      repository = await makeRepository();
    });
    after(async () => {
      await repository.close();
    });
    beforeEach(async () => {
      await repository.clear();
      const bus = createInProcessEventBus();
      events = [];
      await bus.subscribe({ onEvent: (e) => events.push(e) });
      engine = createEngine({ repository, bus });
      const loaded = await engine.execute({ type: "LoadEnvironment", params: { body: EXAMPLE_MODEL_TEXT } });
      assert.ok(loaded.ok);
      events.length = 0;
      key = `key-${++n}-${Date.now()}`;
    });

    test("DELETE List[0] repeated with the same key deletes one item and answers the same", async () => {
      const before = await tags();
      const first = await engine.execute(deleteFirstTag());
      const second = await engine.execute(deleteFirstTag());
      assert.ok(first.ok, JSON.stringify(first));
      assert.deepEqual(second, first);
      assert.equal((await tags()).length, before.length - 1);
      assert.equal(events.length, 1);
      // Without a key the same command does delete again: the key made the difference.
      const unkeyed = await engine.execute({
        type: "DeleteSubmodelElementByPath",
        params: { submodelId: SUBMODEL, idShortPath: "Tags[0]" },
      });
      assert.ok(unkeyed.ok);
      assert.equal((await tags()).length, before.length - 2);
    });

    test("POST repeated with the same key creates one element; both replies are the same", async () => {
      const first = await engine.execute(postProperty("Once"));
      const second = await engine.execute(postProperty("Once"));
      assert.ok(first.ok, JSON.stringify(first));
      assert.deepEqual(second, first);
      assert.equal(events.filter((e) => e.kind === "element.created").length, 1);
    });

    test("a reply larger than a key keeps is not stored; the repeat still runs nothing and says it was committed", async () => {
      const big = "x".repeat(MAX_KEPT_REPLY_CHARS + 1);
      const post = keyed("PostSubmodelElement", {
        submodelId: SUBMODEL,
        body: JSON.stringify({ modelType: "Property", idShort: "Big", valueType: "xs:string", value: big }),
      });
      const first = await engine.execute(post);
      assert.ok(first.ok, JSON.stringify(first).slice(0, 300));
      const record = await repository.getIdempotencyRecord(key);
      assert.ok(record, "the key is claimed");
      assert.equal(record.reply, undefined, "the 256 KiB+ reply is not kept");
      const repeat = await engine.execute(post);
      assert.equal(!repeat.ok && repeat.error.code, "conflict");
      assert.match(!repeat.ok ? repeat.error.message : "", /committed .* larger than the 256 KiB a key keeps/);
      assert.equal(events.filter((e) => e.kind === "element.created").length, 1, "it ran once");
    });

    test("the same key with a different request is refused (unprocessable) and writes nothing", async () => {
      assert.ok((await engine.execute(postProperty("First", "fp-1"))).ok);
      const other = await engine.execute(postProperty("Second", "fp-2"));
      assert.equal(other.ok, false);
      assert.equal(!other.ok && other.error.code, "unprocessable");
      const missing = await engine.execute({
        type: "GetSubmodelElementByPath",
        params: { submodelId: SUBMODEL, idShortPath: "Second" },
      });
      assert.equal(!missing.ok && missing.error.code, "not-found");
    });

    test("concurrent duplicates: exactly one runs; the others answer its reply or 409", async () => {
      const before = await tags();
      const second = createEngine({ repository });
      const replies = await Promise.all(
        [engine, second, engine, second, engine].map((e) => e.execute(deleteFirstTag())),
      );
      assert.equal((await tags()).length, before.length - 1);
      const ok = replies.filter((r) => r.ok);
      assert.ok(ok.length >= 1, JSON.stringify(replies));
      for (const reply of replies) {
        if (reply.ok) assert.deepEqual(reply, ok[0]);
        else assert.equal(reply.error.code, "conflict", reply.error.message);
      }
      // Once the first answered, every repeat gets its reply.
      assert.deepEqual(await second.execute(deleteFirstTag()), ok[0]);
      await second.close();
    });

    test("a duplicate that looked for the key before the first committed answers the first outcome, not the conflict it ran into", async () => {
      // The replica read "no such key", then the first committed, then the replica's own POST found
      // the element there: it answered 409 "already exists", a final-looking conflict with somebody
      // else's data (a black-box finding, both gateways at once).
      let firstDone!: () => void;
      const done = new Promise<void>((resolve) => (firstDone = resolve));
      const late: Repository = Object.create(repository, {
        getIdempotencyRecord: {
          value: async (k: string) => {
            const record = await repository.getIdempotencyRecord(k);
            await done;
            return record;
          },
        },
      });
      const replica = createEngine({ repository: late });
      const duplicate = replica.execute(postProperty("RacedTwice"));
      const first = await engine.execute(postProperty("RacedTwice"));
      assert.ok(first.ok, JSON.stringify(first));
      firstDone();
      assert.deepEqual(await duplicate, first);
      await replica.close();
    });

    test("a repeat while the first is still running in this engine answers 409; once it answered, its reply", async () => {
      let releaseCommit!: () => void;
      const gate = new Promise<void>((resolve) => (releaseCommit = resolve));
      const slow: Repository = Object.create(repository, {
        commit: { value: async (c: Parameters<Repository["commit"]>[0]) => (await gate, repository.commit(c)) },
      });
      const slowEngine = createEngine({ repository: slow });
      const first = slowEngine.execute(deleteFirstTag());
      await new Promise((resolve) => setTimeout(resolve, 50));
      const meanwhile = await slowEngine.execute(deleteFirstTag());
      assert.equal(!meanwhile.ok && meanwhile.error.code, "conflict");
      releaseCommit();
      const answered = await first;
      assert.ok(answered.ok);
      assert.deepEqual(await slowEngine.execute(deleteFirstTag()), answered);
      await slowEngine.close();
    });

    test("repeats arriving together after the first answered all get its reply (none counts as running)", async () => {
      const answered = await engine.execute(deleteFirstTag());
      assert.ok(answered.ok);
      // The record read takes a turn of its own here, so every repeat is between lookup and answer at once.
      const slowReads: Repository = Object.create(repository, {
        getIdempotencyRecord: {
          value: async (k: string) => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            return await repository.getIdempotencyRecord(k);
          },
        },
      });
      const replica = createEngine({ repository: slowReads });
      const repeats = await Promise.all(Array.from({ length: 4 }, () => replica.execute(deleteFirstTag())));
      for (const reply of repeats) assert.deepEqual(reply, answered);
      await replica.close();
    });

    test("a repeat through another engine (replica) on the same repository gets the first reply", async () => {
      const replica = createEngine({ repository });
      const first = await engine.execute(postProperty("Replicated"));
      assert.deepEqual(await replica.execute(postProperty("Replicated")), first);
      assert.equal(events.filter((e) => e.kind === "element.created").length, 1);
      await replica.close();
    });

    test("a failure that wrote nothing is not remembered: the repeat runs", async () => {
      const missing = keyed("DeleteSubmodelElementByPath", { submodelId: SUBMODEL, idShortPath: "Later" });
      const first = await engine.execute(missing);
      assert.equal(!first.ok && first.error.code, "not-found");
      const created = await engine.execute({
        type: "PostSubmodelElement",
        params: {
          submodelId: SUBMODEL,
          body: JSON.stringify({ modelType: "Property", idShort: "Later", valueType: "xs:int" }),
        },
      });
      assert.ok(created.ok);
      const repeat = await engine.execute(missing);
      assert.ok(repeat.ok, JSON.stringify(repeat));
    });

    test("reads ignore the key; an invalid key is a bad request", async () => {
      const read = await engine.execute(
        keyed("GetSubmodelElementByPath", { submodelId: SUBMODEL, idShortPath: "Tags" }),
      );
      assert.ok(read.ok);
      const tooLong = await engine.execute(
        keyed("DeleteSubmodelElementByPath", { submodelId: SUBMODEL, idShortPath: "Tags[0]" }, "fp", "k".repeat(300)),
      );
      assert.equal(!tooLong.ok && tooLong.error.code, "bad-request");
    });

    test("committed but the reply was never stored (the process died): a repeat gets the reply rebuilt from the commit, and nothing runs again", async () => {
      const before = await tags();
      // The first engine commits, then "dies" before storing its reply.
      const dying: Repository = Object.create(repository, {
        putIdempotencyReply: { value: async () => Promise.reject(new Error("process died")) },
      });
      const first = await createEngine({ repository: dying }).execute(deleteFirstTag());
      assert.ok(first.ok);
      assert.equal((await repository.getIdempotencyRecord(key))?.reply, undefined);
      const rebuilder = createIdempotency(repository, { windowMs: 60_000 });
      const rebuilt = await rebuilder.execute(
        deleteFirstTag(),
        async (): Promise<Reply<unknown>> => assert.fail("a committed command must not run again"),
      );
      assert.deepEqual(rebuilt, first);
      assert.deepEqual(await engine.execute(deleteFirstTag()), first);
      assert.equal((await tags()).length, before.length - 1);

      // A POST is rebuilt with the created element, from the commit's event.
      key = `${key}-post`;
      const post = postProperty("Rebuilt");
      const created = await createEngine({ repository: dying }).execute(post);
      assert.ok(created.ok);
      assert.deepEqual(
        await rebuilder.execute(post, async (): Promise<Reply<unknown>> => assert.fail("must not run again")),
        created,
      );

      // A write whose reply does not follow from its commit (here: two commits) answers 409 instead.
      key = `${key}-two`;
      const sm = "https://example.org/submodels/identification-1";
      const shells = await engine.execute({ type: "GetAllAssetAdministrationShells", params: {} });
      const shell = (
        (shells.ok ? shells.value.items : []) as { id: string; submodels?: { keys: { value: string }[] }[] }[]
      ).find((s) => s.submodels?.some((r) => r.keys[0]?.value === sm));
      assert.ok(shell, "a shell refers to the submodel");
      const scoped = keyed("DeleteSubmodelById", { submodelId: sm, aasId: shell.id });
      assert.ok((await createEngine({ repository: dying }).execute(scoped)).ok);
      const unknown = await rebuilder.execute(
        scoped,
        async (): Promise<Reply<unknown>> => assert.fail("must not run again"),
      );
      assert.equal(!unknown.ok && unknown.error.code, "conflict");
    });
  });
}
