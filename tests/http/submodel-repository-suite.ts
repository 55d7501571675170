/**
 * Black-box suite of the Submodel Repository API (AAS API §a.3 rows 1–16: /submodels with its
 * content forms and filters, and a submodel by id in every form and PATCH form) over real HTTPS,
 * embedded and distributed (writes through one gateway, reads through the other).
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import {
  allPages,
  assertResult,
  createFixture,
  EXAMPLE_SUBMODEL,
  etagOf,
  json,
  model,
  paged,
  SEMANTIC_ID,
  valid,
  withoutBlobs,
} from "./submodel-suite-support.ts";

const TRAPS = [
  "limit=-1",
  "limit=0",
  "limit=abc",
  "cursor=",
  "level=%23%23%23%23%23",
  "extent=%23%23%23%23%23",
  "level=deep&level=core",
];

export function submodelRepositorySuite(mode: Mode): void {
  describe(`Submodel Repository API, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    let other: HttpClient;
    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0];
      other = sut.clients[sut.clients.length - 1];
    });
    after(async () => {
      await sut?.stop();
    });

    test("GET /submodels: valid submodels, Blob bytes only with extent=withBlobValue, level=core, paged", async () => {
      const all = paged(await http.get("/submodels"));
      assert.deepEqual(all.result, model.submodels.map(withoutBlobs));
      assert.equal(all.cursor, undefined);
      for (const submodel of all.result) valid(submodel, "Submodel");
      assert.deepEqual(paged(await http.get("/submodels?extent=withBlobValue")).result, model.submodels);
      const core = paged(await http.get("/submodels?level=core&limit=1")).result[0];
      assert.deepEqual(
        core.submodelElements.find((e: any) => e.idShort === "Dimensions"),
        { modelType: "SubmodelElementCollection", idShort: "Dimensions" },
      );
      valid(core, "Submodel");
      const first = paged(await http.get("/submodels?limit=2"));
      assert.equal(first.result.length, 2);
      const rest = paged(await other.get(`/submodels?cursor=${encodeURIComponent(first.cursor!)}`));
      assert.deepEqual(
        [...first.result, ...rest.result].map((s) => s.id),
        model.submodels.map((s: any) => s.id),
      );
      for (const query of [...TRAPS, "content=value", "content=normal", "cursor=%23%23"])
        assertResult(await http.get(`/submodels?${query}`), 400);
    });

    test("filters: idShort (exact), semanticId (base64url of a key value or of a JSON Reference), combined", async () => {
      const ids = async (query: string) => paged(await http.get(`/submodels?${query}`)).result.map((s) => s.id);
      const identification = model.submodels.filter((s: any) => s.idShort === "Identification").map((s: any) => s.id);
      assert.deepEqual(await ids("idShort=Identification"), identification);
      assert.deepEqual(await ids("idShort=identification"), []);
      assert.equal((await ids(`semanticId=${b64(SEMANTIC_ID)}`)).length, model.submodels.length);
      const reference = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: SEMANTIC_ID }] };
      assert.equal((await ids(`semanticId=${b64(JSON.stringify(reference))}`)).length, model.submodels.length);
      assert.deepEqual(await ids(`semanticId=${b64(JSON.stringify({ ...reference, type: "ModelReference" }))}`), []);
      assert.deepEqual(await ids(`semanticId=${b64(SEMANTIC_ID)}&idShort=Identification`), identification);
      assert.deepEqual(await ids(`semanticId=${b64("urn:none")}`), []);
      assertResult(await http.get("/submodels?semanticId=invalid-base64url====="), 400, /semanticId/);
      assertResult(await http.get(`/submodels?semanticId=${b64('{"keys": 1}')}`), 400, /semanticId/);
    });

    test("paging by keyset: inserts and deletes between pages neither repeat nor skip a submodel", async () => {
      const before = paged(await http.get("/submodels/$reference")).result.length;
      const a = await createFixture(http, "page-a");
      const b = await createFixture(http, "page-b");
      const first = paged(await http.get(`/submodels/$reference?limit=${before}`));
      assert.ok(first.cursor);
      assert.equal((await http.request("DELETE", a.path)).status, 204);
      const c = await createFixture(http, "page-c");
      const rest = paged(await other.get(`/submodels/$reference?cursor=${encodeURIComponent(first.cursor!)}`));
      assert.deepEqual(
        rest.result.map((r) => r.keys[0].value),
        [b.submodel.id, c.submodel.id],
      );
    });

    test("POST /submodels: 201, Location, ETag, the body; 409 for a used id; 400 for invalid bodies and unsupported datatypes", async () => {
      const { submodel } = await createFixture(http, "post");
      const again = await http.request("POST", "/submodels", { body: JSON.stringify(submodel) });
      assertResult(again, 409);
      const fresh = {
        modelType: "Submodel",
        id: `urn:twinport:post:${mode}`,
        submodelElements: [{ modelType: "Property", idShort: "P", valueType: "xs:int", value: "1" }],
      };
      const created = await http.request("POST", "/submodels", { body: JSON.stringify(fresh) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0/submodels/${b64(fresh.id)}`);
      etagOf(created);
      assert.deepEqual(valid(json(created, 201), "Submodel"), fresh);
      assert.deepEqual(json(await other.get(`/submodels/${b64(fresh.id)}`)), fresh);
      const property = (extra: object) =>
        JSON.stringify({
          ...fresh,
          id: `urn:twinport:bad:${mode}`,
          submodelElements: [{ modelType: "Property", idShort: "P", ...extra }],
        });
      assertResult(
        await http.request("POST", "/submodels", {
          body: property({ valueType: "xs:dateTimeStamp", value: "2024-01-01T00:00:00Z" }),
        }),
        400,
        /valueType/,
      );
      assertResult(await http.request("POST", "/submodels", { body: property({ valueType: "xs:anyType" }) }), 400);
      assertResult(
        await http.request("POST", "/submodels", { body: property({ valueType: "xs:int", value: "12.5" }) }),
        400,
      );
      assertResult(
        await http.request("POST", "/submodels", { body: property({ valueType: "xs:gDay", value: "---32" }) }),
        400,
      );
      assertResult(
        await http.request("POST", "/submodels", {
          body: JSON.stringify({ ...fresh, id: "urn:x:unknown", colour: "red" }),
        }),
        400,
        /colour/,
      );
      assertResult(await http.request("POST", "/submodels", { body: "{" }), 400);
      assertResult(
        await http.request("POST", "/submodels?level=deep", { body: JSON.stringify({ ...fresh, id: "urn:x:q" }) }),
        400,
      );
      assert.equal(
        (await http.get(`/submodels/${b64(`urn:twinport:bad:${mode}`)}`)).status,
        404,
        "nothing was created by a rejected POST",
      );
    });

    test("GET /submodels/$metadata, $value, $reference, $path: the forms of the list, filtered and paged", async () => {
      const metadata = paged(await http.get("/submodels/$metadata?idShort=TechnicalData"));
      assert.deepEqual(metadata.result[0], (({ submodelElements: _e, ...rest }) => rest)(EXAMPLE_SUBMODEL));
      for (const submodel of metadata.result) valid(submodel, "Submodel");
      assert.equal(
        paged(await http.get("/submodels/$metadata?level=core&limit=1")).result.length,
        1,
        "level is tolerated on $metadata",
      );

      const values = paged(await http.get("/submodels/$value?limit=1"));
      assert.equal(values.result.length, 1);
      assert.deepEqual(values.result[0].Tags, ["pump", "test"]);
      assert.deepEqual(values.result[0].Firmware, { contentType: "application/octet-stream" });
      assert.equal(
        values.result[0].Functions && Object.keys(values.result[0].Functions).length,
        0,
        "no ValueOnly for Operation/Capability",
      );
      assert.equal(
        paged(await http.get("/submodels/$value?extent=withBlobValue&limit=1")).result[0].Firmware.value,
        "SGVsbG8gQUFTIQ==",
      );
      assert.deepEqual(paged(await http.get("/submodels/$value?level=core&limit=1")).result[0].Dimensions, {});

      const references = paged(await http.get(`/submodels/$reference?semanticId=${b64(SEMANTIC_ID)}&limit=2`));
      assert.deepEqual(references.result[0], {
        type: "ModelReference",
        keys: [{ type: "Submodel", value: EXAMPLE_SUBMODEL.id }],
      });
      for (const reference of references.result) valid(reference, "Reference");
      assert.equal(
        paged(await http.get("/submodels/$reference?level=core")).result.length >= model.submodels.length,
        true,
      );

      const one = paged(await http.get("/submodels/$path?limit=1"));
      assert.deepEqual(one.result, ["Dimensions"]);
      const corePaths = await allPages(other, "/submodels/$path?level=core&idShort=Identification", 4);
      const perSubmodel = EXAMPLE_SUBMODEL.submodelElements.map((e: any) => e.idShort);
      assert.deepEqual(corePaths, [...perSubmodel, ...perSubmodel, ...perSubmodel]);
      assert.deepEqual(
        paged(await http.get("/submodels?content=path&limit=3")).result,
        paged(await http.get("/submodels/$path?limit=3")).result,
      );

      for (const query of [
        "$metadata?extent=withBlobValue",
        "$reference?level=deep",
        "$reference?extent=withBlobValue",
        "$path?extent=withoutBlobValue",
        "$value?content=path",
        ...TRAPS.map((t) => `$value?${t}`),
      ]) {
        assertResult(await http.get(`/submodels/${query}`), 400);
      }
      assertResult(await http.request("DELETE", "/submodels/$metadata"), 405);
    });

    test("GET /submodels/{id}: ETag, 304, level, extent, content=path; 404 for unknown ids and non-submodel ids", async () => {
      const { submodel, path } = await createFixture(http, "get");
      const res = await other.get(path);
      assert.deepEqual(valid(json(res), "Submodel"), withoutBlobs(submodel));
      const etag = etagOf(res);
      assert.equal((await http.get(path, { "if-none-match": etag })).status, 304);
      assert.deepEqual(json(await http.get(`${path}?extent=withBlobValue&level=deep`)), submodel);
      const core = json(await http.get(`${path}?level=core`));
      assert.deepEqual(
        core.submodelElements.find((e: any) => e.idShort === "Tags"),
        (({ value: _v, ...rest }) => rest)(submodel.submodelElements[1]),
      );
      assert.deepEqual(json(await http.get(`${path}?content=path`)), json(await http.get(`${path}/$path`)));
      assertResult(await http.get(`/submodels/${b64("urn:none")}`), 404);
      assertResult(await http.get(`/submodels/${b64(model.assetAdministrationShells[0].id)}`), 404);
      assertResult(await http.get("/submodels/invalid-base64url====="), 400);
      for (const query of [...TRAPS, "content=value", "content=path&extent=withBlobValue", "limit=1"])
        assertResult(await http.get(`${path}?${query}`), 400);
      assertResult(await http.get(`${path}/bogus/extra`), 400);
    });

    test("PUT /submodels/{id}: 204 and replaced; 400 for another id; 404 when missing; 412 for a stale If-Match", async () => {
      const { submodel, path } = await createFixture(http, "put");
      const etag = etagOf(await http.get(path));
      const replaced = { ...submodel, idShort: "Replaced", submodelElements: submodel.submodelElements.slice(0, 2) };
      const put = await http.request("PUT", path, { body: JSON.stringify(replaced), headers: { "if-match": etag } });
      assert.equal(put.status, 204, put.text);
      assert.equal(put.text, "");
      assert.deepEqual(json(await other.get(path)), replaced);
      assertResult(
        await http.request("PUT", path, { body: JSON.stringify(replaced), headers: { "if-match": etag } }),
        412,
      );
      assertResult(await http.request("PUT", path, { body: JSON.stringify({ ...replaced, id: "urn:other" }) }), 400);
      assertResult(
        await http.request("PUT", `/submodels/${b64("urn:none")}`, {
          body: JSON.stringify({ ...replaced, id: "urn:none" }),
        }),
        404,
      );
      assertResult(
        await http.request("PUT", path, {
          body: JSON.stringify({
            ...replaced,
            submodelElements: [{ modelType: "Property", idShort: "X", valueType: "xs:unknown" }],
          }),
        }),
        400,
      );
    });

    test("PATCH /submodels/{id}: merge patch (null removes, arrays whole, same elements), id fixed, If-Match", async () => {
      const { submodel, path } = await createFixture(http, "patch");
      const patch = await http.request("PATCH", path, {
        body: JSON.stringify({ idShort: "Patched", category: "PARAMETER", description: null }),
      });
      assert.equal(patch.status, 204, patch.text);
      const patched = json(await other.get(`${path}?extent=withBlobValue`));
      const { description: _d, ...expected } = { ...submodel, idShort: "Patched", category: "PARAMETER" };
      assert.deepEqual(valid(patched, "Submodel"), expected);
      const elements = submodel.submodelElements.map((e: any) =>
        e.idShort === "MaxRotationSpeed" ? { ...e, value: "4321" } : e,
      );
      assert.equal(
        (await http.request("PATCH", path, { body: JSON.stringify({ submodelElements: elements }) })).status,
        204,
      );
      assert.equal(json(await other.get(`${path}/submodel-elements/MaxRotationSpeed`)).value, "4321");
      assertResult(
        await http.request("PATCH", path, { body: JSON.stringify({ submodelElements: elements.slice(1) }) }),
        400,
        /add or remove/,
      );
      assertResult(await http.request("PATCH", path, { body: JSON.stringify({ id: "urn:other" }) }), 400, /id/);
      assertResult(await http.request("PATCH", path, { body: JSON.stringify({ colour: "red" }) }), 400, /colour/);
      assertResult(await http.request("PATCH", path, { body: "[]" }), 400);
      assertResult(await http.request("PATCH", `${path}?level=deep`, { body: "{}" }), 400);
      assert.equal((await http.request("PATCH", `${path}?level=core`, { body: "{}" })).status, 204);
      const etag = etagOf(await http.get(path));
      assert.equal(
        (await http.request("PATCH", path, { body: '{"category": "CONSTANT"}', headers: { "if-match": etag } })).status,
        204,
      );
      assertResult(
        await http.request("PATCH", path, { body: '{"category": "VARIABLE"}', headers: { "if-match": etag } }),
        412,
      );
      assertResult(await http.request("PATCH", `/submodels/${b64("urn:none")}`, { body: "{}" }), 404);
    });

    test("DELETE /submodels/{id}: 412 for a stale If-Match or a matching If-None-Match, then 204 and gone", async () => {
      const { path } = await createFixture(http, "delete");
      const etag = etagOf(await http.get(path));
      await http.request("PATCH", path, { body: '{"category": "CONSTANT"}' });
      assertResult(await http.request("DELETE", path, { headers: { "if-match": etag } }), 412);
      const current = etagOf(await http.get(path));
      assertResult(await http.request("DELETE", path, { headers: { "if-none-match": current } }), 412);
      const deleted = await http.request("DELETE", path, { headers: { "if-match": current } });
      assert.equal(deleted.status, 204);
      assertResult(await other.get(path), 404);
      assertResult(await http.request("DELETE", path), 404);
    });

    test("$metadata: GET without elements (valid Submodel, ETag); PATCH changes metadata only", async () => {
      const { submodel, path } = await createFixture(http, "metadata");
      const res = await http.get(`${path}/$metadata`);
      const { submodelElements: _e, ...metadata } = submodel;
      assert.deepEqual(valid(json(res), "Submodel"), metadata);
      assert.equal(etagOf(res), etagOf(await http.get(path)));
      assert.equal((await http.get(`${path}/$metadata?level=core`)).status, 200);
      assertResult(await http.get(`${path}/$metadata?extent=withBlobValue`), 400);
      const patch = await http.request("PATCH", `${path}/$metadata`, {
        body: JSON.stringify({ administration: { version: "1", revision: "2" }, semanticId: null }),
      });
      assert.equal(patch.status, 204, patch.text);
      const after = json(await other.get(`${path}/$metadata`));
      assert.deepEqual(after.administration, { version: "1", revision: "2" });
      assert.equal(after.semanticId, undefined);
      assert.equal(json(await http.get(`${path}/$value`)).MaxRotationSpeed, 5000, "values untouched");
      assertResult(
        await http.request("PATCH", `${path}/$metadata`, { body: JSON.stringify({ submodelElements: [] }) }),
        400,
        /submodelElements/,
      );
      assertResult(
        await http.request("PATCH", `${path}/$metadata`, { body: JSON.stringify({ id: "urn:other" }) }),
        400,
      );
    });

    test("$value: ValueOnly of every kind (Operation/Capability skipped, exact numbers, dateTime, gDay), level, extent, ETag", async () => {
      const { submodel, path } = await createFixture(http, "value");
      const res = await other.get(`${path}/$value`);
      const sm = submodel.id;
      assert.equal(etagOf(res), etagOf(await http.get(path)));
      const ref = (...keys: [string, string][]) => ({
        type: "ModelReference",
        keys: keys.map(([type, value]) => ({ type, value })),
      });
      const expectedText =
        "{" +
        '"Dimensions":{"Width":0.25,"Height":0.40,"Nested":{"Depth":0.3}},"Tags":["pump","test"],"Functions":{},' +
        '"Links":{"ManufacturerLink":{"type":"ExternalReference","keys":[{"type":"GlobalReference","value":"https://example.org/manufacturer"}]},' +
        `"SpeedToRange":{"first":${JSON.stringify(ref(["Submodel", sm], ["Property", "MaxRotationSpeed"]))},"second":${JSON.stringify(ref(["Submodel", sm], ["Range", "TemperatureRange"]))}},` +
        `"AnnotatedLink":{"first":${JSON.stringify(ref(["Submodel", sm], ["Property", "MaxRotationSpeed"]))},"second":${JSON.stringify(ref(["Submodel", sm], ["MultiLanguageProperty", "ProductName"]))},"annotations":{"Note":"annotation value"}},` +
        `"SpeedChanged":{"observed":${JSON.stringify(ref(["Submodel", sm], ["Property", "MaxRotationSpeed"]))}}},` +
        '"MaxRotationSpeed":5000,"ProductName":[{"en":"Test pump"},{"de":"Testpumpe"}],"TemperatureRange":{"min":-20.5,"max":80.0},' +
        '"Firmware":{"contentType":"application/octet-stream"},"Manual":{"contentType":"text/plain","value":"/aasx/files/manual.txt"},' +
        '"Motor":{"statements":{"Power":1.5},"entityType":"SelfManagedEntity","globalAssetId":"https://example.org/assets/motor-0001"},' +
        '"Stamp":"2024-05-01T10:00:00.125+02:00","Day":"---05Z","Big":12345678901234567890.123456789' +
        "}";
      assert.equal(res.text, expectedText, "ValueOnly text, numbers with their lexical digits");
      const core = json(await http.get(`${path}/$value?level=core&extent=withBlobValue`));
      assert.deepEqual([core.Dimensions, core.Tags, core.Firmware.value], [{}, [], "SGVsbG8gQUFTIQ=="]);
      for (const query of [
        "limit=1",
        "content=value",
        ...TRAPS.filter((t) => !t.startsWith("limit") && !t.startsWith("cursor")),
      ])
        assertResult(await http.get(`${path}/$value?${query}`), 400);
    });

    test("PATCH $value: only named values change, exact digits, dateTime/gDay; all or nothing; no new elements; lists cannot grow", async () => {
      const { path } = await createFixture(http, "patch-value");
      const body =
        '{"MaxRotationSpeed": 6000, "Dimensions": {"Nested": {"Depth": 0.5}}, "Big": 98765432109876543210.000000001, "Stamp": "2025-12-31T23:59:59Z", "Day": "---31-05:00", "Tags": ["a", "test"]}';
      const patched = await http.request("PATCH", `${path}/$value`, { body });
      assert.equal(patched.status, 204, patched.text);
      const after = await other.get(`${path}/$value`);
      assert.match(after.text, /"MaxRotationSpeed":6000/);
      assert.match(after.text, /"Big":98765432109876543210.000000001/);
      const value = after.json();
      assert.deepEqual(
        [value.Dimensions, value.Stamp, value.Day, value.Tags],
        [{ Width: 0.25, Height: 0.4, Nested: { Depth: 0.5 } }, "2025-12-31T23:59:59Z", "---31-05:00", ["a", "test"]],
      );
      assert.equal(json(await http.get(`${path}/submodel-elements/Stamp`)).value, "2025-12-31T23:59:59Z");
      const rejects = async (text: string, pattern?: RegExp) =>
        assertResult(await http.request("PATCH", `${path}/$value`, { body: text }), 400, pattern);
      await rejects('{"MaxRotationSpeed": 1, "Unknown": 2}', /Unknown/);
      await rejects('{"MaxRotationSpeed": 1, "Tags": ["a", "b", "c"]}');
      // An array is replaced whole (spec §4.4.2) and a PATCH removes no item: a shorter one is refused.
      await rejects('{"MaxRotationSpeed": 1, "Tags": ["a"]}', /send all 2/);
      await rejects('{"MaxRotationSpeed": 1, "Stamp": "yesterday"}');
      await rejects('{"MaxRotationSpeed": 1, "Day": "---32"}');
      await rejects('{"MaxRotationSpeed": 1, "Dimensions": {"Width": "wide"}}');
      await rejects('{"MaxRotationSpeed": 1, "Functions": {"Reset": 1}}');
      await rejects("[1]");
      await rejects("{oops");
      assert.match(
        (await other.get(`${path}/$value`)).text,
        /"MaxRotationSpeed":6000/,
        "a rejected patch changed nothing",
      );
      assert.equal(
        (await http.request("PATCH", `${path}/$value?level=core`, { body: '{"MaxRotationSpeed": null}' })).status,
        204,
      );
      assert.equal(
        json(await http.get(`${path}/submodel-elements/MaxRotationSpeed`)).value,
        undefined,
        "null clears a value, the element stays",
      );
      assertResult(await http.request("PATCH", `${path}/$value?level=deep`, { body: "{}" }), 400);
      const etag = etagOf(await http.get(path));
      assert.equal(
        (
          await http.request("PATCH", `${path}/$value`, {
            body: '{"MaxRotationSpeed": 1}',
            headers: { "if-match": etag },
          })
        ).status,
        204,
      );
      assertResult(
        await http.request("PATCH", `${path}/$value`, {
          body: '{"MaxRotationSpeed": 2}',
          headers: { "if-match": etag },
        }),
        412,
      );
    });

    test("$reference (level accepted, no effect) and $path (deep, core, paths from the root)", async () => {
      const { submodel, path } = await createFixture(http, "reference");
      const expected = { type: "ModelReference", keys: [{ type: "Submodel", value: submodel.id }] };
      const res = await http.get(`${path}/$reference`);
      assert.deepEqual(valid(json(res), "Reference"), expected);
      etagOf(res);
      assert.deepEqual(json(await http.get(`${path}/$reference?level=deep`)), expected);
      assert.deepEqual(json(await http.get(`${path}/$reference?level=core`)), expected);
      assertResult(await http.get(`${path}/$reference?extent=withBlobValue`), 400);
      const deep = json(await other.get(`${path}/$path`));
      assert.deepEqual(deep.slice(0, 9), [
        "Dimensions",
        "Dimensions.Width",
        "Dimensions.Height",
        "Dimensions.Nested",
        "Dimensions.Nested.Depth",
        "Tags",
        "Tags[0]",
        "Tags[1]",
        "Functions",
      ]);
      assert.ok(deep.includes("Links.AnnotatedLink.Note") && deep.includes("Motor.Power"));
      assert.deepEqual(
        json(await http.get(`${path}/$path?level=core`)),
        submodel.submodelElements.map((e: any) => e.idShort),
      );
      for (const query of ["extent=withBlobValue", "limit=1", "level=%23%23%23%23%23"])
        assertResult(await http.get(`${path}/$path?${query}`), 400);
    });
  });
}
