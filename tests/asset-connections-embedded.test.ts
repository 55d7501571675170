/**
 * Asset connections in embedded mode, black-box: the `twinport` process started with a config file
 * naming a local HTTP asset, a local OPC UA device and an OPC UA device that does not exist; read
 * and written through HTTPS and the process's own OPC UA endpoint.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  AttributeIds,
  type ClientSession,
  DataType,
  MessageSecurityMode,
  OPCUACertificateManager,
  OPCUAClient,
  SecurityPolicy,
} from "node-opcua";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID, type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import { eventually } from "./test-support/eventually.ts";
import { b64, createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { type OpcuaAsset, startOpcuaAsset } from "./test-support/opcua-asset.ts";
import { freePort } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const FAAAST = "de.fraunhofer.iosb.ilt.faaast.service";
const key = (idShort: string, type = "Property") => `(Submodel)${DRIVE_SUBMODEL_ID}, (${type})${idShort}`;
const element = (idShortPath: string) => `/submodels/${b64(DRIVE_SUBMODEL_ID)}/submodel-elements/${idShortPath}`;

let asset: HttpAsset;
let device: OpcuaAsset;
let twinport: TwinportProcess;
let client: HttpClient;
let opcua: {
  session: ClientSession;
  close(): Promise<void>;
  valueNode(path: string): string;
  elementNode(path: string): string;
};
const dir = mkdtempSync(join(tmpdir(), "twinport-asset-embedded-"));

/** The endpoint's value node of an element: `<submodel id>|<idShortPath>/Value` in the AAS namespace. */
async function connectOpcua(endpointUrl: string) {
  const certificates = new OPCUACertificateManager({
    rootFolder: join(dir, "test-client-pki"),
    automaticallyAcceptUnknownCertificate: true,
  });
  await certificates.initialize();
  const opcuaClient = OPCUAClient.create({
    endpointMustExist: false,
    securityMode: MessageSecurityMode.None,
    securityPolicy: SecurityPolicy.None,
    clientCertificateManager: certificates,
    connectionStrategy: { maxRetry: 0 },
  });
  await opcuaClient.connect(endpointUrl);
  const session = await opcuaClient.createSession();
  const ns = ((await session.readNamespaceArray()) as string[]).indexOf("urn:twinport:UA:AAS:v3");
  return {
    session,
    valueNode: (path: string) => `ns=${ns};s=${DRIVE_SUBMODEL_ID}|${path}/Value`,
    elementNode: (path: string) => `ns=${ns};s=${DRIVE_SUBMODEL_ID}|${path}`,
    async close() {
      await session.close();
      await opcuaClient.disconnect();
      await certificates.dispose();
    },
  };
}

before(async () => {
  asset = await startHttpAsset();
  device = await startOpcuaAsset();
  asset.documents.set("/status", { temperature: 21.5 });
  asset.documents.set("/setpoint", { value: 3 });
  asset.handle = (request) =>
    request.method === "POST" && request.path === "/calibrate"
      ? {
          status: 200,
          body: JSON.stringify({ deviation: JSON.parse(request.body).offset * JSON.parse(request.body).cycles }),
        }
      : undefined;
  const [httpPort, opcuaPort, nobodyPort] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(join(dir, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      core: { assetConnectionRetryInterval: 200 },
      endpoints: [
        { "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true },
        {
          "@class": "endpoint.opcua.OpcUaEndpoint",
          tcpPort: opcuaPort,
          host: "127.0.0.1",
          supportedSecurityPolicies: ["NONE"],
          secondsTillShutdown: 0,
        },
      ],
      assetConnections: [
        {
          "@class": `${FAAAST}.assetconnection.http.HttpAssetConnection`,
          baseUrl: asset.url,
          subscriptionProviders: {
            [key("Temperature")]: { format: "JSON", path: "/status", query: "$.temperature", interval: 100 },
          },
          valueProviders: {
            [key("Setpoint")]: {
              format: "JSON",
              path: "/setpoint",
              query: "$.value",
              template: '{"value": ${value}}',
              readInterval: 200,
            },
          },
          operationProviders: {
            [key("Calibrate", "Operation")]: {
              format: "JSON",
              path: "/calibrate",
              template: '{"offset": ${Offset}, "cycles": ${Cycles}}',
              queries: { Deviation: "$.deviation" },
            },
          },
        },
        {
          "@class": `${FAAAST}.assetconnection.opcua.OpcUaAssetConnection`,
          host: device.endpointUrl,
          securityBaseDir: "opcua-client",
          subscriptionProviders: { [key("Label")]: { nodeId: "ns=2;s=Label", interval: 50 } },
        },
        // Nobody listens here: start-up must not wait for it.
        {
          "@class": `${FAAAST}.assetconnection.opcua.OpcUaAssetConnection`,
          host: `opc.tcp://127.0.0.1:${nobodyPort}`,
          securityBaseDir: "opcua-client",
          subscriptionProviders: { [key("BigCounter")]: { nodeId: "ns=2;s=BigCounter" } },
        },
      ],
    }),
  );
  twinport = await startTwinport({ role: "embedded", cwd: dir, args: ["-c", "config.json", "-m", "model.json"] });
  client = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dir) });
  opcua = await connectOpcua(`opc.tcp://127.0.0.1:${opcuaPort}`);
});

