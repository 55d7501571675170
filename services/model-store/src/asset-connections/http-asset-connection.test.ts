import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import {
  ASSET_TEST_MODEL,
  DRIVE_SUBMODEL_ID,
  type HttpAsset,
  startHttpAsset,
} from "../../../../tests/test-support/asset-peers.ts";
import { freePort } from "../../../../tests/test-support/servers.ts";
import { type RunningAssetConnections, startAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, type TestStore, until } from "./test-support/asset-connections.ts";

const HTTP = "de.fraunhofer.iosb.ilt.faaast.service.assetconnection.http.HttpAssetConnection";
const key = (...path: string[]) => [`(Submodel)${DRIVE_SUBMODEL_ID}`, ...path].join(", ");
const lines: string[] = [];

let asset: HttpAsset;
let sut: TestStore;
let connections: RunningAssetConnections | undefined;

async function start(...configs: unknown[]): Promise<RunningAssetConnections> {
  connections = await startAssetConnections({
    connections: assetConnectionsConfig(...configs),
    store: sut.store,
    bus: sut.bus,
    operationProviders: sut.registry,
    retryIntervalMs: 100,
    readTimeoutMs: 1000,
    log: (line) => void lines.push(line),
  });
  return connections;
}

const patchValue = (idShortPath: string, body: unknown) =>
  sut.store.execute({
    type: "PatchSubmodelElementValueByPath",
    params: { submodelId: DRIVE_SUBMODEL_ID, idShortPath, body: JSON.stringify(body) },
    origin: "http",
  });

before(async () => {
  asset = await startHttpAsset();
});
after(async () => {
  await asset.stop();
});
beforeEach(async () => {
  await connections?.stop();
  connections = undefined;
  await sut?.close();
  sut = await startTestStore(ASSET_TEST_MODEL);
  asset.documents.clear();
  asset.requests.length = 0;
  asset.handle = undefined;
  lines.length = 0;
});
after(async () => {
  await connections?.stop();
  await sut?.close();
});

describe("HTTP subscription provider", () => {
  test("polled values reach the model as value-changed events with origin asset, only when they change", async () => {
    asset.documents.set("/api/status", { temperature: { value: 21.5 }, mode: "auto" });
    await start({
      "@class": HTTP,
      baseUrl: asset.url,
      subscriptionProviders: {
        [key("(Property)Temperature")]: {
          format: "JSON",
          path: "/api/status",
          query: "$.temperature.value",
          interval: 100,
        },
        // FA³ST's docs show method on subscription providers; its code ignores it, ours too (with a warning at load).
        [key("(SubmodelElementCollection)Status", "(Property)Mode")]: {
          format: "JSON",
          path: "/api/status",
          query: "$.mode",
          interval: 100,
          method: "GET",
        },
      },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "21.5");
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Status.Mode", (e) => e.value === "auto");
    // Several polls of the same value: no further event.
    await until(() => asset.requests.length >= 8, "more polls");
    const fromAsset = () => sut.events.filter((e) => e.origin === "asset" && e.idShortPath === "Temperature");
    assert.equal(fromAsset().length, 1);
    assert.equal(fromAsset()[0]!.kind, "element.value-changed");
    asset.documents.set("/api/status", { temperature: { value: 22 }, mode: "auto" });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "22");
    assert.equal(fromAsset().length, 2);
    assert.equal(
      asset.requests[0]!.headers["content-type"],
      "application/json",
      "FA³ST sends the format's content type on every request",
    );
  });

  test("a value changed through an endpoint on a subscribed-only element returns to the asset's value", async () => {
    asset.documents.set("/t", 18);
    await start({
      "@class": HTTP,
      baseUrl: asset.url,
      subscriptionProviders: { [key("(Property)Temperature")]: { format: "JSON", path: "/t", interval: 100 } },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "18");
    await patchValue("Temperature", 99);
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "18");
    assert.equal(asset.requests.filter((r) => r.method !== "GET").length, 0, "a subscription never writes");
  });

  test("an unreachable asset does not hold up start; the provider reports it, then recovers", async () => {
    const port = await freePort();
    const begun = Date.now();
    const running = await start({
      "@class": HTTP,
      baseUrl: `http://127.0.0.1:${port}`,
      subscriptionProviders: { [key("(Property)Temperature")]: { format: "JSON", path: "/t", interval: 100 } },
    });
    assert.ok(Date.now() - begun < 1000, "start returns at once");
    await until(() => running.status()[0]!.failingProviders.length === 1, "the failing provider in the status");
    const [status] = running.status();
    assert.equal(status!.state, "connected", "HTTP 'connects' without the asset, as in FA³ST");
    assert.match(status!.failingProviders[0]!.error, /ECONNREFUSED/);
    assert.equal(lines.filter((l) => l.includes("ECONNREFUSED")).length, 1, "logged once, not at every poll");
    // Nothing answered: the log says "configured", never "connected to" (issue 18.3).
    assert.ok(
      lines.some((l) => l.includes(`configured http://127.0.0.1:${port}`)),
      lines.join("\n"),
    );
    assert.ok(!lines.some((l) => l.includes("connected to")), lines.join("\n"));
    const late = await startHttpAsset({ port });
    try {
      late.documents.set("/t", 30.25);
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "30.25");
      await until(() => running.status()[0]!.failingProviders.length === 0, "recovery in the status");
      assert.ok(lines.some((l) => l.includes("works again")));
      // The first successful request says "connected", once.
      assert.equal(
        lines.filter((l) => l.includes(`connected to http://127.0.0.1:${port}`)).length,
        1,
        lines.join("\n"),
      );
    } finally {
      await late.stop();
    }
  });

  test("a value that does not fit the element is reported, not stored", async () => {
    asset.documents.set("/s", { speed: "fast" });
    const running = await start({
      "@class": HTTP,
      baseUrl: asset.url,
      subscriptionProviders: {
        [key("(SubmodelElementCollection)Status", "(Property)Speed")]: {
          format: "JSON",
          path: "/s",
          query: "$.speed",
          interval: 100,
        },
      },
    });
    await until(() => running.status()[0]!.failingProviders.length === 1, "the failure");
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Status.Speed")).value, "0");
  });
});

