import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  encodeBase64Url as b64,
  createDirectStoreClient,
  createEngine,
  createMemoryRepository,
  createOperationProviderRegistry,
  type StoreClient,
} from "@twinport/shared";
import {
  OPERATIONS_SUBMODEL_ID,
  operationsSubmodel,
  registerTestOperationProviders,
} from "@twinport/shared/test-support";
import { createHttpApp } from "../create-http-app.ts";
import { httpEndpointSettings } from "../http-endpoint-settings.ts";
import { assertResult, call } from "../test-support/call.ts";

const SHELL = "urn:twinport:test:operations-shell";
const MOUNTS = [
  { name: "/submodels/{id}", base: `/api/v3.0/submodels/${b64(OPERATIONS_SUBMODEL_ID)}` },
  {
    name: "/shells/{aas}/submodels/{id}",
    base: `/api/v3.0/shells/${b64(SHELL)}/submodels/${b64(OPERATIONS_SUBMODEL_ID)}`,
  },
  {
    name: "/shells/{aas}/aas/submodels/{id}/submodel",
    base: `/api/v3.0/shells/${b64(SHELL)}/aas/submodels/${b64(OPERATIONS_SUBMODEL_ID)}/submodel`,
  },
];

const prop = (idShort: string, valueType: string, value: string) => ({
  value: { modelType: "Property", idShort, valueType, value },
});
const json = (value: unknown) => ({ body: JSON.stringify(value), headers: { "Content-Type": "application/json" } });

/** The real engine on memory, with the test providers registered in it. */
async function operationsStore(): Promise<{ store: StoreClient; close(): Promise<void> }> {
  const repository = createMemoryRepository();
  const operationProviders = createOperationProviderRegistry();
  registerTestOperationProviders(operationProviders);
  const engine = createEngine({ repository, operationProviders });
  const store = createDirectStoreClient(engine);
  const shell = {
    modelType: "AssetAdministrationShell",
    id: SHELL,
    assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset" },
    submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: OPERATIONS_SUBMODEL_ID }] }],
  };
  const environment = { assetAdministrationShells: [shell], submodels: [operationsSubmodel()] };
  const loaded = await store.execute({ type: "LoadEnvironment", params: { body: JSON.stringify(environment) } });
  assert.ok(loaded.ok);
  return { store, close: async () => (await store.close(), await engine.close(), await repository.close()) };
}

