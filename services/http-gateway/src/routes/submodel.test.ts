import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createHttpApp } from "../create-http-app.ts";
import { httpEndpointSettings } from "../http-endpoint-settings.ts";
import { assertResult, call } from "../test-support/call.ts";
import {
  b64,
  type ExampleStore,
  exampleStore,
  SHELL_1,
  SUBMODEL_1,
  SUBMODEL_2,
} from "../test-support/example-store.ts";

const property = (idShort: string | undefined, value: string) =>
  JSON.stringify({ modelType: "Property", ...(idShort ? { idShort } : {}), valueType: "xs:string", value });

// The same Submodel API is served at two mounts; every behaviour is checked at both.
const MOUNTS = [
  { name: "/submodels/{id}", base: `/api/v3.0/submodels/${b64(SUBMODEL_1)}` },
  { name: "/shells/{aas}/submodels/{id}", base: `/api/v3.0/shells/${b64(SHELL_1)}/submodels/${b64(SUBMODEL_1)}` },
  // The form spec §4.1.5 names; Location headers point to the v3.0.1 superpath.
  {
    name: "/shells/{aas}/aas/submodels/{id}/submodel",
    base: `/api/v3.0/shells/${b64(SHELL_1)}/aas/submodels/${b64(SUBMODEL_1)}/submodel`,
  },
];

