import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CommandParams } from "@twinport/shared";
import { AttributeIds, ClientMonitoredItem, ClientSubscription, type DataValue, TimestampsToReturn } from "node-opcua";
import type { OpcuaTestClient } from "../../../../tests/test-support/opcua-client.ts";
import { type InProcessGateway, startInProcessGateway } from "../../../../tests/test-support/opcua-in-process.ts";
import { elementNode, opcuaTestEnvironment, VALUES_SUBMODEL } from "../../../../tests/test-support/opcua-model.ts";

// Value items are exception-based whatever sampling interval they ask for (ADR 0016): created or
// modified, they answer revisedSamplingInterval 0 and queue every commit; nodes outside our
// namespace keep node-opcua's sampling.

let system: InProcessGateway;
let opcua: OpcuaTestClient;
let subscription: ClientSubscription;

before(async () => {
  system = await startInProcessGateway(opcuaTestEnvironment());
  opcua = await system.connect(await system.startGateway());
  // A long publishing interval: commits made back to back land in one publishing cycle.
  subscription = ClientSubscription.create(opcua.session, {
    requestedPublishingInterval: 1000,
    requestedMaxKeepAliveCount: 10,
    requestedLifetimeCount: 100,
    maxNotificationsPerPublish: 0,
    publishingEnabled: true,
  });
});

after(async () => {
  await subscription?.terminate().catch(() => undefined);
  await system?.stop();
});

async function patchInt(value: number): Promise<void> {
  const params: CommandParams<"PatchSubmodelElementValueByPath"> = {
    submodelId: VALUES_SUBMODEL,
    idShortPath: "TInt",
    body: String(value),
  };
  const reply = await system.store.execute({ type: "PatchSubmodelElementValueByPath", params, origin: "http" });
  assert.ok(reply.ok, JSON.stringify(reply));
}

/** A monitored item that records every value it is sent. */
async function monitor(
  nodeId: string,
  samplingInterval: number,
): Promise<{ item: ClientMonitoredItem; values: unknown[]; until(value: unknown): Promise<void> }> {
  const item = await subscription.monitor(
    { nodeId, attributeId: AttributeIds.Value },
    { samplingInterval, queueSize: 10, discardOldest: true },
    TimestampsToReturn.Both,
  );
  const values: unknown[] = [];
  const waiting = new Set<() => void>();
  item.on("changed", (dataValue: DataValue) => {
    values.push(dataValue.value.value);
    for (const wake of [...waiting]) wake();
  });
  const until = (value: unknown) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`sampling ${samplingInterval}: no ${String(value)} within 10 s; got ${values.join(", ")}`)),
        10_000,
      );
      const check = () => {
        if (!values.includes(value)) return;
        waiting.delete(check);
        clearTimeout(timer);
        resolve();
      };
      waiting.add(check);
      check();
    });
  return { item, values, until };
}

test("any requested sampling interval is revised to 0 and every commit of one publishing cycle is queued", async () => {
  const intervals = [-1, 0, 50, 100, 250, 1000, 5000];
  const items = [];
  for (const interval of intervals)
    items.push(await monitor(opcua.nodeId(elementNode(VALUES_SUBMODEL, "TInt", "Value")), interval));
  for (const [i, { item }] of items.entries()) {
    assert.equal(item.result?.revisedSamplingInterval, 0, `sampling ${intervals[i]}`);
    assert.equal(item.result?.revisedQueueSize, 10, `sampling ${intervals[i]}`);
  }
  const initial = (await opcua.read(elementNode(VALUES_SUBMODEL, "TInt", "Value"))).value.value;
  for (const { until } of items) await until(initial);
  const written = [8101, 8102, 8103, 8104, 8105];
  for (const value of written) await patchInt(value);
  for (const [i, { values, until }] of items.entries()) {
    await until(written.at(-1));
    assert.deepEqual(
      values.filter((value) => written.includes(value as number)),
      written,
      `sampling ${intervals[i]}`,
    );
    await items[i]!.item.terminate();
  }
});

test("a modified item stays exception-based and says so", async () => {
  const { item, values, until } = await monitor(opcua.nodeId(elementNode(VALUES_SUBMODEL, "TInt", "Value")), 1000);
  await until((await opcua.read(elementNode(VALUES_SUBMODEL, "TInt", "Value"))).value.value);
  for (const samplingInterval of [2000, -1, 0]) {
    const result = await item.modify({ samplingInterval, queueSize: 10, discardOldest: true });
    assert.equal(result.revisedSamplingInterval, 0, `modified to ${samplingInterval}`);
  }
  const written = [8201, 8202, 8203];
  for (const value of written) await patchInt(value);
  await until(written.at(-1));
  assert.deepEqual(
    values.filter((value) => written.includes(value as number)),
    written,
  );
  await item.terminate();
});

test("variables outside the AAS namespace keep node-opcua's sampling", async () => {
  // Server_ServerStatus_CurrentTime: a getter-bound clock, which only a timer sees change.
  const { item } = await monitor("ns=0;i=2258", 1000);
  assert.equal(item.result?.revisedSamplingInterval, 1000);
  await item.terminate();
});
