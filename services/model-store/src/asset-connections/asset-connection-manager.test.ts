import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, test } from "node:test";
import {
  ASSET_TEST_MODEL,
  DRIVE_SUBMODEL_ID,
  type HttpAsset,
  startHttpAsset,
} from "../../../../tests/test-support/asset-peers.ts";
import { AssetConnectionManager, CONFIG_OWNER } from "./asset-connection-manager.ts";
import { driverFor } from "./connection-drivers.ts";
import { assetConnectionsConfig, startTestStore, type TestStore, until } from "./test-support/asset-connections.ts";

const HTTP = "assetconnection.http.HttpAssetConnection";
const key = (idShort: string) => `(Submodel)${DRIVE_SUBMODEL_ID}, (Property)${idShort}`;
const polling = (baseUrl: string, providers: Record<string, string>) =>
  assetConnectionsConfig({
    "@class": HTTP,
    baseUrl,
    subscriptionProviders: Object.fromEntries(
      Object.entries(providers).map(([idShort, path]) => [key(idShort), { format: "JSON", path, interval: 100 }]),
    ),
  })[0]!;
const nameOf = (owner: string) => (connection: { merged: number[] }) => `${owner}[${connection.merged.join(",")}]`;

let first: HttpAsset;
let second: HttpAsset;
let sut: TestStore;
let manager: AssetConnectionManager;
const lines: string[] = [];

const requestsTo = (asset: HttpAsset, path: string) => asset.requests.filter((r) => r.path === path).length;

/** Requests to `path` keep arriving (the connection runs) or stop (it does not), over `ms`. */
async function stillPolled(asset: HttpAsset, path: string, ms = 350): Promise<boolean> {
  const before = requestsTo(asset, path);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return requestsTo(asset, path) > before;
}

before(async () => {
  [first, second] = await Promise.all([startHttpAsset(), startHttpAsset()]);
});
after(async () => {
  await Promise.all([first.stop(), second.stop()]);
});
beforeEach(async () => {
  sut = await startTestStore(ASSET_TEST_MODEL);
  for (const asset of [first, second]) {
    asset.documents.clear();
    asset.requests.length = 0;
  }
  first.documents.set("/t", 20);
  first.documents.set("/p", 1.5);
  second.documents.set("/t", 30);
  second.documents.set("/s", 7);
  second.documents.set("/s2", 8);
  lines.length = 0;
  manager = new AssetConnectionManager({
    store: sut.store,
    bus: sut.bus,
    operationProviders: sut.registry,
    retryIntervalMs: 100,
    createDriver: (connection, _owner, log) => driverFor(connection, { store: sut.store, readTimeoutMs: 1000 }, log),
    log: (line) => void lines.push(line),
  });
});
afterEach(async () => {
  await manager.stop();
  await sut.close();
});

test("an AIMC's connections come and go without touching the hand-configured one", async () => {
  await manager.apply(CONFIG_OWNER, [polling(first.url, { Temperature: "/t" })], nameOf("config"));
  await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "20");
  const configured = () => manager.status().find((s) => s.owner === CONFIG_OWNER)!;
  const since = configured().since;

  const added = await manager.apply("urn:aimc:1", [polling(second.url, { Setpoint: "/s" })], nameOf("aimc1"));
  assert.deepEqual(added.started, ["aimc1[0]"]);
  await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "7");
  const changed = await manager.apply("urn:aimc:1", [polling(second.url, { Setpoint: "/s2" })], nameOf("aimc1"));
  assert.deepEqual(changed.replaced, ["aimc1[0]"]);
  const removed = await manager.apply("urn:aimc:1", [], nameOf("aimc1"));
  assert.deepEqual(removed.stopped, ["aimc1[0]"]);

  assert.deepEqual(manager.owners(), [CONFIG_OWNER]);
  assert.equal(configured().since, since, "the configured connection was never restarted");
  assert.ok(await stillPolled(first, "/t"), "the configured connection still polls");
});

test("two AIMCs are independent, even on the same asset: removing one leaves the other running", async () => {
  await manager.apply("urn:aimc:a", [polling(second.url, { Setpoint: "/s" })], nameOf("a"));
  await manager.apply("urn:aimc:b", [polling(second.url, { Position2: "/t" })], nameOf("b"));
  assert.equal(manager.status().length, 2, "same connection settings, different owners: two connections");
  await sut.waitForElement(DRIVE_SUBMODEL_ID, "Position2", (e) => e.value === "30");
  await manager.apply("urn:aimc:a", [], nameOf("a"));
  assert.deepEqual(
    manager.status().map((s) => s.owner),
    ["urn:aimc:b"],
  );
  assert.ok(await stillPolled(second, "/t"));
  assert.equal(await stillPolled(second, "/s"), false, "a's provider stopped");
});