for (const mount of MOUNTS) {
  describe(`Submodel API at ${mount.name}`, () => {
    let example: ExampleStore;
    let app: ReturnType<typeof createHttpApp>;
    const base = mount.base;
    const elements = `${base}/submodel-elements`;
    before(async () => {
      example = await exampleStore();
      app = createHttpApp({ store: example.store, settings: httpEndpointSettings() });
    });
    after(() => example.close());

    it("GET the submodel: 200 with ETag; level=core leaves out grandchildren; bad modifiers 400", async () => {
      const deep = await call(app, "GET", base);
      assert.equal(deep.status, 200);
      assert.equal(deep.json.id, SUBMODEL_1);
      assert.match(deep.headers.get("etag") ?? "", /^"\d+"$/);
      const dimensions = deep.json.submodelElements.find((e: { idShort: string }) => e.idShort === "Dimensions");
      assert.ok(dimensions.value.length > 0);
      const core = await call(app, "GET", `${base}?level=core`);
      const coreDimensions = core.json.submodelElements.find((e: { idShort: string }) => e.idShort === "Dimensions");
      assert.ok(!coreDimensions.value || coreDimensions.value.length === 0);
      for (const query of ["level=medium", "extent=x", "limit=1", "cursor=abc", "content=value"])
        assertResult(await call(app, "GET", `${base}?${query}`), 400);
    });

    it("GET submodel-elements: paged, with cursor, limit checked", async () => {
      const all = await call(app, "GET", elements);
      assert.equal(all.status, 200);
      assert.deepEqual(all.json.paging_metadata, {});
      const idShorts = all.json.result.map((e: { idShort: string }) => e.idShort);
      assert.deepEqual(idShorts.slice(0, 3), ["Dimensions", "Tags", "Functions"]);
      const first = await call(app, "GET", `${elements}?limit=2`);
      assert.deepEqual(
        first.json.result.map((e: { idShort: string }) => e.idShort),
        ["Dimensions", "Tags"],
      );
      const second = await call(
        app,
        "GET",
        `${elements}?limit=2&cursor=${encodeURIComponent(first.json.paging_metadata.cursor)}`,
      );
      assert.deepEqual(
        second.json.result.map((e: { idShort: string }) => e.idShort),
        idShorts.slice(2, 4),
      );
      assertResult(await call(app, "GET", `${elements}?limit=zero`), 400, /limit/);
    });

    it("GET an element by idShortPath (dots, percent-encoded list index): 200 with ETag", async () => {
      const width = await call(app, "GET", `${elements}/Dimensions.Width`);
      assert.equal(width.status, 200);
      assert.deepEqual(width.json, { modelType: "Property", idShort: "Width", valueType: "xs:double", value: "0.25" });
      assert.match(width.headers.get("etag") ?? "", /^"\d+"$/);
      const tag = await call(app, "GET", `${elements}/Tags%5B1%5D`);
      assert.equal(tag.status, 200, tag.text);
      assert.equal(tag.json.value, "test");
      assertResult(await call(app, "GET", `${elements}/Dimensions.Nope`), 404);
      assertResult(await call(app, "GET", `${elements}/Tags%5B9%5D`), 404);
      assertResult(await call(app, "GET", `${elements}/Dimensions..Width`), 400);
    });

    it("GET …/$value: the wrapped ValueOnly form with ETag; %24value is the same path", async () => {
      const value = await call(app, "GET", `${elements}/Dimensions.Width/$value`);
      assert.equal(value.status, 200);
      assert.deepEqual(value.json, { Width: 0.25 });
      assert.match(value.headers.get("etag") ?? "", /^"\d+"$/);
      const escaped = await call(app, "GET", `${elements}/Dimensions.Width/%24value`);
      assert.deepEqual(escaped.json, { Width: 0.25 });
      const collection = await call(app, "GET", `${elements}/Dimensions/$value`);
      assert.equal(collection.json.Dimensions.Width, 0.25);
    });

    it("PATCH …/$value: 204, the value changes, an event names origin http and the correlation id", async () => {
      const patched = await call(app, "PATCH", `${elements}/MaxRotationSpeed/$value`, {
        body: '{"MaxRotationSpeed": 6100}',
        headers: { "X-Correlation-Id": "patch-1" },
      });
      assert.equal(patched.status, 204, patched.text);
      assert.equal(patched.text, "");
      assert.equal(patched.headers.get("x-correlation-id"), "patch-1");
      assert.deepEqual((await call(app, "GET", `${elements}/MaxRotationSpeed/$value`)).json, {
        MaxRotationSpeed: 6100,
      });
      const event = example.events.at(-1)!;
      assert.equal(event.kind, "element.value-changed");
      assert.equal(event.idShortPath, "MaxRotationSpeed");
      assert.equal(event.origin, "http");
      assert.equal(event.correlationId, "patch-1");
      assertResult(await call(app, "PATCH", `${elements}/MaxRotationSpeed/$value`, { body: '"fast"' }), 400);
      assertResult(await call(app, "PATCH", `${elements}/MaxRotationSpeed/$value`, { body: "" }), 400, /empty/);
      assertResult(await call(app, "PATCH", `${elements}/NoSuchElement/$value`, { body: "1" }), 404);
    });

    it("PATCH …/$value honours If-Match", async () => {
      const etag = (await call(app, "GET", `${elements}/MaxRotationSpeed`)).headers.get("etag")!;
      assert.equal(
        (
          await call(app, "PATCH", `${elements}/MaxRotationSpeed/$value`, {
            body: "7000",
            headers: { "If-Match": etag },
          })
        ).status,
        204,
      );
      assertResult(
        await call(app, "PATCH", `${elements}/MaxRotationSpeed/$value`, {
          body: "7100",
          headers: { "If-Match": etag },
        }),
        412,
      );
    });

    it("POST at the root: 201, Location with the new idShortPath at this mount, body", async () => {
      const posted = await call(app, "POST", elements, { body: property("Added", "a") });
      assert.equal(posted.status, 201, posted.text);
      assert.equal(posted.headers.get("location"), `${base}/submodel-elements/Added`);
      assert.equal(posted.json.idShort, "Added");
      assert.equal((await call(app, "GET", posted.headers.get("location")!)).json.value, "a");
      assertResult(await call(app, "POST", elements, { body: property("Added", "again") }), 409);
      assertResult(await call(app, "POST", elements), 400, /empty/);
    });

    it("POST into a collection and into a list: Location names the child, list items by index", async () => {
      const intoCollection = await call(app, "POST", `${elements}/Dimensions`, { body: property("Colour", "red") });
      assert.equal(intoCollection.status, 201, intoCollection.text);
      assert.equal(intoCollection.headers.get("location"), `${base}/submodel-elements/Dimensions.Colour`);
      const intoList = await call(app, "POST", `${elements}/Tags`, { body: property(undefined, "new") });
      assert.equal(intoList.status, 201, intoList.text);
      assert.equal(intoList.headers.get("location"), `${base}/submodel-elements/Tags%5B2%5D`);
      assert.equal((await call(app, "GET", intoList.headers.get("location")!)).json.value, "new");
    });

    it("PUT an element: 204 and replaced; 404 when missing; 400 when the idShort differs", async () => {
      const put = await call(app, "PUT", `${elements}/Dimensions.Width`, {
        body: JSON.stringify({ modelType: "Property", idShort: "Width", valueType: "xs:double", value: "1.5" }),
      });
      assert.equal(put.status, 204, put.text);
      assert.equal((await call(app, "GET", `${elements}/Dimensions.Width`)).json.value, "1.5");
      assertResult(await call(app, "PUT", `${elements}/Dimensions.Missing`, { body: property("Missing", "x") }), 404);
      assertResult(await call(app, "PUT", `${elements}/Dimensions.Width`, { body: property("Other", "x") }), 400);
    });

    it("DELETE an element: 204, then 404", async () => {
      await call(app, "POST", elements, { body: property("Doomed", "x") });
      const deleted = await call(app, "DELETE", `${elements}/Doomed`);
      assert.equal(deleted.status, 204);
      assertResult(await call(app, "GET", `${elements}/Doomed`), 404);
    });

    it("answers 405 for methods a path does not have, 400 for unknown suffixes and extra segments", async () => {
      const putValue = await call(app, "PUT", `${elements}/Dimensions.Width/$value`, { body: "1" });
      assertResult(putValue, 405);
      assert.equal(putValue.headers.get("allow"), "GET, PATCH, HEAD");
      assertResult(await call(app, "DELETE", elements), 405);
      assertResult(await call(app, "POST", `${base}/$metadata`, { body: "{}" }), 405);
      assertResult(await call(app, "PATCH", `${elements}/Dimensions/$reference`, { body: "{}" }), 405);
      assertResult(await call(app, "GET", `${elements}/$bogus`), 400);
      assertResult(await call(app, "GET", `${elements}/Dimensions/Width`), 400);
      assertResult(await call(app, "GET", `${base}/unknown`), 400);
      assertResult(await call(app, "GET", `${base}/$value/more`), 400);
    });

    it("query parameters strictly per operation (AAS API §c)", async () => {
      const ok = [
        `${base}/$metadata?level=core`,
        `${base}/$reference?level=deep`,
        `${elements}/$reference?level=core`,
        `${elements}/Dimensions/$path?level=core`,
        `${elements}?content=path&level=core`,
        `${base}/$value?extent=withBlobValue`,
      ];
      for (const path of ok) assert.equal((await call(app, "GET", path)).status, 200, path);
      const bad = [
        `${base}/$metadata?extent=withBlobValue`,
        `${base}/$path?extent=withoutBlobValue`,
        `${elements}/$reference?level=deep`,
        `${elements}/Dimensions/$reference?level=deep`,
        `${elements}/$metadata?limit=-1`,
        `${elements}/$value?level=%23%23%23%23%23`,
        `${elements}?extent=%23%23%23%23%23`,
        `${elements}?content=value`,
        `${elements}?content=path&extent=withBlobValue`,
        `${base}/$path?content=path`,
        `${elements}/Dimensions/$value?limit=1`,
      ];
      for (const path of bad) assertResult(await call(app, "GET", path), 400);
      assertResult(await call(app, "PATCH", `${elements}/MaxRotationSpeed/$value?level=bogus`, { body: "1" }), 400);
    });

    it("GET forms carry the ETag of what they show; If-None-Match gives 304", async () => {
      const etag = (await call(app, "GET", `${elements}/Dimensions`)).headers.get("etag")!;
      for (const suffix of ["", "/$metadata", "/$value", "/$reference", "/$path"]) {
        const res = await call(app, "GET", `${elements}/Dimensions${suffix}`);
        assert.equal(res.headers.get("etag"), etag, suffix);
        assert.equal(
          (await call(app, "GET", `${elements}/Dimensions${suffix}`, { headers: { "If-None-Match": etag } })).status,
          304,
        );
      }
      const submodelTag = (await call(app, "GET", base)).headers.get("etag");
      for (const suffix of ["/$metadata", "/$value", "/$reference", "/$path"])
        assert.equal((await call(app, "GET", `${base}${suffix}`)).headers.get("etag"), submodelTag);
    });

    it("PATCH the element, its $metadata and the submodel: 204; If-Match checked", async () => {
      const patched = await call(app, "PATCH", `${elements}/Dimensions.Height`, { body: '{"value": "0.75"}' });
      assert.equal(patched.status, 204, patched.text);
      assert.equal((await call(app, "GET", `${elements}/Dimensions.Height`)).json.value, "0.75");
      assert.equal(
        (await call(app, "PATCH", `${elements}/Dimensions/$metadata`, { body: '{"category": "PARAMETER"}' })).status,
        204,
      );
      assertResult(
        await call(app, "PATCH", `${elements}/Dimensions/$metadata`, { body: '{"value": null}' }),
        400,
        /"value"/,
      );
      const etag = (await call(app, "GET", base)).headers.get("etag")!;
      assert.equal(
        (
          await call(app, "PATCH", `${base}/$value`, {
            body: '{"MaxRotationSpeed": 1234}',
            headers: { "If-Match": etag },
          })
        ).status,
        204,
      );
      assertResult(
        await call(app, "PATCH", `${base}/$metadata`, {
          body: '{"category": "VARIABLE"}',
          headers: { "If-Match": etag },
        }),
        412,
      );
      assert.equal((await call(app, "PATCH", base, { body: '{"category": "VARIABLE"}' })).status, 204);
      assert.equal((await call(app, "GET", `${base}/$metadata`)).json.category, "VARIABLE");
    });

    it("PUT and DELETE the submodel: 204", async () => {
      const current = await call(app, "GET", base);
      const body = JSON.stringify({ ...current.json, idShort: "Renamed" });
      const put = await call(app, "PUT", base, { body, headers: { "If-Match": current.headers.get("etag")! } });
      assert.equal(put.status, 204, put.text);
      assert.equal((await call(app, "GET", base)).json.idShort, "Renamed");
      assertResult(await call(app, "PUT", base, { body, headers: { "If-Match": current.headers.get("etag")! } }), 412);
      const deleted = await call(app, "DELETE", base);
      assert.equal(deleted.status, 204, deleted.text);
      assertResult(await call(app, "GET", `/api/v3.0/submodels/${b64(SUBMODEL_1)}`), 404);
    });
  });
}

