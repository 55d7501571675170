/**
 * The invocation lifecycle in the engine, run against every Repository implementation (memory here,
 * Redis in the model-store): handles live in the repository, so two engines on one repository
 * behave like two model-store replicas.
 */

import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import type { ChangeEvent, Command, CommandResult, CommandType, OperationResult, Reply } from "../contracts/index.ts";
import {
  createEngine,
  createInProcessEventBus,
  createOperationProviderRegistry,
  type Engine,
  type EngineOptions,
  type Repository,
} from "../engine/index.ts";
import {
  operationsSubmodel,
  type ProviderObservations,
  registerTestOperationProviders,
  OPERATIONS_SUBMODEL_ID as SM,
} from "./operation-fixtures.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function operationsContract(name: string, makeRepository: () => Promise<Repository>): void {
  describe(`operations on ${name}`, () => {
    let repository: Repository;
    let engines: Engine[];
    let engine: Engine;
    let events: ChangeEvent[];
    let observations: ProviderObservations;

    /** A further engine on the same repository (another replica), with the same providers. */
    function startEngine(options: Partial<EngineOptions> = {}): Engine {
      const bus = createInProcessEventBus();
      void bus.subscribe({ onEvent: (e) => events.push(e) });
      const operationProviders = createOperationProviderRegistry();
      observations = registerTestOperationProviders(operationProviders).observations;
      const started = createEngine({ repository, bus, publishEvents: true, operationProviders, ...options });
      engines.push(started);
      return started;
    }

    const run = <T extends CommandType>(
      type: T,
      params: Command<T>["params"],
      on = engine,
    ): Promise<Reply<CommandResult<T>>> =>
      on.execute({ type, params, origin: "test", correlationId: "corr-1" } as Command<T>);
    async function ok<T extends CommandType>(type: T, params: Command<T>["params"], on = engine) {
      const reply = await run(type, params, on);
      assert.ok(reply.ok, `${type} failed: ${JSON.stringify(!reply.ok && reply.error)}`);
      return reply.value;
    }
    async function fails<T extends CommandType>(type: T, params: Command<T>["params"], code: string, text?: RegExp) {
      const reply = await run(type, params);
      assert.equal(reply.ok, false, `${type} should fail with ${code}`);
      if (!reply.ok) {
        assert.equal(reply.error.code, code, reply.error.message);
        if (text) assert.match(reply.error.message, text);
      }
    }
    const invoke = async (idShortPath: string, request: unknown, valueOnly = false, on = engine) =>
      (await ok(
        "InvokeOperation",
        { submodelId: SM, idShortPath, body: JSON.stringify(request), valueOnly },
        on,
      )) as OperationResult;
    const invokeAsync = async (idShortPath: string, request: unknown, on = engine) =>
      (await ok("InvokeOperationAsync", { submodelId: SM, idShortPath, body: JSON.stringify(request) }, on)).handleId;
    const status = (idShortPath: string, handleId: string, on = engine) =>
      ok("GetOperationAsyncStatus", { submodelId: SM, idShortPath, handleId }, on);
    const result = async (idShortPath: string, handleId: string, on = engine) =>
      (await ok("GetOperationAsyncResult", { submodelId: SM, idShortPath, handleId }, on)) as OperationResult;
    async function untilFinished(idShortPath: string, handleId: string, on = engine, timeoutMs = 5000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const s = await status(idShortPath, handleId, on);
        if (s.finished) return s.status;
        if (Date.now() > end) assert.fail(`${idShortPath} still ${s.status.executionState} after ${timeoutMs} ms`);
        await sleep(20);
      }
    }
    const arg = (idShort: string, valueType: string, value: string) => ({
      value: { modelType: "Property", idShort, valueType, value },
    });
    const values = (variables: { value: Record<string, unknown> }[] | undefined) =>
      Object.fromEntries((variables ?? []).map((v) => [v.value.idShort, v.value.value]));
    const operationEvents = () => events.filter((e) => e.kind.startsWith("operation."));

    before(async () => {
      repository = await makeRepository();
    });
    after(async () => {
      await repository.close();
    });
    beforeEach(async () => {
      await repository.clear();
      await repository.deleteOperationHandles();
      events = [];
      engines = [];
      engine = startEngine();
      await ok("PostSubmodel", { body: JSON.stringify(operationsSubmodel()) });
      events = [];
    });
    afterEach(async () => {
      for (const e of engines) await e.close();
    });

    test("sync, full form: outputs, in-out round trip, one invoked and one finished event with seq", async () => {
      const r = await invoke("Add", {
        inputArguments: [arg("a", "xs:int", "2"), arg("b", "xs:int", "3")],
        inoutputArguments: [arg("counter", "xs:int", "41")],
      });
      assert.equal(r.executionState, "Completed");
      assert.equal(r.success, true);
      assert.deepEqual(values(r.outputArguments), { sum: "5", big: "2000000000000000001" });
      assert.deepEqual(values(r.inoutputArguments), { counter: "42" });
      const [invoked, finished, ...rest] = operationEvents();
      assert.equal(rest.length, 0);
      assert.equal(invoked.kind, "operation.invoked");
      assert.equal(finished.kind, "operation.finished");
      for (const e of [invoked, finished]) {
        assert.equal(e.id, SM);
        assert.equal(e.idShortPath, "Add");
        assert.equal(e.origin, "test");
        assert.equal(e.correlationId, "corr-1");
      }
      assert.ok(finished.seq === invoked.seq + 1, "both are commits with consecutive sequence numbers");
      const payload = finished.payload as { invocationId: string; async: boolean; result: OperationResult };
      assert.equal(payload.invocationId, (invoked.payload as { invocationId: string }).invocationId);
      assert.equal(payload.async, false);
      assert.equal(payload.result.executionState, "Completed");
    });

    test("sync, ValueOnly: arguments by idShort, numbers keep their digits, defaults fill what is left out", async () => {
      const reply = await ok("InvokeOperation", {
        submodelId: SM,
        idShortPath: "Add",
        body: '{"inputArguments": {"a": 2}, "inoutputArguments": {"counter": 9}, "clientTimeoutDuration": "PT5S"}',
        valueOnly: true,
      });
      const text = (reply as { rawJson: string }).rawJson;
      assert.match(text, /"big":2000000000000000001\b/, "xs:long written from its lexical digits");
      const parsed = JSON.parse(text);
      assert.equal(parsed.executionState, "Completed");
      assert.deepEqual(parsed.outputArguments.sum, 9, "b defaulted to its declared value 7");
      assert.deepEqual(parsed.inoutputArguments, { counter: 10 });
      // The provider saw every declared argument, in declaration order.
      const call = observations.calls.at(-1)!;
      assert.deepEqual(
        call.inputArguments.map((e) => [e.idShort, e.value]),
        [
          ["a", "2"],
          ["b", "7"],
        ],
      );
    });

    test("an Operation inside a collection is addressed by its idShortPath", async () => {
      const r = await invoke("Folder.Echo", { inputArguments: [arg("text", "xs:string", "hello")] });
      assert.deepEqual(values(r.outputArguments), { echo: "hello" });
    });

    test("requests that do not fit the Operation are refused before anything runs", async () => {
      const body = (request: unknown) => ({ submodelId: SM, idShortPath: "Add", body: JSON.stringify(request) });
      await fails(
        "InvokeOperation",
        body({ inputArguments: [arg("c", "xs:int", "1")] }),
        "bad-request",
        /'c' is not a declared input variable.*'a', 'b'/,
      );
      await fails(
        "InvokeOperation",
        body({ inputArguments: [arg("a", "xs:string", "1")] }),
        "bad-request",
        /valueType xs:int/,
      );
      await fails(
        "InvokeOperation",
        body({ inputArguments: [{ value: { modelType: "Range", idShort: "a", valueType: "xs:int" } }] }),
        "bad-request",
        /must be a Property/,
      );
      await fails(
        "InvokeOperation",
        body({ inputArguments: [arg("a", "xs:int", "1"), arg("a", "xs:int", "2")] }),
        "bad-request",
        /more than once/,
      );
      await fails(
        "InvokeOperation",
        body({ inoutputArguments: [arg("a", "xs:int", "1")] }),
        "bad-request",
        /not a declared inoutput variable/,
      );
      await fails("InvokeOperation", body({ inputArguments: [arg("a", "xs:int", "twelve")] }), "validation");
      await fails("InvokeOperation", body({ inputArguments: { a: 1 } }), "bad-request", /list of OperationVariables/);
      await fails(
        "InvokeOperation",
        body({ inputArguments: [{ value: {}, extra: 1 }] }),
        "bad-request",
        /only "value"/,
      );
      await fails("InvokeOperation", body({ clientTimeoutDuration: "30 seconds" }), "bad-request", /xs:duration/);
      await fails("InvokeOperation", body({ clientTimeoutDuration: "-PT1S" }), "bad-request", /negative/);
      await fails("InvokeOperation", body({ requestId: "x" }), "bad-request", /Unknown property 'requestId'/);
      await fails("InvokeOperation", { submodelId: SM, idShortPath: "Add", body: "{not json" }, "bad-request");
      await fails(
        "InvokeOperation",
        { submodelId: SM, idShortPath: "Add", body: '{"inputArguments": {"a": "x"}}', valueOnly: true },
        "bad-request",
      );
      await fails(
        "InvokeOperation",
        { submodelId: SM, idShortPath: "Add", body: '{"inputArguments": {"zz": 1}}', valueOnly: true },
        "bad-request",
        /'zz' is not a declared/,
      );
      await fails(
        "InvokeOperationAsync",
        { submodelId: SM, idShortPath: "Add", body: '{"clientTimeoutDuration": "soon"}' },
        "bad-request",
      );
      await fails(
        "InvokeOperation",
        { submodelId: SM, idShortPath: "NotAnOperation", body: "{}" },
        "method-not-allowed",
        /is a Property/,
      );
      await fails("InvokeOperationAsync", { submodelId: SM, idShortPath: "Folder", body: "{}" }, "method-not-allowed");
      await fails("InvokeOperation", { submodelId: SM, idShortPath: "Missing", body: "{}" }, "not-found");
      await fails("InvokeOperation", { submodelId: "urn:nobody", idShortPath: "Add", body: "{}" }, "not-found");
      await fails("InvokeOperation", { submodelId: SM, idShortPath: "Add[", body: "{}" }, "bad-request");
      assert.equal(observations.calls.length, 0);
      assert.deepEqual(operationEvents(), [], "a refused request is not an invocation");
    });

    test("an empty body is an empty request", async () => {
      const r = (await ok("InvokeOperation", { submodelId: SM, idShortPath: "Add", body: "" })) as OperationResult;
      assert.equal(r.executionState, "Completed");
      assert.deepEqual(values(r.outputArguments).sum, "7");
    });

    test("execution failures are results: no provider, a throwing provider, a refusal, invalid outputs", async () => {
      const none = await invoke("NoProvider", {});
      assert.equal(none.executionState, "Failed");
      assert.equal(none.success, false);
      assert.match(none.messages[0].text, /No operation provider is configured for the Operation 'NoProvider'/);
      assert.equal(none.messages[0].messageType, "Error");
      const thrown = await invoke("Fail", {});
      assert.equal(thrown.executionState, "Failed");
      assert.match(thrown.messages[0].text, /the asset refused: overheated/);
      const refused = await invoke("Refuse", {});
      assert.equal(refused.executionState, "Failed");
      assert.deepEqual(refused.messages, [{ messageType: "Error", text: "the asset is busy", code: "BUSY" }]);
      const bad = await invoke("BadOutput", {});
      assert.equal(bad.executionState, "Failed");
      assert.match(bad.messages[0].text, /do not fit the Operation.*valueType xs:int/);
      assert.equal(operationEvents().filter((e) => e.kind === "operation.finished").length, 4);
    });

    test("clientTimeoutDuration bounds a sync call: Timeout, the provider is aborted, its late answer changes nothing", async () => {
      const started = Date.now();
      const r = await invoke("Slow", {
        inputArguments: [arg("delayMs", "xs:int", "3000")],
        inoutputArguments: [],
        clientTimeoutDuration: "PT0.2S",
      });
      const took = Date.now() - started;
      assert.equal(r.executionState, "Timeout");
      assert.equal(r.success, false);
      assert.ok(took >= 190 && took < 2000, `answered after ${took} ms`);
      assert.equal(observations.aborted.length, 1, "the provider's signal fired");
      const finished = operationEvents().filter((e) => e.kind === "operation.finished");
      assert.equal(finished.length, 1);
      assert.equal((finished[0].payload as { result: OperationResult }).result.executionState, "Timeout");
    });

    test("a result that arrives before the time-out stands; the time-out never replaces it", async () => {
      const r = await invoke("Slow", {
        inputArguments: [arg("delayMs", "xs:int", "20")],
        clientTimeoutDuration: "PT0.3S",
      });
      assert.equal(r.executionState, "Completed");
      await sleep(400);
      assert.equal(observations.aborted.length, 0);
      const finished = operationEvents().filter((e) => e.kind === "operation.finished");
      assert.deepEqual(
        finished.map((e) => (e.payload as { result: OperationResult }).result.executionState),
        ["Completed"],
      );
    });

    test("async: the handle goes Initiated/Running → Completed; results in both forms; the client time-out is ignored", async () => {
      const handleId = await invokeAsync("Slow", {
        inputArguments: [arg("delayMs", "xs:int", "300")],
        clientTimeoutDuration: "PT0.05S",
      });
      assert.match(handleId, /^[0-9a-f-]{36}$/);
      const early = await status("Slow", handleId);
      assert.equal(early.finished, false);
      assert.ok(["Initiated", "Running"].includes(early.status.executionState));
      const running = await result("Slow", handleId);
      assert.equal(running.outputArguments, undefined, "no arguments before the end");
      const final = await untilFinished("Slow", handleId);
      assert.deepEqual(final, { messages: [], executionState: "Completed", success: true });
      assert.deepEqual(values((await result("Slow", handleId)).outputArguments), { done: "true" });
      const valueOnly = await ok("GetOperationAsyncResult", {
        submodelId: SM,
        idShortPath: "Slow",
        handleId,
        valueOnly: true,
      });
      assert.deepEqual(JSON.parse((valueOnly as { rawJson: string }).rawJson).outputArguments, { done: true });
      const kinds = operationEvents().map((e) => [
        e.kind,
        (e.payload as { invocationId: string; async: boolean }).invocationId,
        (e.payload as { async: boolean }).async,
      ]);
      assert.deepEqual(kinds, [
        ["operation.invoked", handleId, true],
        ["operation.finished", handleId, true],
      ]);
    });

    test("past maxRunningOperations an invocation is refused (unavailable) before it starts", async () => {
      engine = startEngine({ maxRunningOperations: 2 });
      const slow = { inputArguments: [arg("delayMs", "xs:int", "300")] };
      const first = await invokeAsync("Slow", slow);
      const second = await invokeAsync("Slow", slow);
      const before = operationEvents().length;
      await fails(
        "InvokeOperationAsync",
        { submodelId: SM, idShortPath: "Slow", body: JSON.stringify(slow) },
        "unavailable",
        /2 operations are running.*core\.maxRunningOperations/,
      );
      await fails(
        "InvokeOperation",
        { submodelId: SM, idShortPath: "Slow", body: JSON.stringify(slow) },
        "unavailable",
        /maxRunningOperations/,
      );
      assert.equal(operationEvents().length, before, "nothing was invoked");
      await untilFinished("Slow", first);
      await untilFinished("Slow", second);
      assert.match(await invokeAsync("Slow", slow), /^[0-9a-f-]{36}$/, "served again once they ended");
    });

    test("async failures end Failed; in-out arguments come back on every end", async () => {
      const handleId = await invokeAsync("NoProvider", { inputArguments: [arg("x", "xs:string", "1")] });
      const final = await untilFinished("NoProvider", handleId);
      assert.equal(final.executionState, "Failed");
      assert.match(final.messages[0].text, /No operation provider/);
      const add = await invokeAsync("Add", { inoutputArguments: [arg("counter", "xs:int", "5")] });
      await untilFinished("Add", add);
      assert.deepEqual(values((await result("Add", add)).inoutputArguments), { counter: "6" });
    });

    test("a handle answers only below its own Operation; unknown handles are not found", async () => {
      const handleId = await invokeAsync("Add", {});
      await untilFinished("Add", handleId);
      await fails("GetOperationAsyncStatus", { submodelId: SM, idShortPath: "Slow", handleId }, "not-found");
      await fails(
        "GetOperationAsyncResult",
        { submodelId: SM, idShortPath: "Add", handleId: "nope" },
        "not-found",
        /unknown, or expired/,
      );
      await fails(
        "GetOperationAsyncStatus",
        { submodelId: SM, idShortPath: "Add", handleId, aasId: "urn:no-shell" },
        "not-found",
      );
    });

    test("another engine on the same repository answers for the handle (any replica, any gateway)", async () => {
      const other = startEngine();
      const handleId = await invokeAsync("Slow", { inputArguments: [arg("delayMs", "xs:int", "200")] });
      const seen = await status("Slow", handleId, other);
      assert.equal(seen.finished, false, "the runner's lease is alive: the other replica leaves it running");
      assert.equal((await untilFinished("Slow", handleId, other)).executionState, "Completed");
    });

    test("a handle whose runner is gone is marked Failed by the next reader, once", async () => {
      const record = (handleId: string, owner: string) =>
        JSON.stringify({
          handleId,
          submodelId: SM,
          idShortPath: "Slow",
          owner,
          createdAt: new Date().toISOString(),
          result: { messages: [], executionState: "Running" },
          inoutputArguments: [],
        });
      await repository.renewOperationRunner("alive-runner", 60_000);
      await repository.putOperationHandle("alive", record("alive", "alive-runner"), {
        ttlMs: 60_000,
        expectedVersion: null,
      });
      await repository.putOperationHandle("orphan", record("orphan", "crashed-runner"), {
        ttlMs: 60_000,
        expectedVersion: null,
      });
      assert.equal((await status("Slow", "alive")).finished, false);
      const orphan = await status("Slow", "orphan");
      assert.equal(orphan.finished, true);
      assert.equal(orphan.status.executionState, "Failed");
      assert.match(orphan.status.messages[0].text, /stopped before it finished/);
      await status("Slow", "orphan");
      assert.equal(operationEvents().filter((e) => e.kind === "operation.finished").length, 1, "marked once");
    });

    test("a runner whose lease lapses (its process stalled) loses its handles to the next reader", async () => {
      let stalledRenewals = false;
      // The same store, except that renewals stop arriving: a process that hangs or lost its network.
      const stallable: Repository = Object.create(repository, {
        renewOperationRunner: {
          value: (id: string, ttlMs: number) =>
            stalledRenewals ? Promise.resolve() : repository.renewOperationRunner(id, ttlMs),
        },
      });
      const stalled = startEngine({ repository: stallable, operationLeaseMs: 150 });
      const handleId = await invokeAsync("Slow", { inputArguments: [arg("delayMs", "xs:int", "60000")] }, stalled);
      await sleep(200);
      assert.equal((await status("Slow", handleId)).finished, false, "renewed while it lives");
      stalledRenewals = true;
      await sleep(250);
      const seen = await status("Slow", handleId);
      assert.equal(seen.finished, true);
      assert.equal(seen.status.executionState, "Failed");
    });

    test("closing an engine ends what it runs as Failed, visible to the other replicas", async () => {
      const other = startEngine();
      const closing = startEngine();
      const handleId = await invokeAsync("Slow", { inputArguments: [arg("delayMs", "xs:int", "60000")] }, closing);
      await status("Slow", handleId, other);
      await closing.close();
      const final = await status("Slow", handleId, other);
      assert.equal(final.finished, true);
      assert.equal(final.status.executionState, "Failed");
      assert.match(final.status.messages[0].text, /stopped before the operation finished/);
      const refused = await run("InvokeOperationAsync", { submodelId: SM, idShortPath: "Add", body: "" }, closing);
      assert.equal(!refused.ok && refused.error.code, "unavailable");
    });

    test("/reset cancels running invocations and removes every handle", async () => {
      const handleId = await invokeAsync("Slow", { inputArguments: [arg("delayMs", "xs:int", "60000")] });
      const sync = invoke("Slow", { inputArguments: [arg("delayMs", "xs:int", "60000")] });
      await sleep(50);
      await ok("ResetStore", {});
      const syncResult = await sync;
      assert.equal(syncResult.executionState, "Canceled");
      assert.equal(observations.aborted.length, 2);
      await fails("GetOperationAsyncStatus", { submodelId: SM, idShortPath: "Slow", handleId }, "not-found");
    });

    test("finished handles expire after the configured time", async () => {
      const shortLived = startEngine({ operationHandleTtlMs: 300 });
      const handleId = await invokeAsync("Add", {}, shortLived);
      await untilFinished("Add", handleId, shortLived);
      await sleep(450);
      const reply = await run("GetOperationAsyncStatus", { submodelId: SM, idShortPath: "Add", handleId }, shortLived);
      assert.equal(!reply.ok && reply.error.code, "not-found");
    });
  });
}