test("an update replaces a changed provider: the old path is no longer read, the new one is; an unchanged set is kept", async () => {
  await manager.apply("urn:aimc:a", [polling(first.url, { Temperature: "/t" })], nameOf("a"));
  await until(() => requestsTo(first, "/t") > 0, "the first poll");
  const same = await manager.apply("urn:aimc:a", [polling(first.url, { Temperature: "/t" })], nameOf("a"));
  assert.deepEqual(same, {
    started: [],
    replaced: [],
    stopped: [],
    kept: ["a[0]"],
    problems: [],
    leftOut: [],
    warnings: [],
  });
  await manager.apply("urn:aimc:a", [polling(first.url, { Temperature: "/p" })], nameOf("a"));
  await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "1.5");
  assert.equal(await stillPolled(first, "/t"), false);
  assert.ok(await stillPolled(first, "/p"));
});

test("an AIMC cannot take an element another owner already feeds: that provider is left out with a sentence", async () => {
  await manager.apply(CONFIG_OWNER, [polling(first.url, { Temperature: "/t" })], nameOf("config"));
  const result = await manager.apply(
    "urn:aimc:a",
    [polling(second.url, { Temperature: "/t", Setpoint: "/s" })],
    nameOf("a"),
  );
  assert.deepEqual(result.problems, [
    `${key("Temperature")}: left out, config[0] already has a subscription provider for it`,
  ]);
  await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "7");
  assert.equal(requestsTo(second, "/t"), 0);
});

test("an AIMC subscription provider beside another owner's polling value provider for one element: a warning, both run", async () => {
  await manager.apply(
    CONFIG_OWNER,
    assetConnectionsConfig({
      "@class": HTTP,
      baseUrl: first.url,
      valueProviders: { [key("Temperature")]: { format: "JSON", path: "/t", readInterval: 100 } },
    }),
    nameOf("config"),
  );
  const result = await manager.apply("urn:aimc:a", [polling(second.url, { Temperature: "/t" })], nameOf("a"));
  assert.deepEqual(result.leftOut, []);
  assert.deepEqual(result.warnings, [
    `config[0].valueProviders[${JSON.stringify(key("Temperature"))}] and AIMC urn:aimc:a subscriptionProviders[${JSON.stringify(key("Temperature"))}] both read the asset into ${DRIVE_SUBMODEL_ID} Temperature: the element holds whichever reading came last; keep one of them, or give the value provider readWriteMode WRITE`,
  ]);
  assert.ok(await stillPolled(second, "/t"), "the AIMC's provider runs");
});

test("an AIMC whose providers are all left out runs no connection, and starts one once the other owner lets go", async () => {
  await manager.apply("urn:aimc:a", [polling(first.url, { Temperature: "/t" })], nameOf("a"));
  const released: string[] = [];
  manager.onReleased((owner) => released.push(owner));
  const result = await manager.apply("urn:aimc:b", [polling(second.url, { Temperature: "/t" })], nameOf("b"));
  assert.deepEqual(result.leftOut, [key("Temperature")]);
  assert.deepEqual(result.started, []);
  assert.deepEqual(
    manager.status().map((s) => s.owner),
    ["urn:aimc:a"],
    "no connection (and no lease) for b",
  );
  assert.equal(await stillPolled(second, "/t"), false);
  await manager.apply("urn:aimc:a", [], nameOf("a"));
  assert.deepEqual(released, ["urn:aimc:a"]);
  const again = await manager.apply("urn:aimc:b", [polling(second.url, { Temperature: "/t" })], nameOf("b"));
  assert.deepEqual(again.started, ["b[0]"]);
  assert.ok(await stillPolled(second, "/t"));
});

test("a clash inside one owner's set is a ConfigError and changes nothing", async () => {
  await manager.apply("urn:aimc:a", [polling(first.url, { Temperature: "/t" })], nameOf("a"));
  const clash = [polling(first.url, { Setpoint: "/s" }), { ...polling(second.url, { Setpoint: "/s" }) }];
  await assert.rejects(manager.apply("urn:aimc:a", clash, nameOf("a")), /already has a subscription provider/);
  assert.ok(await stillPolled(first, "/t"), "the previous set still runs");
});
