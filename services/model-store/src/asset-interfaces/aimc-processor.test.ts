import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, afterEach, before, beforeEach, test } from "node:test";
import { AIMC_PROCESSOR_CLASS, type StoreClient } from "@twinport/shared";
import { type HttpAsset, startHttpAsset } from "../../../../tests/test-support/asset-peers.ts";
import { type RunningAssetConnections, startAssetConnections } from "../asset-connections/start-asset-connections.ts";
import { startTestStore, type TestStore, until } from "../asset-connections/test-support/asset-connections.ts";

const ROOT = new URL("../../../../", import.meta.url);
const OD = "https://example.com/ids/sm/operational-data";
const AIMC = "https://example.com/ids/sm/pump-aimc";
let asset: HttpAsset;
let sut: TestStore;
let running: RunningAssetConnections;
const lines: string[] = [];

const example = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`examples/aid-aimc/${name}.json`, ROOT), "utf8").replaceAll(
      "http://127.0.0.1:8081",
      asset.url,
    ),
  ) as Record<string, unknown>;

async function post(submodel: unknown): Promise<void> {
  const reply = await sut.store.execute({
    type: "PostSubmodel",
    params: { body: JSON.stringify(submodel) },
    origin: "http",
  });
  assert.ok(reply.ok, JSON.stringify(reply));
}

before(async () => {
  asset = await startHttpAsset();
  asset.documents.set("/api/temperature", 19.5);
  asset.documents.set("/api/status", { speed: 5 });
});
after(() => asset.stop());
beforeEach(async () => {
  sut = await startTestStore({});
  lines.length = 0;
  asset.requests.length = 0;
  running = await startAssetConnections({
    connections: [],
    processors: [
      { "@class": AIMC_PROCESSOR_CLASS, credentials: {}, opcuaSecurityBaseDir: {}, subscriptionInterval: 100 },
    ],
    store: sut.store,
    bus: sut.bus,
    operationProviders: sut.registry,
    retryIntervalMs: 100,
    readTimeoutMs: 1000,
    log: (line) => void lines.push(line),
  });
});
afterEach(async () => {
  await running.stop();
  await sut.close();
});

test("an AIMC posted before its AID waits for it: the AID's arrival starts the connection", async () => {
  await post(example("aimc"));
  await running.idle();
  assert.deepEqual(running.status(), []);
  assert.match(running.interfaces()[0]!.problems.join("\n"), /InterfaceReference target not found/);
  await post(example("operational-data"));
  await post(example("aid"));
  await until(async () => (await running.idle(), running.status().length === 1), "the derived connection");
  assert.equal(running.status()[0]!.owner, AIMC);
  await sut.waitForElement(OD, "Temperature", (e) => e.value === "19.5");
  assert.deepEqual(running.interfaces(), [{ aimc: AIMC, connections: 1, problems: [] }]);
});

test("a relation removed from the AIMC (an element delete inside it) replaces the connection without it", async () => {
  for (const name of ["operational-data", "aid", "aimc"]) await post(example(name));
  await sut.waitForElement(OD, "Speed", (e) => e.value === "5");
  const reply = await sut.store.execute({
    type: "DeleteSubmodelElementByPath",
    params: { submodelId: AIMC, idShortPath: "MappingConfigurations[0].MappingSourceSinkRelations[1]" },
    origin: "http",
  });
  assert.ok(reply.ok, JSON.stringify(reply));
  await until(
    async () => (await running.idle(), running.status()[0]?.providers.value === 0),
    "the connection without the value provider",
  );
  assert.equal(running.status()[0]!.providers.subscription, 1);
  assert.ok(
    lines.some((line) => line.includes(`AIMC ${AIMC}: 1 connection(s) (started 0, replaced 1, stopped 0, kept 0)`)),
    lines.join("\n"),
  );
});

test("providers left out because another AIMC fed their elements are started once that AIMC is deleted", async () => {
  for (const name of ["operational-data", "aid", "aimc"]) await post(example(name));
  await sut.waitForElement(OD, "Temperature", (e) => e.value === "19.5");
  const second = "https://example.com/ids/sm/pump-aimc-2";
  await post({ ...example("aimc"), id: second, idShort: "AimcCopy" });
  await running.idle();
  const copy = () => running.interfaces().find((i) => i.aimc === second)!;
  assert.match(
    copy().problems.join("\n"),
    /left out, AIMC https:\/\/example\.com\/ids\/sm\/pump-aimc \[0\] already has/,
  );
  const providersOf = (owner: string) => running.status().find((s) => s.owner === owner)?.providers;
  assert.equal(providersOf(second), undefined, "no connection while every provider is left out");
  const reply = await sut.store.execute({ type: "DeleteSubmodelById", params: { submodelId: AIMC }, origin: "http" });
  assert.ok(reply.ok, JSON.stringify(reply));
  await until(
    async () => (await running.idle(), providersOf(second)?.subscription === 1),
    "the second AIMC's providers",
  );
  assert.deepEqual(providersOf(second), { value: 1, subscription: 1, operation: 0 });
  assert.deepEqual(running.interfaces(), [{ aimc: second, connections: 1, problems: [] }]);
  asset.documents.set("/api/temperature", 21);
  try {
    await sut.waitForElement(OD, "Temperature", (e) => e.value === "21");
  } finally {
    asset.documents.set("/api/temperature", 19.5);
  }
});

test("an AIMC 2.0 is reported once and not processed; other submodels are ignored", async () => {
  const aimc2 = example("aimc");
  aimc2.id = "urn:aimc2";
  aimc2.semanticId = {
    type: "ExternalReference",
    keys: [
      {
        type: "GlobalReference",
        value: "https://admin-shell.io/idta/AssetInterfacesMappingConfiguration/2/0/Submodel",
      },
    ],
  };
  await post(aimc2);
  await post(example("operational-data"));
  await running.idle();
  assert.deepEqual(running.status(), []);
  assert.equal(
    lines.filter((line) => /submodel urn:aimc2 is an AIMC 2\.0 .*not processed, only AIMC 1\.0/.test(line)).length,
    1,
    lines.join("\n"),
  );
});

test("events missed (a heartbeat ahead of the last event) make the processor read the store again", async () => {
  await running.stop();
  let scans = 0;
  const counting: StoreClient = {
    execute: (command, options) => {
      if (command.type === "GetAllSubmodels") scans++;
      return sut.store.execute(command, options);
    },
    close: async () => {},
  };
  running = await startAssetConnections({
    connections: [],
    processors: [
      { "@class": AIMC_PROCESSOR_CLASS, credentials: {}, opcuaSecurityBaseDir: {}, subscriptionInterval: 100 },
    ],
    store: counting,
    bus: sut.bus,
    operationProviders: sut.registry,
    retryIntervalMs: 100,
    readTimeoutMs: 1000,
    log: (line) => void lines.push(line),
  });
  await post(example("operational-data"));
  await running.idle();
  const afterStart = scans;
  const sequence = await sut.store.execute({ type: "GetSequence", params: {} });
  assert.ok(sequence.ok);
  const seq = (sequence.value as { seq: number }).seq;
  // In step: no rescan.
  await sut.bus.publishHeartbeat({ seq, time: new Date().toISOString() });
  await running.idle();
  assert.equal(scans, afterStart);
  await sut.bus.publishHeartbeat({ seq: seq + 3, time: new Date().toISOString() });
  await until(() => scans > afterStart, "a rescan after the gap");
});