describe("Submodel API below a shell checks the shell references the submodel", () => {
  let example: ExampleStore;
  let app: ReturnType<typeof createHttpApp>;
  before(async () => {
    example = await exampleStore();
    app = createHttpApp({ store: example.store, settings: httpEndpointSettings() });
  });
  after(() => example.close());

  it("answers 404 for a submodel of another shell, on reads and writes", async () => {
    const foreign = `/api/v3.0/shells/${b64(SHELL_1)}/submodels/${b64(SUBMODEL_2)}`;
    assert.equal((await call(app, "GET", `/api/v3.0/submodels/${b64(SUBMODEL_2)}`)).status, 200);
    assertResult(await call(app, "GET", foreign), 404);
    assertResult(await call(app, "GET", `${foreign}/submodel-elements/Dimensions.Width/$value`), 404);
    assertResult(await call(app, "PATCH", `${foreign}/submodel-elements/MaxRotationSpeed/$value`, { body: "1" }), 404);
    assertResult(await call(app, "GET", `/api/v3.0/shells/${b64("urn:no-shell")}/submodels/${b64(SUBMODEL_1)}`), 404);
    assertResult(await call(app, "GET", `/api/v3.0/shells/${b64(SHELL_1)}/submodels/%%%`), 400);
  });
});
