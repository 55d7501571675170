import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { createLogger } from "@twinport/shared";
import { DataType, Variant } from "node-opcua-client";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID } from "../../../../tests/test-support/asset-peers.ts";
import { OPCUA_ASSET_NAMESPACE, type OpcuaAsset, startOpcuaAsset } from "../../../../tests/test-support/opcua-asset.ts";
import { opensslCertificate, opensslPkcs12 } from "../../../../tests/test-support/openssl-keystores.ts";
import { freePort } from "../../../../tests/test-support/servers.ts";
import { type RunningAssetConnections, startAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, type TestStore, until } from "./test-support/asset-connections.ts";

const OPCUA = "de.fraunhofer.iosb.ilt.faaast.service.assetconnection.opcua.OpcUaAssetConnection";
const key = (...path: string[]) => [`(Submodel)${DRIVE_SUBMODEL_ID}`, ...path].join(", ");
const securityBaseDir = mkdtempSync(join(tmpdir(), "twinport-opcua-client-"));
const lines: string[] = [];
/** The process logger's JSON lines: node-opcua-client's own lines arrive here. */
const records: { level: number; component?: string; module?: string; msg: string }[] = [];
const logger = createLogger({
  role: "model-store",
  destination: { write: (text: string) => records.push(JSON.parse(text)) },
});

let device: OpcuaAsset;
let sut: TestStore;
let running: RunningAssetConnections | undefined;

async function start(...configs: Record<string, unknown>[]): Promise<RunningAssetConnections> {
  sut = await startTestStore(ASSET_TEST_MODEL);
  running = await startAssetConnections({
    connections: assetConnectionsConfig(...configs.map((c) => ({ "@class": OPCUA, securityBaseDir, ...c }))),
    store: sut.store,
    bus: sut.bus,
    operationProviders: sut.registry,
    retryIntervalMs: 200,
    readTimeoutMs: 1000,
    log: (line) => void lines.push(line),
    logger,
  });
  return running;
}

const patchValue = (idShortPath: string, body: unknown) =>
  sut.store.execute({
    type: "PatchSubmodelElementValueByPath",
    params: { submodelId: DRIVE_SUBMODEL_ID, idShortPath, body: JSON.stringify(body) },
    origin: "opcua",
  });

before(async () => {
  device = await startOpcuaAsset();
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await sut?.close();
  lines.length = 0;
  records.length = 0;
});
after(async () => {
  await device.stop();
  rmSync(securityBaseDir, { recursive: true, force: true });
});

describe("OPC UA subscription provider", () => {
  test("monitored items push device changes into the model; Int64 keeps every digit", async () => {
    await start({
      host: device.endpointUrl,
      subscriptionProviders: {
        [key("(Property)Temperature")]: { nodeId: `nsu=${OPCUA_ASSET_NAMESPACE};s=Temperature`, interval: 50 },
        [key("(Property)BigCounter")]: { nodeId: "ns=2;s=BigCounter", interval: 50 },
      },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "20.5");
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "BigCounter", (e) => e.value === "9223372036854775807");
    device.set("Temperature", 23.25, DataType.Double);
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "23.25");
    const events = sut.events.filter((e) => e.idShortPath === "Temperature");
    assert.deepEqual(
      events.map((e) => [e.kind, e.origin]),
      [
        ["element.value-changed", "asset"],
        ["element.value-changed", "asset"],
      ],
    );
    assert.equal(running!.status()[0]!.state, "connected");
    // FA³ST's PKI layout under securityBaseDir, made by the client.
    for (const folder of ["trusted/certs", "issuers/certs", "rejected", "own/certs"])
      assert.ok(existsSync(join(securityBaseDir, "pki", folder)), folder);
  });

  test("a node that does not exist is reported by its provider; the others run", async () => {
    const connections = await start({
      host: device.endpointUrl,
      subscriptionProviders: {
        [key("(Property)Temperature")]: { nodeId: "ns=2;s=Temperature", interval: 50 },
        [key("(Property)Label")]: { nodeId: "ns=2;s=NoSuchNode", interval: 50 },
      },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "20.5" || e.value === "23.25");
    await until(() => connections.status()[0]!.failingProviders.length === 1, "the failing provider");
    assert.match(connections.status()[0]!.failingProviders[0]!.error, /NoSuchNode|BadNodeIdUnknown/);
  });
});

