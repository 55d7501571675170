import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

// node-opcua writes into $XDG_CONFIG_HOME unless given explicit PKI folders: keep it in our temp dir.
const dir = mkdtempSync(join(tmpdir(), "twinport-opcua-operations-"));
process.env.XDG_CONFIG_HOME = join(dir, "xdg");

const { DataType, MessageSecurityMode, OPCUACertificateManager, OPCUAClient, SecurityPolicy, StatusCodes, Variant } =
  await import("node-opcua");
const shared = await import("@twinport/shared");
const { OPERATIONS_SUBMODEL_ID, operationsSubmodel, registerTestOperationProviders } = await import(
  "@twinport/shared/test-support"
);
const { startOpcuaGateway } = await import("../index.ts");
const { invocationTimeoutMs } = await import("./operation-invoker.ts");
const { AAS_V3_NAMESPACE_URI } = await import("../address-space/aas-types.ts");
const { elementNodeId, subNodeId } = await import("../address-space/node-ids.ts");
const { freePort } = await import("../../../../tests/test-support/servers.ts");
type ClientSession = import("node-opcua").ClientSession;
type OpcUaEndpointConfig = import("@twinport/shared").OpcUaEndpointConfig;

/**
 * Operation methods over a real OPC UA connection: the call runs InvokeOperation on the real engine
 * (memory repository, the test providers), so HTTP and OPC UA callers share one lifecycle.
 */
const bus = shared.createInProcessEventBus();
const operationProviders = shared.createOperationProviderRegistry();
const { observations } = registerTestOperationProviders(operationProviders);
const engine = shared.createEngine({ repository: shared.createMemoryRepository(), bus, operationProviders });
const store = shared.createDirectStoreClient(engine);
const events: import("@twinport/shared").ChangeEvent[] = [];
const clientCertificates = new OPCUACertificateManager({
  rootFolder: join(dir, "client-pki"),
  automaticallyAcceptUnknownCertificate: true,
});
const logLines: string[] = [];
let gateway: Awaited<ReturnType<typeof startOpcuaGateway>>;
let client: InstanceType<typeof OPCUAClient>;
let session: ClientSession;
let ns: number;

/** A client on the None policy with this test's certificates; `options` adds to it. */
function plainClient(options: { defaultTransactionTimeout?: number } = {}) {
  return OPCUAClient.create({
    endpointMustExist: false,
    securityMode: MessageSecurityMode.None,
    securityPolicy: SecurityPolicy.None,
    clientCertificateManager: clientCertificates,
    connectionStrategy: { maxRetry: 0, initialDelay: 100 },
    ...options,
  });
}