after(async () => {
  client?.close();
  await opcua?.close().catch(() => undefined);
  await twinport?.stop();
  await device?.stop();
  await asset?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("asset connections, embedded", () => {
  test("the process is ready although one asset is unreachable; its retries are logged, its status named in the ready line", async () => {
    assert.deepEqual(
      (twinport.details.assetConnections as { name: string; kind: string }[]).map((c) => `${c.name} ${c.kind}`),
      ["assetConnections[0] http", "assetConnections[1] opcua", "assetConnections[2] opcua"],
    );
    await eventually(
      async () => readFileSync(twinport.logFile, "utf8"),
      (log) => /assetConnections\[2\].*cannot connect to opc\.tcp/.test(log),
      "the retry in the log",
    );
    assert.equal((await client.get(element("Temperature"))).status, 200, "other requests are served meanwhile");
  });

  test("a polled HTTP value reaches HTTP readers and the OPC UA endpoint; a change follows", async () => {
    await eventually(
      () => client.get(`${element("Temperature")}/$value`),
      (r) => r.status === 200 && r.json().Temperature === 21.5,
      "21.5 over HTTP",
    );
    const node = opcua.valueNode("Temperature");
    await eventually(
      () => opcua.session.read({ nodeId: node, attributeId: AttributeIds.Value }),
      (v) => v.value.value === 21.5,
      "21.5 over OPC UA",
    );
    asset.documents.set("/status", { temperature: 19.75 });
    await eventually(
      () => client.get(`${element("Temperature")}/$value`),
      (r) => r.json().Temperature === 19.75,
      "19.75 over HTTP",
    );
    await eventually(
      () => opcua.session.read({ nodeId: node, attributeId: AttributeIds.Value }),
      (v) => v.value.value === 19.75,
      "19.75 over OPC UA",
    );
  });

  test("an OPC UA device value reaches HTTP readers", async () => {
    device.set("Label", "milling", DataType.String);
    await eventually(
      () => client.get(`${element("Label")}/$value`),
      (r) => r.json().Label === "milling",
      "the device's label over HTTP",
    );
  });

  test("a value written through HTTP is forwarded to the asset with the template; written through OPC UA too", async () => {
    await eventually(
      () => client.get(`${element("Setpoint")}/$value`),
      (r) => r.json().Setpoint === 3,
      "the asset's setpoint",
    );
    const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "17" });
    assert.equal(patched.status, 204, patched.text);
    const put = await asset.waitForRequest((r) => r.method === "PUT" && r.path === "/setpoint");
    assert.deepEqual(JSON.parse(put.body), { value: 17 });
    const written = await opcua.session.write({
      nodeId: opcua.valueNode("Setpoint"),
      attributeId: AttributeIds.Value,
      value: { value: { dataType: DataType.Int32, value: 23 } },
    });
    assert.ok(written.isGood(), written.toString());
    await asset.waitForRequest((r) => r.method === "PUT" && JSON.parse(r.body).value === 23);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(
      (await client.get(`${element("Setpoint")}/$value`)).json().Setpoint,
      23,
      "the asset's polled value agrees",
    );
  });

  test("POST …/invoke runs the HTTP operation provider", async () => {
    const response = await client.request("POST", `${element("Calibrate")}/invoke`, {
      body: JSON.stringify({
        inputArguments: [
          { value: { modelType: "Property", idShort: "Offset", valueType: "xs:double", value: "2.5" } },
          { value: { modelType: "Property", idShort: "Cycles", valueType: "xs:int", value: "3" } },
        ],
      }),
    });
    assert.equal(response.status, 200, response.text);
    const result = response.json();
    assert.equal(result.executionState, "Completed", response.text);
    assert.deepEqual(
      result.outputArguments.map((a: { value: { idShort: string; value: string } }) => [
        a.value.idShort,
        a.value.value,
      ]),
      [["Deviation", "7.5"]],
    );
    const post = asset.requests.find((r) => r.path === "/calibrate")!;
    assert.deepEqual(JSON.parse(post.body), { offset: 2.5, cycles: 3 });
  });

  test("the Operation's OPC UA method runs the same HTTP operation provider", async () => {
    const result = await opcua.session.call({
      objectId: opcua.elementNode("Calibrate"),
      methodId: `${opcua.elementNode("Calibrate")}/Invoke`,
      inputArguments: [
        { dataType: DataType.Double, value: 1.5 },
        { dataType: DataType.Int32, value: 2 },
      ],
    });
    assert.ok(result.statusCode.isGood(), result.statusCode.toString());
    assert.equal(result.outputArguments?.[0]?.value, 3);
    assert.deepEqual(JSON.parse(asset.requests.filter((r) => r.path === "/calibrate").at(-1)!.body), {
      offset: 1.5,
      cycles: 2,
    });
  });
});
