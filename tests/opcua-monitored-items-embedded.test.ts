// Monitored items of all sessions together (the endpoint's maxMonitoredItems, ours): node-opcua alone
// allows 1,000,000 at ~1.5 KB each, so one anonymous client could make the process hold 1.5 GB. Past
// the bound an item is refused with BadTooManyMonitoredItems, whoever asks; once items go, new ones
// are taken again.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { AttributeIds, type CreateMonitoredItemsResponse, StatusCodes, TimestampsToReturn } from "node-opcua";
import { connectOpcua, type OpcuaTestClient } from "./test-support/opcua-client.ts";
import { freePort } from "./test-support/servers.ts";
import { startTwinport } from "./test-support/system.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// Server status variables (namespace 0): any node serves, each watched once.
const NODES = [2257, 2258, 2259, 2261, 2262, 2263, 2264, 2265].map((i) => `ns=0;i=${i}`);

/** The session's services this test calls directly (node-opcua's ClientSession type leaves them out). */
interface SessionServices {
  createMonitoredItems(request: object): Promise<CreateMonitoredItemsResponse>;
  deleteSubscriptions(request: { subscriptionIds: number[] }): Promise<unknown>;
}
const services = (client: OpcuaTestClient) => client.session as unknown as SessionServices;

/** Creates one item per node on a new subscription of the client's session; the items' status names. */
async function watch(
  client: OpcuaTestClient,
  nodes: string[],
): Promise<{ statuses: string[]; subscriptionId: number }> {
  const subscription = await client.session.createSubscription2({
    requestedPublishingInterval: 1000,
    requestedMaxKeepAliveCount: 10,
    requestedLifetimeCount: 100,
    maxNotificationsPerPublish: 0,
    publishingEnabled: true,
  });
  const result = await services(client).createMonitoredItems({
    subscriptionId: subscription.subscriptionId,
    timestampsToReturn: TimestampsToReturn.Neither,
    itemsToCreate: nodes.map((nodeId, clientHandle) => ({
      itemToMonitor: { nodeId, attributeId: AttributeIds.Value },
      monitoringMode: 2,
      requestedParameters: { clientHandle, samplingInterval: 1000, queueSize: 1, discardOldest: true },
    })),
  });
  return {
    statuses: (result.results ?? []).map((item) => item.statusCode.name),
    subscriptionId: subscription.subscriptionId,
  };
}

test("embedded: with maxMonitoredItems 5, the sixth item of any session is refused, and taken once items go", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-opcua-items-"));
  dirs.push(cwd);
  const endpoint = { "@class": "endpoint.opcua.OpcUaEndpoint", tcpPort: await freePort(), host: "127.0.0.1" };
  writeFileSync(
    join(cwd, "config.json"),
    JSON.stringify({
      core: { managementPort: -1 },
      endpoints: [{ ...endpoint, secondsTillShutdown: 0, maxMonitoredItems: 5 }],
    }),
  );
  const twinport = await startTwinport({ cwd, args: ["-c", "config.json"] });
  const url = (twinport.details.opcua as string[])[0]!;
  const clients: OpcuaTestClient[] = [];
  try {
    const first = await connectOpcua(url, cwd);
    const second = await connectOpcua(url, cwd);
    clients.push(first, second);
    const good = StatusCodes.Good.name;
    const tooMany = StatusCodes.BadTooManyMonitoredItems.name;
    const held = await watch(first, NODES.slice(0, 3));
    assert.deepEqual(held.statuses, [good, good, good]);
    // Another session: two more fit, the rest is refused item by item.
    assert.deepEqual((await watch(second, NODES.slice(3, 7))).statuses, [good, good, tooMany, tooMany]);
    // The first client's items go; their room is free again.
    await services(first).deleteSubscriptions({ subscriptionIds: [held.subscriptionId] });
    assert.deepEqual((await watch(second, NODES.slice(0, 3))).statuses, [good, good, good]);
  } finally {
    for (const client of clients) await client.close();
    await twinport.stop();
  }
});