for (const mount of MOUNTS) {
  describe(`operations at ${mount.name}`, () => {
    let close: () => Promise<void>;
    let app: ReturnType<typeof createHttpApp>;
    const element = (path: string) => `${mount.base}/submodel-elements/${encodeURIComponent(path)}`;
    before(async () => {
      const started = await operationsStore();
      close = started.close;
      app = createHttpApp({ store: started.store, settings: httpEndpointSettings() });
    });
    after(() => close());

    it("POST …/invoke: 200 with the OperationResult; …/invoke/$value: 200 with the ValueOnly result", async () => {
      const full = await call(
        app,
        "POST",
        `${element("Add")}/invoke`,
        json({
          inputArguments: [prop("a", "xs:int", "1"), prop("b", "xs:int", "2")],
          inoutputArguments: [prop("counter", "xs:int", "5")],
        }),
      );
      assert.equal(full.status, 200, full.text);
      assert.equal(full.headers.get("content-type"), "application/json");
      assert.equal(full.json.executionState, "Completed");
      assert.equal(full.json.success, true);
      assert.deepEqual(
        full.json.outputArguments.map((v: any) => [v.value.idShort, v.value.value]),
        [
          ["sum", "3"],
          ["big", "1000000000000000001"],
        ],
      );
      assert.deepEqual(full.json.inoutputArguments[0].value.value, "6");
      const value = await call(
        app,
        "POST",
        `${element("Add")}/invoke/$value`,
        json({ inputArguments: { a: 3 }, clientTimeoutDuration: "PT10S" }),
      );
      assert.equal(value.status, 200, value.text);
      assert.match(value.text, /"big":3000000000000000001[,}]/);
      assert.equal(value.json.outputArguments.sum, 10);
      assert.deepEqual(value.json.inoutputArguments, { counter: 1 });
    });

    it("an execution failure is still 200, with executionState Failed and its messages", async () => {
      const failed = await call(app, "POST", `${element("Fail")}/invoke`, json({}));
      assert.equal(failed.status, 200);
      assert.equal(failed.json.executionState, "Failed");
      assert.match(failed.json.messages[0].text, /overheated/);
      const none = await call(app, "POST", `${element("NoProvider")}/invoke`, { body: "" });
      assert.equal(none.json.executionState, "Failed");
      assert.match(none.json.messages[0].text, /No operation provider/);
      const timeout = await call(
        app,
        "POST",
        `${element("Slow")}/invoke`,
        json({ inputArguments: [prop("delayMs", "xs:int", "5000")], clientTimeoutDuration: "PT0.1S" }),
      );
      assert.equal(timeout.status, 200);
      assert.equal(timeout.json.executionState, "Timeout");
    });

    it("invoke-async: 202 + Location below the same mount; status 200 while running, 302 to the results once finished", async () => {
      const started = await call(
        app,
        "POST",
        `${element("Slow")}/invoke-async`,
        json({ inputArguments: [prop("delayMs", "xs:int", "150")] }),
      );
      assert.equal(started.status, 202, started.text);
      assert.equal(started.text, "", "AAS Part 2 defines no body for this 202");
      assert.equal(started.headers.get("content-type"), null);
      const location = started.headers.get("location")!;
      const handle = location.slice(location.lastIndexOf("/") + 1);
      assert.equal(location, `${element("Slow")}/operation-status/${handle}`);
      const running = await call(app, "GET", location);
      assert.equal(running.status, 200);
      assert.ok(["Initiated", "Running"].includes(running.json.executionState));
      assert.deepEqual(Object.keys(running.json).sort(), ["executionState", "messages"]);
      let finished = running;
      for (let i = 0; i < 100 && finished.status === 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished = await call(app, "GET", location);
      }
      assert.equal(finished.status, 302);
      const results = finished.headers.get("location")!;
      assert.equal(results, `${element("Slow")}/operation-results/${handle}`);
      const result = await call(app, "GET", results);
      assert.equal(result.status, 200);
      assert.equal(result.json.executionState, "Completed");
      assert.equal(result.json.outputArguments[0].value.value, "true");
      const value = await call(app, "GET", `${results}/$value`);
      assert.deepEqual(value.json.outputArguments, { done: true });
    });

    it("invoke-async/$value, the legacy ?async=true and the invoke-asnyc spelling all start an asynchronous invocation", async () => {
      for (const path of ["/invoke-async/$value", "/invoke/$value?async=true", "/invoke-asnyc/$value"]) {
        const started = await call(
          app,
          "POST",
          `${element("Folder.Echo")}${path}`,
          json({ inputArguments: { text: path } }),
        );
        assert.equal(started.status, 202, `${path}: ${started.text}`);
        assert.match(
          started.headers.get("location")!,
          new RegExp(`^${element("Folder.Echo").replace(/[$.[\]]/g, "\\$&")}/operation-status/`),
        );
        let status = await call(app, "GET", started.headers.get("location")!);
        for (let i = 0; i < 100 && status.status === 200; i++)
          status = await call(app, "GET", started.headers.get("location")!);
        const value = await call(app, "GET", `${status.headers.get("location")}/$value`);
        assert.deepEqual(value.json.outputArguments, { echo: path });
      }
      const full = await call(app, "POST", `${element("Add")}/invoke?async=true`, json({}));
      assert.equal(full.status, 202);
      const sync = await call(app, "POST", `${element("Add")}/invoke?async=false`, json({}));
      assert.equal(sync.status, 200);
      assertResult(
        await call(app, "POST", `${element("Add")}/invoke?async=yes`, json({})),
        400,
        /must be true or false/,
      );
    });

    it("errors known at request time: 400 arguments, 405 not an Operation, 404 unknown element or handle", async () => {
      assertResult(
        await call(app, "POST", `${element("Add")}/invoke`, json({ inputArguments: [prop("a", "xs:string", "x")] })),
        400,
        /valueType xs:int/,
      );
      assertResult(
        await call(
          app,
          "POST",
          `${element("Add")}/invoke-async`,
          json({ inputArguments: [prop("nope", "xs:int", "1")] }),
        ),
        400,
        /not a declared input/,
      );
      assertResult(await call(app, "POST", `${element("Add")}/invoke`, { body: "[1" }), 400);
      assertResult(await call(app, "POST", `${element("NotAnOperation")}/invoke`, json({})), 405, /Only an Operation/);
      assertResult(await call(app, "POST", `${element("Missing")}/invoke-async`, json({})), 404);
      assertResult(
        await call(app, "GET", `${element("Add")}/operation-status/${b64("unknown")}`),
        404,
        /unknown, or expired/,
      );
      assertResult(await call(app, "GET", `${element("Add")}/operation-results/${b64("unknown")}/$value`), 404);
      assertResult(await call(app, "GET", `${element("Add")}/operation-status/not*base64`), 400);
      assertResult(await call(app, "GET", `${element("Add")}/invoke`), 405);
      assertResult(await call(app, "POST", `${element("Add")}/invoke?level=core`, json({})), 400);
    });
  });
}

describe("operations and profiles", () => {
  let close: () => Promise<void>;
  let store: StoreClient;
  before(async () => {
    const started = await operationsStore();
    close = started.close;
    store = started.store;
  });
  after(() => close());
  const add = `/api/v3.0/submodels/${b64(OPERATIONS_SUBMODEL_ID)}/submodel-elements/Add`;

  it("SUBMODEL_VALUE serves the synchronous invocation only; read profiles serve none", async () => {
    const valueApp = createHttpApp({ store, settings: httpEndpointSettings({ profiles: ["SUBMODEL_VALUE"] }) });
    assert.equal((await call(valueApp, "POST", `${add}/invoke`, json({}))).status, 200);
    assert.equal((await call(valueApp, "POST", `${add}/invoke/$value`, json({}))).status, 200);
    assertResult(await call(valueApp, "POST", `${add}/invoke-async`, json({})), 404);
    const readApp = createHttpApp({
      store,
      settings: httpEndpointSettings({ profiles: ["SUBMODEL_REPOSITORY_READ", "AAS_REPOSITORY_READ"] }),
    });
    assertResult(await call(readApp, "POST", `${add}/invoke`, json({})), 404);
    assertResult(await call(readApp, "GET", `${add}/operation-status/${b64("x")}`), 404);
  });
});
