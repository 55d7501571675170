import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createHttpApp } from "../create-http-app.ts";
import { httpEndpointSettings } from "../http-endpoint-settings.ts";
import { assertResult, call } from "../test-support/call.ts";
import { b64, type ExampleStore, exampleStore, SUBMODEL_1 } from "../test-support/example-store.ts";

const newSubmodel = (id: string, extra: object = {}) =>
  JSON.stringify({
    modelType: "Submodel",
    id,
    idShort: "Posted",
    submodelElements: [{ modelType: "Property", idShort: "P", valueType: "xs:int", value: "1" }],
    ...extra,
  });

describe("Submodel Repository API (/submodels)", () => {
  let example: ExampleStore;
  let app: ReturnType<typeof createHttpApp>;
  before(async () => {
    example = await exampleStore();
    app = createHttpApp({ store: example.store, settings: httpEndpointSettings() });
  });
  after(() => example.close());

  it("GET /submodels: paged result of submodels with their elements", async () => {
    const all = await call(app, "GET", "/api/v3.0/submodels");
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.json), ["paging_metadata", "result"]);
    assert.deepEqual(all.json.paging_metadata, {});
    assert.equal(all.json.result.length, 6);
    assert.ok(all.json.result.every((submodel: { modelType: string }) => submodel.modelType === "Submodel"));
    assert.ok(all.json.result[0].submodelElements.length > 0);
    const page = await call(app, "GET", "/api/v3.0/submodels?limit=4");
    assert.equal(page.json.result.length, 4);
    const rest = await call(
      app,
      "GET",
      `/api/v3.0/submodels?limit=4&cursor=${encodeURIComponent(page.json.paging_metadata.cursor)}`,
    );
    assert.equal(rest.json.result.length, 2);
    assert.deepEqual(rest.json.paging_metadata, {});
  });

  it("GET /submodels takes level, extent, idShort and semanticId; rejects bad values", async () => {
    assert.equal((await call(app, "GET", "/api/v3.0/submodels?level=core&extent=withBlobValue")).status, 200);
    const byIdShort = await call(app, "GET", "/api/v3.0/submodels?idShort=Identification");
    assert.equal(byIdShort.json.result.length, 3);
    const semantic = await call(
      app,
      "GET",
      `/api/v3.0/submodels?semanticId=${b64("https://example.org/semantics/TechnicalData/1/0")}`,
    );
    assert.equal(semantic.status, 200);
    assert.equal(semantic.json.result.length, 6);
    const none = await call(app, "GET", `/api/v3.0/submodels?semanticId=${b64("urn:no-such-semantics")}`);
    assert.deepEqual(none.json, { paging_metadata: {}, result: [] });
    for (const query of [
      "level=shallow",
      "extent=all",
      "semanticId=not+base64url",
      "idShort=a&idShort=b",
      "content=value",
      "limit=0",
      "limit=-1",
      "level=%23%23%23%23%23",
    ]) {
      assertResult(await call(app, "GET", `/api/v3.0/submodels?${query}`), 400);
    }
  });

  it("POST /submodels: 201, Location, body; 409 for an existing id; 400 for a shell body", async () => {
    const id = "urn:example:submodel:posted";
    const posted = await call(app, "POST", "/api/v3.0/submodels", { body: newSubmodel(id) });
    assert.equal(posted.status, 201, posted.text);
    assert.equal(posted.headers.get("location"), `/api/v3.0/submodels/${b64(id)}`);
    assert.equal(posted.json.id, id);
    assert.equal(posted.json.submodelElements[0].idShort, "P");
    assert.equal((await call(app, "GET", posted.headers.get("location")!)).json.id, id);
    assertResult(await call(app, "POST", "/api/v3.0/submodels", { body: newSubmodel(id) }), 409);
    assertResult(await call(app, "POST", "/api/v3.0/submodels", { body: newSubmodel(SUBMODEL_1) }), 409);
    const shell = JSON.stringify({
      modelType: "AssetAdministrationShell",
      id: "urn:x",
      assetInformation: { assetKind: "Instance" },
    });
    assertResult(await call(app, "POST", "/api/v3.0/submodels", { body: shell }), 400);
    assertResult(await call(app, "POST", "/api/v3.0/submodels"), 400, /empty/);
  });

  it("GET /submodels/$metadata, $value, $reference, $path: paged, filtered, strict modifiers", async () => {
    const meta = await call(app, "GET", "/api/v3.0/submodels/$metadata?idShort=Identification&limit=2");
    assert.equal(meta.status, 200);
    assert.equal(meta.json.result.length, 2);
    assert.ok(
      meta.json.result.every(
        (s: { submodelElements?: unknown; idShort: string }) =>
          s.submodelElements === undefined && s.idShort === "Identification",
      ),
    );
    assert.ok(meta.json.paging_metadata.cursor);
    const values = await call(app, "GET", "/api/v3.0/submodels/$value?limit=1&extent=withBlobValue");
    assert.equal(values.json.result[0].Firmware.value, "SGVsbG8gQUFTIQ==");
    const refs = await call(app, "GET", "/api/v3.0/submodels/$reference");
    assert.deepEqual(refs.json.result[0], { type: "ModelReference", keys: [{ type: "Submodel", value: SUBMODEL_1 }] });
    const paths = await call(app, "GET", "/api/v3.0/submodels/$path?level=core&limit=3");
    assert.deepEqual(paths.json.result, ["Dimensions", "Tags", "Functions"]);
    const same = await call(app, "GET", "/api/v3.0/submodels?content=path&level=core&limit=3");
    assert.deepEqual(same.json, paths.json);
    const reference = JSON.stringify({
      type: "ExternalReference",
      keys: [{ type: "GlobalReference", value: "https://example.org/semantics/TechnicalData/1/0" }],
    });
    assert.equal(
      (await call(app, "GET", `/api/v3.0/submodels/$reference?semanticId=${b64(reference)}`)).json.result.length,
      6,
    );
    for (const query of [
      "$metadata?extent=withBlobValue",
      "$reference?level=deep",
      "$path?extent=withBlobValue",
      "$value?limit=-1",
      "$path?cursor=",
      "$metadata?content=path",
    ]) {
      assertResult(await call(app, "GET", `/api/v3.0/submodels/${query}`), 400);
    }
    assertResult(await call(app, "POST", "/api/v3.0/submodels/$value", { body: "{}" }), 405);
  });

  it("answers 405 for PUT/DELETE on the collection", async () => {
    assertResult(await call(app, "PUT", "/api/v3.0/submodels", { body: "{}" }), 405);
    assertResult(await call(app, "DELETE", "/api/v3.0/submodels"), 405);
  });
});