describe("a node the device does not have (yet, or any more)", () => {
  const label = key("(Property)Label");
  const kinds = [
    ["subscription provider", (nodeId: string) => ({ subscriptionProviders: { [label]: { nodeId, interval: 50 } } })],
    ["value provider", (nodeId: string) => ({ valueProviders: { [label]: { nodeId, readInterval: 50 } } })],
    [
      "value provider reading on connect",
      (nodeId: string) => ({ valueProviders: { [label]: { nodeId, readInterval: 0 } } }),
    ],
  ] as const;
  /** The provider's log lines: one when the node went missing, one when it works again. */
  const providerLines = () => lines.filter((l) => l.includes("provider of"));

  for (const [kind, providers] of kinds) {
    test(`${kind}: a node made after the start is retried with back-off and read once it exists; the outage is logged once`, async () => {
      const name = `Late-${kind.replaceAll(" ", "-")}`;
      const connections = await start({ host: device.endpointUrl, ...providers(`ns=2;s=${name}`) });
      await until(() => connections.status()[0]!.failingProviders.length === 1, "the failing provider");
      assert.match(connections.status()[0]!.failingProviders[0]!.error, /ns=2;s=Late.*BadNodeIdUnknown/);
      // Retry interval 200 ms: at a fixed pace 2.6 s would be 13 attempts; with back-off
      // (200, 400, 800, 1600, 2000 …) it is 5 after the first.
      const first = device.requestsFor(name);
      await new Promise((resolve) => setTimeout(resolve, 2600));
      const retries = device.requestsFor(name) - first;
      assert.ok(retries >= 2 && retries <= 6, `${retries} attempts in 2.6 s`);
      device.addVariable(name, new Variant({ dataType: DataType.String, value: "appeared" }));
      try {
        await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "appeared", 10_000);
        await until(() => connections.status()[0]!.failingProviders.length === 0, "the provider working again");
        const logged = providerLines();
        assert.equal(logged.length, 2, logged.join("\n"));
        assert.match(logged[0]!, /Label: the server has no node ns=2;s=Late/);
        assert.match(logged[1]!, /Label works again/);
      } finally {
        device.removeNode(name);
      }
    });
  }

  for (const [kind, providers] of kinds.slice(0, 2)) {
    test(`${kind}: a monitored node the device deletes and makes again is monitored again`, async () => {
      const name = `Gone-${kind.replaceAll(" ", "-")}`;
      device.addVariable(name, new Variant({ dataType: DataType.String, value: "first" }));
      const connections = await start({ host: device.endpointUrl, ...providers(`ns=2;s=${name}`) });
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "first", 10_000);
      device.removeNode(name);
      await until(() => connections.status()[0]!.failingProviders.length === 1, "the failing provider");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const again = device.addVariable(name, new Variant({ dataType: DataType.String, value: "second" }));
      try {
        await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "second", 10_000);
        await until(() => connections.status()[0]!.failingProviders.length === 0, "the provider working again");
        const logged = providerLines();
        assert.equal(logged.length, 2, logged.join("\n"));
        assert.match(logged[0]!, /Label: the server has no node ns=2;s=Gone/);
        assert.match(logged[1]!, /Label works again/);
        // Still monitored: a change of the new node arrives.
        again.setValueFromSource(new Variant({ dataType: DataType.String, value: "third" }));
        await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "third");
      } finally {
        device.removeNode(name);
      }
    });
  }
});