describe("HTTP value provider", () => {
  test("reads the asset into the model, and writes model changes made through an endpoint with the template", async () => {
    asset.documents.set("/api/setpoint", { data: { setpoint: 5 } });
    await start({
      "@class": HTTP,
      baseUrl: `${asset.url}/`,
      valueProviders: {
        [key("(Property)Setpoint")]: {
          format: "JSON",
          path: "api/setpoint",
          query: "$.data.setpoint",
          template: '{"data": {"setpoint": ${value}}}',
          readInterval: 100,
        },
      },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "5");
    assert.equal((await patchValue("Setpoint", 42)).ok, true);
    const put = await asset.waitForRequest((r) => r.method === "PUT");
    assert.equal(put.path, "/api/setpoint");
    assert.deepEqual(JSON.parse(put.body), { data: { setpoint: 42 } });
    // The asset now holds 42; later polls keep the model there and make no event of their own.
    await until(() => asset.requests.filter((r) => r.method === "GET").length >= 6, "more polls");
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Setpoint")).value, "42");
    assert.equal(sut.events.filter((e) => e.idShortPath === "Setpoint" && e.origin === "asset").length, 1);
    assert.equal(
      asset.requests.filter((r) => r.method === "PUT").length,
      1,
      "the asset's own value is not written back to it",
    );
  });

  test("a change of the container (PATCH $value of a collection), or of the whole submodel, reaches the provider of the element inside", async () => {
    asset.documents.set("/mode", "off");
    await start({
      "@class": HTTP,
      baseUrl: asset.url,
      valueProviders: {
        [key("(SubmodelElementCollection)Status", "(Property)Mode")]: {
          format: "JSON",
          path: "/mode",
          readInterval: 0,
        },
      },
    });
    await until(() => asset.requests.length >= 1, "the first read");
    assert.equal((await patchValue("Status", { Mode: "manual", Speed: 3 })).ok, true);
    const put = await asset.waitForRequest((r) => r.method === "PUT");
    assert.equal(put.body, '"manual"');
    // A write of the whole submodel (PATCH of its $value): FA³ST reads the asset again instead,
    // which undid the client's value at once.
    const patched = await sut.store.execute({
      type: "PatchSubmodelById",
      params: { submodelId: DRIVE_SUBMODEL_ID, body: JSON.stringify({ Status: { Mode: "auto" } }), content: "value" },
      origin: "http",
    });
    assert.equal(patched.ok, true, JSON.stringify(patched));
    const second = await asset.waitForRequest((r) => r.method === "PUT" && r.body === '"auto"');
    assert.equal(second.path, "/mode");
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Status.Mode")).value, "auto");
  });

  test("strings are JSON-escaped into the template, replaced literally ($ and \\ survive)", async () => {
    await start({
      "@class": HTTP,
      baseUrl: asset.url,
      valueProviders: {
        [key("(Property)Label")]: {
          format: "JSON",
          path: "/label",
          template: '{"label": ${value}}',
          writeMethod: "POST",
          readWriteMode: "WRITE",
        },
      },
    });
    const text = 'say "$1" \\ then ${value}';
    assert.equal((await patchValue("Label", text)).ok, true);
    const post = await asset.waitForRequest((r) => r.method === "POST");
    assert.deepEqual(JSON.parse(post.body), { label: text });
    assert.equal(asset.requests.filter((r) => r.method === "GET").length, 0, "readWriteMode WRITE never reads");
  });

  test("a write the asset cannot take now is retried; readings meanwhile do not undo the client's change", async () => {
    asset.documents.set("/sp", 5);
    let refusals = 3;
    asset.handle = (request) =>
      request.method === "PUT" && refusals-- > 0 ? { status: 503, body: "busy" } : undefined;
    await start({
      "@class": HTTP,
      baseUrl: asset.url,
      valueProviders: { [key("(Property)Setpoint")]: { format: "JSON", path: "/sp", readInterval: 100 } },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "5");
    await patchValue("Setpoint", 9);
    await until(() => asset.requests.filter((r) => r.method === "PUT").length >= 4, "the retries");
    assert.equal(asset.documents.get("/sp"), 9);
    await until(() => asset.requests.filter((r) => r.method === "GET").length >= 8, "later polls");
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Setpoint")).value, "9");
    assert.equal(
      sut.events.filter(
        (e) => e.idShortPath === "Setpoint" && e.origin === "asset" && (e.payload as { value?: string }).value === "5",
      ).length,
      1,
      "5 was applied once, at the start only",
    );
  });

  for (const readInterval of [100, 0])
    test(`a write the asset refuses (4xx) is dropped, and the asset's value is read again (readInterval ${readInterval})`, async () => {
      asset.documents.set("/sp", 5);
      asset.handle = (request) =>
        request.method === "PUT" ? { status: 400, body: '{"error":"out of range"}' } : undefined;
      // readInterval 0: read once when the connection starts, then only after a refused write.
      await start({
        "@class": HTTP,
        baseUrl: asset.url,
        valueProviders: { [key("(Property)Setpoint")]: { format: "JSON", path: "/sp", readInterval } },
      });
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "5");
      await patchValue("Setpoint", 1000);
      await asset.waitForRequest((r) => r.method === "PUT");
      await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "5");
      assert.ok(
        lines.some((l) => /writing .* Setpoint to the asset failed: PUT .* answered 400/.test(l)),
        lines.join("\n"),
      );
      assert.equal(asset.requests.filter((r) => r.method === "PUT").length, 1, "not retried");
    });

  test("credentials are sent in answer to a Basic challenge, then up front", async () => {
    const expected = `Basic ${Buffer.from("reader:secret").toString("base64")}`;
    asset.handle = (request) =>
      request.headers.authorization === expected
        ? undefined
        : { status: 401, headers: { "WWW-Authenticate": 'Basic realm="device"' } };
    asset.documents.set("/t", 12.5);
    await start({
      "@class": HTTP,
      baseUrl: asset.url,
      username: "reader",
      password: "secret",
      headers: { "X-Device": "drive" },
      subscriptionProviders: {
        [key("(Property)Temperature")]: {
          format: "JSON",
          path: "/t",
          interval: 100,
          headers: { "X-Device": "override" },
        },
      },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "12.5");
    await until(() => asset.requests.length >= 5, "more polls");
    assert.equal(asset.requests[0]!.headers.authorization, undefined);
    assert.equal(asset.requests[1]!.headers.authorization, expected);
    assert.ok(
      asset.requests.slice(2).every((r) => r.headers.authorization === expected),
      "no second challenge",
    );
    assert.equal(asset.requests[0]!.headers["x-device"], "override", "a provider header replaces the connection's");
  });
});

describe("HTTP operation provider", () => {
  const operationConfig = (extra: Record<string, unknown> = {}) => ({
    "@class": HTTP,
    baseUrl: asset.url,
    operationProviders: {
      [key("(Operation)Calibrate")]: {
        format: "JSON",
        path: "/calibrate/${Cycles}",
        template: '{"offset": ${Offset}, "cycles": ${Cycles}}',
        queries: { Deviation: "$.result.deviation" },
        ...extra,
      },
    },
  });

  /** The provider of Calibrate called with no arguments (its declared values fill them). */
  const invokeCalibrate = () =>
    sut.registry.find(DRIVE_SUBMODEL_ID, "Calibrate")!.invoke({
      submodelId: DRIVE_SUBMODEL_ID,
      idShortPath: "Calibrate",
      inputArguments: [],
      inoutputArguments: [],
      signal: new AbortController().signal,
    });

  test("invoked through the engine: template filled (a missing input takes its declared value), result read with the query", async () => {
    asset.handle = (request) =>
      request.method === "POST"
        ? { status: 200, body: JSON.stringify({ result: { deviation: JSON.parse(request.body).offset * 3 } }) }
        : undefined;
    await start(operationConfig());
    const reply = await sut.store.execute({
      type: "InvokeOperation",
      params: {
        submodelId: DRIVE_SUBMODEL_ID,
        idShortPath: "Calibrate",
        body: JSON.stringify({
          inputArguments: [
            { value: { modelType: "Property", idShort: "Offset", valueType: "xs:double", value: "1.5" } },
          ],
        }),
      },
      origin: "http",
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    const result = (
      reply as {
        value: {
          executionState: string;
          success: boolean;
          outputArguments: { value: { idShort: string; value: string } }[];
        };
      }
    ).value;
    assert.equal(result.executionState, "Completed", JSON.stringify(result));
    assert.deepEqual(
      result.outputArguments.map((a) => [a.value.idShort, a.value.value]),
      [["Deviation", "4.5"]],
    );
    const post = await asset.waitForRequest((r) => r.method === "POST");
    assert.equal(post.path, "/calibrate/1", "placeholders in the path take the bare text");
    assert.deepEqual(JSON.parse(post.body), { offset: 1.5, cycles: 1 });
  });

  test("a failing asset fails the execution with its answer", async () => {
    asset.handle = () => ({ status: 500, body: '{"error":"motor stalled"}' });
    await start(operationConfig());
    await assert.rejects(invokeCalibrate(), /POST .*\/calibrate\/1 answered 500: \{"error":"motor stalled"\}/);
  });

  test("an answer that gives no valid value for an output fails the execution (not a success with its default)", async () => {
    let answer = "";
    asset.handle = () => ({ status: 200, body: answer });
    await start(operationConfig());
    for (const body of ["", "{{{not json", '{"result":{}}', '{"result":{"deviation":"abc"}}', '{"result":[1,2]}']) {
      answer = body;
      await assert.rejects(invokeCalibrate(), /no valid value for the output Deviation/, JSON.stringify(body));
    }
    answer = '{"result":{"deviation":2.25}}';
    const outcome = await invokeCalibrate();
    assert.deepEqual(
      (outcome.outputArguments ?? []).map((a) => [a.idShort, a.value]),
      [["Deviation", "2.25"]],
    );
  });

  test("REQUIRE_PRESENT: a missing input fails before the asset is called", async () => {
    await start(operationConfig({ inputValidationMode: "REQUIRE_PRESENT" }));
    await assert.rejects(invokeCalibrate(), /input argument Offset is missing/);
    assert.equal(asset.requests.length, 0);
  });

  test("keyed on an element that is no Operation: a warning at start names it and says why it is ignored; an Operation beside it gets none", async () => {
    await start({
      "@class": HTTP,
      baseUrl: asset.url,
      operationProviders: {
        [key("(Property)Setpoint")]: { format: "JSON", path: "/setpoint" },
        [key("(Operation)Setpoint2")]: { format: "JSON", path: "/missing-operation" },
        [key("(Property)NotThere")]: { format: "JSON", path: "/not-there" },
        [key("(Operation)Calibrate")]: { format: "JSON", path: "/calibrate" },
      },
    });
    const warnings = lines.filter((l) => l.includes("operationProviders"));
    assert.equal(warnings.length, 2, warnings.join("\n"));
    assert.match(
      warnings[0]!,
      /^twinport asset-connections: assetConnections\[0\]\.operationProviders\[".*\(Property\)Setpoint"\]: urn:twinport:test:submodel:drive Setpoint is a Property, not an Operation; the provider is ignored \(only an Operation can be invoked\)$/,
    );
    assert.match(
      warnings[1]!,
      /\(Property\)NotThere"\]: the key names a Property, not an Operation, and the model has no element .* NotThere/,
    );
    assert.equal(asset.requests.length, 0);
  });

  test("ASYNC_AAS: 202 + Location, status polled until the 302 to the result", async () => {
    let polls = 0;
    asset.handle = (request) => {
      if (request.method === "POST") return { status: 202, headers: { Location: "/jobs/7/status" } };
      if (request.path === "/jobs/7/status")
        return ++polls < 3
          ? { status: 200, body: '{"executionState":"Running","messages":[]}' }
          : { status: 302, headers: { Location: "/jobs/7/result" } };
      if (request.path === "/jobs/7/result") return { status: 200, body: '{"result":{"deviation":2.25}}' };
      return undefined;
    };
    await start(operationConfig({ mode: "ASYNC_AAS", asyncPollInterval: 20 }));
    const outcome = await sut.registry.find(DRIVE_SUBMODEL_ID, "Calibrate")!.invoke({
      submodelId: DRIVE_SUBMODEL_ID,
      idShortPath: "Calibrate",
      inputArguments: [{ modelType: "Property", idShort: "Offset", valueType: "xs:double", value: "0.75" }],
      inoutputArguments: [],
      signal: new AbortController().signal,
    });
    assert.deepEqual(
      outcome.outputArguments?.map((a) => a.value),
      ["2.25"],
    );
    assert.equal(polls, 3);
  });
});

test("a reading value provider and a subscription provider for one element: a warning at start names both; a writing-only one beside a subscription is fine", async () => {
  await start(
    {
      "@class": HTTP,
      baseUrl: asset.url,
      valueProviders: {
        [key("(Property)Temperature")]: { format: "JSON", path: "/t", readInterval: 0 },
        [key("(Property)Setpoint")]: { format: "JSON", path: "/s", readWriteMode: "WRITE" },
      },
      subscriptionProviders: { [key("(Property)Setpoint")]: { format: "JSON", path: "/s", interval: 1000 } },
    },
    {
      "@class": HTTP,
      baseUrl: `${asset.url}/other`,
      subscriptionProviders: { [key("(Property)Temperature")]: { format: "JSON", path: "/t", interval: 1000 } },
    },
  );
  const warnings = lines.filter((l) => l.includes("both read the asset"));
  assert.deepEqual(warnings, [
    `twinport asset-connections: assetConnections[0].valueProviders[${JSON.stringify(key("(Property)Temperature"))}] and assetConnections[1].subscriptionProviders[${JSON.stringify(key("(Property)Temperature"))}] both read the asset into ${DRIVE_SUBMODEL_ID} Temperature: the element holds whichever reading came last; keep one of them, or give the value provider readWriteMode WRITE`,
  ]);
});

test("stop leaves nothing running: no request after it", async () => {
  asset.documents.set("/t", 1);
  const running = await start({
    "@class": HTTP,
    baseUrl: asset.url,
    subscriptionProviders: { [key("(Property)Temperature")]: { format: "JSON", path: "/t", interval: 100 } },
  });
  await until(() => asset.requests.length >= 2, "polls");
  await running.stop();
  connections = undefined;
  const count = asset.requests.length;
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(asset.requests.length, count);
  assert.equal(sut.registry.find(DRIVE_SUBMODEL_ID, "Calibrate"), undefined);
});