before(async () => {
  await clientCertificates.initialize();
  const loaded = await store.execute({
    type: "LoadEnvironment",
    params: { body: JSON.stringify({ submodels: [operationsSubmodel(), STRUCTURED] }) },
  });
  assert.ok(loaded.ok);
  await bus.subscribe({ onEvent: (event) => events.push(event) });
  const port = await freePort();
  const { config } = shared.loadConfig({
    role: "opcua-gateway",
    endpointKinds: ["opcua"],
    overrides: [
      `endpoints[0].tcpPort=${port}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].hostname=127.0.0.1",
      "endpoints[0].secondsTillShutdown=0",
      `endpoints[0].serverCertificateBasePath=${join(dir, "PKI", "CA")}`,
      `endpoints[0].userCertificateBasePath=${join(dir, "USERS_PKI", "CA")}`,
    ],
  });
  gateway = await startOpcuaGateway({
    store,
    bus,
    endpoint: config.endpoints[0] as OpcUaEndpointConfig,
    stateDir: join(dir, "state"),
    log: (line) => logLines.push(String(line)),
  });
  client = plainClient();
  await client.connect(gateway.endpointUrl);
  session = await client.createSession();
  ns = (await session.readNamespaceArray()).indexOf(AAS_V3_NAMESPACE_URI);
  assert.ok(ns > 0);
});

after(async () => {
  await session?.close();
  await client?.disconnect();
  await gateway?.stop();
  await clientCertificates.dispose();
  await store.close();
  await engine.close();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

function call(
  idShortPath: string,
  inputArguments: InstanceType<typeof Variant>[],
  submodelId = OPERATIONS_SUBMODEL_ID,
) {
  const objectId = `ns=${ns};s=${elementNodeId(submodelId, idShortPath)}`;
  return session.call({
    objectId,
    methodId: `ns=${ns};s=${subNodeId(elementNodeId(submodelId, idShortPath), "Invoke")}`,
    inputArguments,
  });
}

/** An Operation whose first input is a collection (a JSON string over OPC UA), then a Property. */
const STRUCTURED = {
  modelType: "Submodel",
  id: "urn:twinport:test:structured-operation",
  submodelElements: [
    {
      modelType: "Operation",
      idShort: "Configure",
      inputVariables: [
        {
          value: {
            modelType: "SubmodelElementCollection",
            idShort: "Cfg",
            value: [{ modelType: "Property", idShort: "N", valueType: "xs:int" }],
          },
        },
        { value: { modelType: "Property", idShort: "Txt", valueType: "xs:string" } },
      ],
    },
  ],
};

test("a method call runs the Operation: typed inputs and outputs (xs:long as Int64), in-out variables keep their declaration", async () => {
  const result = await call("Add", [
    new Variant({ dataType: DataType.Int32, value: 3 }),
    new Variant({ dataType: DataType.Int32, value: 4 }),
  ]);
  assert.equal(result.statusCode.name, "Good", result.statusCode.toString());
  const [sum, big] = result.outputArguments!;
  assert.equal(sum.dataType, DataType.Int32);
  assert.equal(sum.value, 7);
  // In-out variables are not offered over OPC UA (spec §4.5): the provider got the declared value.
  assert.equal(observations.calls.at(-1)!.inoutputArguments[0].value, "0");
  assert.equal(big.dataType, DataType.Int64);
  const [high, low] = big.value as [number, number];
  assert.equal((BigInt(high) << 32n) + BigInt(low >>> 0), 3000000000000000001n, "every digit arrives");
  const kinds = events.filter((e) => e.kind.startsWith("operation.")).map((e) => [e.kind, e.origin]);
  assert.deepEqual(kinds.slice(-2), [
    ["operation.invoked", "opcua"],
    ["operation.finished", "opcua"],
  ]);
});

test("an Operation inside a collection; string arguments", async () => {
  const result = await call("Folder.Echo", [new Variant({ dataType: DataType.String, value: "über" })]);
  assert.equal(result.statusCode.name, "Good");
  assert.equal(result.outputArguments![0].value, "über");
});

test("failures are Bad statuses: the asset failed or refused, no provider, wrong argument types", async () => {
  assert.equal((await call("Fail", [])).statusCode.name, StatusCodes.BadDeviceFailure.name);
  assert.equal((await call("Refuse", [])).statusCode.name, StatusCodes.BadDeviceFailure.name);
  assert.equal(
    (await call("NoProvider", [new Variant({ dataType: DataType.String, value: "x" })])).statusCode.name,
    StatusCodes.BadDeviceFailure.name,
  );
  assert.ok(
    logLines.some((line) => /NoProvider ended Failed: No operation provider/.test(line)),
    "the reason is logged",
  );
  const wrongType = await call("Add", [
    new Variant({ dataType: DataType.String, value: "3" }),
    new Variant({ dataType: DataType.Int32, value: 1 }),
  ]);
  assert.notEqual(wrongType.statusCode.name, "Good");
  const calls = observations.calls.length;
  const tooFew = await call("Add", [new Variant({ dataType: DataType.Int32, value: 1 })]);
  assert.notEqual(tooFew.statusCode.name, "Good");
  assert.equal(observations.calls.length, calls, "a refused call never reaches the provider");
});

test("a call outlasting the client's timeoutHint answers BadTimeout before the client stops waiting", async () => {
  // This client waits 5 s for any answer (the RequestHeader's timeoutHint; node-opcua's default is
  // 15 s, its least 5 s).
  const impatient = plainClient({ defaultTransactionTimeout: 5000 });
  await impatient.connect(gateway.endpointUrl);
  const shortSession = await impatient.createSession();
  try {
    const started = Date.now();
    const slow = elementNodeId(OPERATIONS_SUBMODEL_ID, "Slow");
    const result = await shortSession.call({
      objectId: `ns=${ns};s=${slow}`,
      methodId: `ns=${ns};s=${subNodeId(slow, "Invoke")}`,
      inputArguments: [new Variant({ dataType: DataType.Int32, value: 30_000 })],
    });
    const took = Date.now() - started;
    assert.equal(result.statusCode.name, StatusCodes.BadTimeout.name);
    assert.ok(took >= 3500 && took < 5000, `answered after ${took} ms, within the hint and not long before it`);
  } finally {
    await shortSession.close();
    await impatient.disconnect();
  }
});

test("the time a call may run follows the client's timeoutHint", () => {
  assert.equal(invocationTimeoutMs(undefined), shared.DEFAULT_SYNC_INVOCATION_TIMEOUT_MS);
  assert.equal(invocationTimeoutMs(0), shared.DEFAULT_SYNC_INVOCATION_TIMEOUT_MS, "0: the client sets none");
  assert.equal(invocationTimeoutMs(15_000), 14_000);
  assert.equal(invocationTimeoutMs(120_000), 119_000, "a longer hint than the default is honoured");
  assert.equal(invocationTimeoutMs(500), 400);
  assert.equal(invocationTimeoutMs(2 ** 32 - 1), shared.MAX_SYNC_INVOCATION_TIMEOUT_MS - 1000, "at most a day");
});

test("an argument that does not fit its collection variable is named in inputArgumentResults", async () => {
  const calls = observations.calls.length;
  const text = new Variant({ dataType: DataType.String, value: "t" });
  for (const cfg of ['"str"', '{"Zzz":1}', '{"N":"x"}']) {
    const result = await call(
      "Configure",
      [new Variant({ dataType: DataType.String, value: cfg }), text],
      STRUCTURED.id,
    );
    assert.equal(result.statusCode.name, StatusCodes.BadInvalidArgument.name, cfg);
    assert.deepEqual(
      result.inputArgumentResults!.map((status) => status.name),
      [StatusCodes.BadTypeMismatch.name, "Good"],
      cfg,
    );
  }
  // Not JSON at all: BadInvalidArgument for that argument, as before.
  const garbled = await call(
    "Configure",
    [new Variant({ dataType: DataType.String, value: "{" }), text],
    STRUCTURED.id,
  );
  assert.deepEqual(
    garbled.inputArgumentResults!.map((status) => status.name),
    [StatusCodes.BadInvalidArgument.name, "Good"],
  );
  assert.equal(observations.calls.length, calls, "a refused call never reaches a provider");
});

test("a call running when the store is reset ends Canceled (last: the reset empties the model)", async () => {
  const running = call("Slow", [new Variant({ dataType: DataType.Int32, value: 60_000 })]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const reset = await store.execute({ type: "ResetStore", params: {} });
  assert.ok(reset.ok);
  assert.equal((await running).statusCode.name, StatusCodes.BadRequestCancelledByRequest.name);
});