describe("OPC UA value provider", () => {
  test("reads the node, writes model changes with the node's DataType", async () => {
    device.set("Setpoint", 7, DataType.Int32);
    await start({
      host: device.endpointUrl,
      valueProviders: { [key("(Property)Setpoint")]: { nodeId: "ns=2;s=Setpoint", readInterval: 50 } },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "7");
    assert.equal((await patchValue("Setpoint", 42)).ok, true);
    await until(() => device.get("Setpoint") === 42, "the device's Setpoint to become 42");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Setpoint")).value, "42");
  });

  test("arrayIndex reads one element and writes the whole array back with it changed", async () => {
    await start({
      host: device.endpointUrl,
      valueProviders: {
        [key("(Property)Position2")]: { nodeId: "ns=2;s=Positions", arrayIndex: "[1]", readInterval: 50 },
      },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Position2", (e) => e.value === "2");
    await patchValue("Position2", 9.5);
    await until(
      () => Array.from(device.get("Positions") as Float64Array).join(",") === "1,9.5,3",
      "the device's array",
    );
  });

  test("a write the node refuses is reported and not retried; the next reading restores the device's value", async () => {
    await start({
      host: device.endpointUrl,
      valueProviders: { [key("(Property)Label")]: { nodeId: "ns=2;s=Serial", readInterval: 50 } },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "SN-0001");
    await patchValue("Label", "forged");
    await until(
      () =>
        lines.some((l) =>
          /writing .* Label to the asset failed: writing ns=2;s=Serial answered BadNotWritable/.test(l),
        ),
      "the refusal in the log",
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(lines.filter((l) => l.includes("Label to the asset failed")).length, 1, "not retried");
    assert.equal(device.get("Serial"), "SN-0001");
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "SN-0001");
  });

  test("readWriteMode READ: a change made through an endpoint is not written, and the device's value comes back", async () => {
    await start({
      host: device.endpointUrl,
      valueProviders: {
        [key("(Property)Setpoint")]: { nodeId: "ns=2;s=Setpoint", readInterval: 50, readWriteMode: "READ" },
      },
    });
    const before = String(device.get("Setpoint"));
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === before);
    await patchValue("Setpoint", 1234);
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === before);
    assert.equal(String(device.get("Setpoint")), before);
  });
});

describe("OPC UA operation provider", () => {
  test("invoked through the engine: arguments mapped by name, the method found by browsing", async () => {
    await start({
      host: device.endpointUrl,
      operationProviders: {
        [key("(Operation)Calibrate")]: {
          nodeId: "ns=2;s=Machine.Calibrate",
          inputArgumentMapping: [
            { idShort: "Offset", argumentName: "offset" },
            { idShort: "Cycles", argumentName: "cycles" },
          ],
          outputArgumentMapping: [{ idShort: "Deviation", argumentName: "deviation" }],
        },
      },
    });
    const reply = await sut.store.execute({
      type: "InvokeOperation",
      params: {
        submodelId: DRIVE_SUBMODEL_ID,
        idShortPath: "Calibrate",
        valueOnly: true,
        body: JSON.stringify({ inputArguments: { Offset: 1.5, Cycles: 4 } }),
      },
      origin: "http",
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    const text = (reply as { value: { rawJson: string } }).value.rawJson;
    assert.deepEqual(JSON.parse(text).outputArguments, { Deviation: 6 });
    assert.deepEqual(device.calls.at(-1), { offset: 1.5, cycles: 4 });
  });
});

describe("an unreachable OPC UA server", () => {
  test("does not hold up start; the connection retries with back-off and connects once the server is there, and again after it restarted", async () => {
    const port = await freePort();
    const begun = Date.now();
    const connections = await start({
      host: `opc.tcp://127.0.0.1:${port}`,
      subscriptionProviders: { [key("(Property)Label")]: { nodeId: "ns=2;s=Label", interval: 50 } },
    });
    assert.ok(Date.now() - begun < 2000, `start returned after ${Date.now() - begun} ms`);
    await until(() => connections.status()[0]!.state === "waiting-to-retry", "waiting-to-retry");
    const status = connections.status()[0]!;
    assert.ok(status.lastError && status.nextAttemptAt, JSON.stringify(status));
    let late = await startOpcuaAsset({ port });
    try {
      await until(() => connections.status()[0]!.state === "connected", "connected", 15_000);
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "idle");
      await late.stop();
      await until(() => connections.status()[0]!.state !== "connected", "the loss noticed", 15_000);
      late = await startOpcuaAsset({ port });
      late.set("Label", "running", DataType.String);
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "running", 20_000);
      assert.ok(
        lines.some((l) => l.includes("lost")),
        lines.join("\n"),
      );
      assert.equal(
        lines.filter((l) => l.includes("cannot connect")).length <= 3,
        true,
        "repeated failures are not logged each time",
      );
    } finally {
      await late.stop();
    }
  });
});

describe("OPC UA security", () => {
  test("SignAndEncrypt: an unknown device certificate lands in pki/rejected; moved to pki/trusted/certs it is trusted at the next attempt (FA³ST's way)", async () => {
    const baseDir = mkdtempSync(join(tmpdir(), "twinport-opcua-secure-"));
    try {
      const connections = await start({
        host: device.endpointUrl,
        securityPolicy: "Basic256Sha256",
        securityMode: "SignAndEncrypt",
        securityBaseDir: baseDir,
        subscriptionProviders: { [key("(Property)Label")]: { nodeId: "ns=2;s=Serial", interval: 50 } },
      });
      const rejected = join(baseDir, "pki", "rejected");
      await until(
        () => existsSync(rejected) && readdirSync(rejected).length > 0,
        "the device's certificate in pki/rejected",
        15_000,
      );
      assert.notEqual(connections.status()[0]!.state, "connected");
      // node-opcua-client said why, at warn, on its own child logger (not on stdout, not at info).
      const isRefusal = (record: (typeof records)[number]) =>
        /\[NODE-OPCUA-W25\] client's server certificate verification has failed/.test(record.msg);
      await until(() => records.some(isRefusal), "node-opcua-client's W25 warning");
      const refused = records.find(isRefusal)!;
      assert.deepEqual([refused.level, refused.component, refused.module], [40, "node-opcua", "client_base_impl"]);
      for (const file of readdirSync(rejected))
        renameSync(join(rejected, file), join(baseDir, "pki", "trusted", "certs", file));
      await until(() => connections.status()[0]!.state === "connected", "connected once trusted", 15_000);
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "SN-0001");
    } finally {
      await running?.stop();
      running = undefined;
      rmSync(baseDir, { recursive: true, force: true });
    }
  });
});

describe("OPC UA client certificate from a key store", () => {
  test("SignAndEncrypt with applicationCertificate from an openssl PKCS#12 (legacy ciphers, a key password of its own): the device sees that certificate", async () => {
    const baseDir = mkdtempSync(join(tmpdir(), "twinport-opcua-keystore-"));
    try {
      // OPC UA wants the application URI in the certificate and the key usages of Part 6 §6.2.2.
      const client = opensslCertificate(baseDir, "twinport-client", "rsa", {
        extensions: [
          "subjectAltName=URI:urn:twinport:test:asset-client,DNS:localhost,IP:127.0.0.1",
          "keyUsage=critical,digitalSignature,nonRepudiation,keyEncipherment,dataEncipherment",
          "extendedKeyUsage=clientAuth,serverAuth",
        ],
      });
      opensslPkcs12(join(baseDir, "application.p12"), client, {
        storePassword: "store-pw",
        keyPassword: "key-pw",
        legacy: true,
        alias: "application",
      });
      const connections = await start({
        host: device.endpointUrl,
        securityPolicy: "Basic256Sha256",
        securityMode: "SignAndEncrypt",
        securityBaseDir: baseDir,
        // Found below securityBaseDir, as in FA³ST.
        applicationCertificate: {
          keyStoreType: "PKCS12",
          keyStorePath: "application.p12",
          keyStorePassword: "store-pw",
          keyPassword: "key-pw",
          keyAlias: "application",
        },
        subscriptionProviders: { [key("(Property)Label")]: { nodeId: "ns=2;s=Serial", interval: 50 } },
      });
      const rejected = join(baseDir, "pki", "rejected");
      await until(
        () => existsSync(rejected) && readdirSync(rejected).length > 0,
        "the device's certificate in pki/rejected",
        15_000,
      );
      for (const file of readdirSync(rejected))
        renameSync(join(rejected, file), join(baseDir, "pki", "trusted", "certs", file));
      await until(() => connections.status()[0]!.state === "connected", "connected once trusted", 15_000);
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "SN-0001");
      const accepted = readdirSync(join(device.pkiDir, "trusted", "certs")).map(
        (file) => new X509Certificate(readFileSync(join(device.pkiDir, "trusted", "certs", file))).fingerprint256,
      );
      assert.ok(accepted.includes(client.fingerprint), "the device accepted the key store's certificate");
    } finally {
      await running?.stop();
      running = undefined;
      rmSync(baseDir, { recursive: true, force: true });
    }
  });
});

test("no certificate was left in ~ : the client PKI is under securityBaseDir", () => {
  assert.ok(readdirSync(join(securityBaseDir, "pki", "own", "certs")).length > 0);
});
