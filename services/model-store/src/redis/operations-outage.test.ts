import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type Command,
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createOperationProviderRegistry,
  type Engine,
  type StoreClient,
} from "@twinport/shared";
import { type RunningServer, startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository } from "./redis-repository.ts";

/**
 * An Operation whose end falls into a Redis outage (killed, then started again on its data): the
 * asset ran, so its result is not lost, its caller is not told 503 ("surely did not run"), and a
 * repeat with the same Idempotency-Key does not run the asset a second time. Real redis-server with
 * AOF and fsync always, killed with SIGKILL as a crash would.
 */
const SUBMODEL = "urn:test:operations-outage";
let redis: RunningServer;
let engine: Engine;
let repository: Awaited<ReturnType<typeof createRedisRepository>>;
let store: StoreClient;
let calls = 0;
/** Lets the provider's current run answer. */
let finish: (() => void) | undefined;

before(async () => {
  redis = await startRedis({ appendOnly: true });
  const providers = createOperationProviderRegistry();
  providers.register(SUBMODEL, "Move", {
    async invoke() {
      calls++;
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return { outputArguments: [{ modelType: "Property", idShort: "done", valueType: "xs:boolean", value: "true" }] };
    },
  });
  repository = await createRedisRepository({ url: redis.url, keyPrefix: "operations-outage" });
  engine = createEngine({
    repository,
    bus: createInProcessEventBus(),
    operationProviders: providers,
  });
  store = createDirectStoreClient(engine);
  const submodel = {
    modelType: "Submodel",
    id: SUBMODEL,
    submodelElements: [
      {
        modelType: "Operation",
        idShort: "Move",
        outputVariables: [{ value: { modelType: "Property", idShort: "done", valueType: "xs:boolean" } }],
      },
    ],
  };
  const posted = await store.execute({ type: "PostSubmodel", params: { body: JSON.stringify(submodel) } } as Command);
  assert.ok(posted.ok, JSON.stringify(posted));
});

after(async () => {
  await store?.close();
  await engine?.close();
  await repository?.close();
  await redis?.stop();
});

/** Kills Redis while the provider runs, lets the provider answer, and starts Redis again on its data after `downMs`. */
async function outageWhileRunning(downMs: number): Promise<void> {
  const started = calls;
  for (let waited = 0; calls === started || finish === undefined; waited += 20) {
    if (waited > 10_000) throw new Error("the provider was not called");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.kill(redis.pid, "SIGKILL");
  await new Promise((resolve) => setTimeout(resolve, 300));
  const answer = finish;
  finish = undefined;
  answer();
  await new Promise((resolve) => setTimeout(resolve, downMs));
  redis = await startRedis({ appendOnly: true, port: redis.port, dir: redis.dir });
}

const address = { submodelId: SUBMODEL, idShortPath: "Move" };
/** An operation's answer travels as its JSON text (`rawJson`), as the gateways pass it on. */
const resultOf = (value: unknown) =>
  JSON.parse((value as { rawJson: string }).rawJson) as { executionState?: string; outputArguments?: unknown };
const body = JSON.stringify({ clientTimeoutDuration: "PT30S" });

test("a synchronous call whose end falls into an outage answers its result; its repeat does not run the asset again", async () => {
  const command = {
    type: "InvokeOperation",
    params: { ...address, body, valueOnly: true },
    idempotency: { key: "outage-sync-1", fingerprint: "f1" },
  } as Command;
  const invoking = store.execute(command);
  await outageWhileRunning(2000);
  const reply = await invoking;
  assert.ok(reply.ok, `the asset ran; the answer was ${JSON.stringify(reply)}`);
  assert.equal(resultOf(reply.value).executionState, "Completed");
  assert.deepEqual(resultOf(reply.value).outputArguments, { done: true });
  const runs = calls;
  const repeat = await store.execute(command);
  assert.equal(calls, runs, "the repeat did not run the asset a second time");
  if (repeat.ok) assert.deepEqual(repeat.value, reply.value);
  else assert.equal(repeat.error.code, "conflict", JSON.stringify(repeat));
});

test("an asynchronous call whose end falls into an outage keeps its result", async () => {
  const started = await store.execute({
    type: "InvokeOperationAsync",
    params: { ...address, body: "{}", valueOnly: true },
  } as Command);
  assert.ok(started.ok, JSON.stringify(started));
  const handleId = (started.value as { handleId: string }).handleId;
  await outageWhileRunning(4000);
  let result: { executionState?: string; outputArguments?: unknown } = {};
  for (let i = 0; i < 100 && result.executionState !== "Completed"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = await store.execute({
      type: "GetOperationAsyncResult",
      params: { ...address, handleId, valueOnly: true },
    } as Command);
    if (read.ok) result = resultOf(read.value);
    if (result.executionState === "Failed") break;
  }
  assert.equal(result.executionState, "Completed", JSON.stringify(result));
  assert.deepEqual(result.outputArguments, { done: true });
});
