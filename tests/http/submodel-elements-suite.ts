/**
 * Black-box suite of the Submodel API's element operations (AAS API §a.3 rows 17–33 and §a.2 rows
 * 11–27: the elements list in every form, one element by idShortPath in every form, POST/PUT/
 * PATCH/DELETE) over real HTTPS, run at each mount: /submodels/{sm}, /shells/{aas}/submodels/{sm}
 * and /shells/{aas}/aas/submodels/{sm}/submodel (spec §4.1.5); embedded and distributed.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import {
  allPages,
  assertResult,
  createFixtureAt,
  elementOf,
  etagOf,
  json,
  MOUNTS,
  paged,
  valid,
  withoutBlobs,
} from "./submodel-suite-support.ts";

const TRAPS = ["level=%23%23%23%23%23", "extent=%23%23%23%23%23", "level=deep&level=core", "content=value"];
const KINDS: [string, string][] = [
  ["SubmodelElementCollection", "Dimensions"],
  ["SubmodelElementList", "Tags"],
  ["Capability", "Functions.Pumping"],
  ["Operation", "Functions.Reset"],
  ["ReferenceElement", "Links.ManufacturerLink"],
  ["RelationshipElement", "Links.SpeedToRange"],
  ["AnnotatedRelationshipElement", "Links.AnnotatedLink"],
  ["BasicEventElement", "Links.SpeedChanged"],
  ["Property", "MaxRotationSpeed"],
  ["MultiLanguageProperty", "ProductName"],
  ["Range", "TemperatureRange"],
  ["Blob", "Firmware"],
  ["File", "Manual"],
  ["Entity", "Motor"],
];
const property = (idShort: string | undefined, value: string, valueType = "xs:string") => ({
  modelType: "Property",
  ...(idShort ? { idShort } : {}),
  valueType,
  value,
});

export function submodelElementsSuite(mode: Mode): void {
  // One system for the whole file; every mount's tests run against it.
  let sut: SystemUnderTest;
  let http: HttpClient;
  let other: HttpClient;
  describe(`Submodel API elements, ${mode} mode`, () => {
    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0];
      other = sut.clients[sut.clients.length - 1];
    });
    after(async () => {
      await sut?.stop();
    });
    for (const mount of MOUNTS) describe(`at the ${mount} mount`, () => elementTests(mount));

    test("entity tags (RFC 9110 §13.1): If-Match compares strongly, If-None-Match weakly, lists and * alike, on the hot $value route and the general path", async () => {
      const { path } = await createFixtureAt(http, "entity-tags", "repository");
      const element = `${path}/submodel-elements/MaxRotationSpeed`;
      const routes: [string, string, (value: number) => string][] = [
        ["hot $value route", `${element}/$value`, (value) => String(value)],
        ["general path", element, (value) => JSON.stringify({ value: String(value) })],
      ];
      let value = 100;
      const patch = (url: string, body: string, headers: Record<string, string>) =>
        http.request("PATCH", url, { body, headers });
      for (const [route, url, body] of routes) {
        const current = etagOf(await http.get(element));
        const weak = `W/${current}`;
        // A weak tag never matches If-Match, even naming the current revision, alone or in a list;
        // "*" in quotes is a tag, not the wildcard.
        // An If-Match with no tag (a script's empty $ETAG) matches nothing; `*` inside a list is no wildcard.
        for (const ifMatch of [weak, `"1", ${weak}`, '"*"', current.slice(0, -1), "", ",", `${weak}, *`]) {
          const answer = await patch(url, body(++value), { "if-match": ifMatch });
          assert.equal(answer.status, 412, `${route}: If-Match ${ifMatch}: ${answer.text}`);
        }
        for (const list of [(tag: string) => `W/${tag}, ${tag}`, (tag: string) => `"a,b", ${tag}`, () => "*"]) {
          // Each write moves the revision on: the list names the one just read.
          const ifMatch = list(etagOf(await http.get(element)));
          const answer = await patch(url, body(++value), { "if-match": ifMatch });
          assert.equal(answer.status, 204, `${route}: If-Match ${ifMatch}: ${answer.text}`);
        }
        const now = etagOf(await http.get(element));
        for (const ifNoneMatch of [`W/${now}`, `W/"1", ${now}`, `"1" , W/${now}`, "*"]) {
          const answer = await patch(url, body(++value), { "if-none-match": ifNoneMatch });
          assert.equal(answer.status, 412, `${route}: If-None-Match ${ifNoneMatch}: ${answer.text}`);
        }
        const fresh = await patch(url, body(++value), { "if-none-match": 'W/"1", "2"' });
        assert.equal(fresh.status, 204, `${route}: ${fresh.text}`);
        // GET: If-None-Match with the weak comparison; the hot route hands these to the general path.
        const read = await http.get(url);
        for (const ifNoneMatch of [`W/${etagOf(read)}`, `"1", W/${etagOf(read)}`]) {
          assert.equal((await http.get(url, { "if-none-match": ifNoneMatch })).status, 304, `${route}: ${ifNoneMatch}`);
        }
        assert.equal((await http.get(url, { "if-none-match": 'W/"1"' })).status, 200, route);
      }
      // A target that does not exist is a 404 whatever the preconditions say (RFC 9110 §13.2.1).
      const missing: [string, string, string | undefined][] = [
        ["PATCH", `${path}/submodel-elements/Nope/$value`, "1"],
        ["PATCH", `${path}/submodel-elements/Nope`, JSON.stringify({ value: "1" })],
        ["DELETE", `${path}/submodel-elements/Nope`, undefined],
        ["DELETE", `/submodels/${b64("urn:test:entity-tags:none")}`, undefined],
      ];
      for (const [method, url, body] of missing)
        for (const ifMatch of ["*", '"1"']) {
          const answer = await http.request(method, url, {
            ...(body ? { body } : {}),
            headers: { "if-match": ifMatch },
          });
          assert.equal(answer.status, 404, `${method} ${url} If-Match ${ifMatch}: ${answer.text}`);
        }
    });
  });

  function elementTests(mount: (typeof MOUNTS)[number]): void {
    const fixture = (label: string) => createFixtureAt(http, `${mount}-${label}`, mount);

    test("GET submodel-elements: valid elements, Blob bytes only with extent, level=core, paged; traps are 400", async () => {
      const { submodel, path } = await fixture("list");
      const all = paged(await http.get(`${path}/submodel-elements`));
      assert.deepEqual(all.result, withoutBlobs(submodel.submodelElements));
      for (const element of all.result) valid(element, "SubmodelElement");
      assert.deepEqual(
        paged(await http.get(`${path}/submodel-elements?extent=withBlobValue`)).result,
        submodel.submodelElements,
      );
      const core = paged(await http.get(`${path}/submodel-elements?level=core`)).result;
      assert.deepEqual(core[0], { modelType: "SubmodelElementCollection", idShort: "Dimensions" });
      assert.deepEqual(
        (await allPages(other, `${path}/submodel-elements`, 3)).map((e) => e.idShort),
        submodel.submodelElements.map((e: any) => e.idShort),
      );
      assert.deepEqual(
        json(await http.get(`${path}/submodel-elements?content=path&limit=2`)),
        json(await http.get(`${path}/submodel-elements/$path?limit=2`)),
      );
      for (const query of [...TRAPS, "limit=-1", "limit=0", "cursor="])
        assertResult(await http.get(`${path}/submodel-elements?${query}`), 400);
      assertResult(await http.request("DELETE", `${path}/submodel-elements`), 405);
    });

    test("POST submodel-elements: 201, Location, ETag, body; 409 for a sibling idShort; 400 for bad elements", async () => {
      const { path } = await fixture("post");
      const element = property("Added", "a");
      const created = await http.request("POST", `${path}/submodel-elements`, { body: JSON.stringify(element) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0${path}/submodel-elements/Added`);
      etagOf(created);
      assert.deepEqual(valid(json(created, 201), "SubmodelElement"), element);
      assert.deepEqual(json(await other.get(`${path}/submodel-elements/Added`)), element);
      assertResult(await http.request("POST", `${path}/submodel-elements`, { body: JSON.stringify(element) }), 409);
      assertResult(
        await http.request("POST", `${path}/submodel-elements`, { body: JSON.stringify(property(undefined, "x")) }),
        400,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements`, {
          body: JSON.stringify(property("T", "x", "xs:dateTimeStamp")),
        }),
        400,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements`, {
          body: JSON.stringify(property("T", "13:00", "xs:gDay")),
        }),
        400,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements?level=deep`, {
          body: JSON.stringify(property("Q", "x")),
        }),
        400,
      );
      assertResult(await http.request("POST", `${path}/submodel-elements`, { body: "" }), 400);
      // A Blob whose base64 lacks its padding: aas-core's decoder threw, which was a 500.
      for (const value of ["A", "QQ", "QQ="]) {
        const blob = { modelType: "Blob", idShort: "Bz", contentType: "a/b", value };
        assertResult(
          await http.request("POST", `${path}/submodel-elements`, { body: JSON.stringify(blob) }),
          400,
          /xs:base64Binary/,
        );
      }
      assert.equal((await http.get(`${path}/submodel-elements/Bz`)).status, 404);
    });

    test("GET submodel-elements/$metadata, $value, $reference, $path: every form of the list, paged", async () => {
      const { submodel, path } = await fixture("list-forms");
      const metadata = paged(await http.get(`${path}/submodel-elements/$metadata`)).result;
      assert.equal(metadata.length, submodel.submodelElements.length);
      assert.deepEqual(
        metadata.find((e) => e.idShort === "MaxRotationSpeed"),
        {
          modelType: "Property",
          idShort: "MaxRotationSpeed",
          valueType: "xs:int",
          semanticId: elementOf(submodel, "MaxRotationSpeed").semanticId,
        },
      );
      assert.ok(metadata.every((e) => e.value === undefined && e.statements === undefined));
      assert.equal(paged(await http.get(`${path}/submodel-elements/$metadata?level=core&limit=1`)).result.length, 1);

      const values = paged(await http.get(`${path}/submodel-elements/$value`)).result;
      assert.ok(values.every((item) => typeof item === "object" && Object.keys(item).length === 1));
      assert.deepEqual(values.slice(0, 2), [
        { Dimensions: { Width: 0.25, Height: 0.4, Nested: { Depth: 0.3 } } },
        { Tags: ["pump", "test"] },
      ]);
      assert.deepEqual(
        values.find((item) => "Firmware" in item),
        { Firmware: { contentType: "application/octet-stream" } },
      );
      assert.deepEqual(paged(await http.get(`${path}/submodel-elements/$value?level=core&limit=2`)).result, [
        { Dimensions: {} },
        { Tags: [] },
      ]);
      assert.equal(
        paged(await http.get(`${path}/submodel-elements/$value?extent=withBlobValue`)).result.find(
          (item) => "Firmware" in item,
        ).Firmware.value,
        "SGVsbG8gQUFTIQ==",
      );

      const references = paged(await http.get(`${path}/submodel-elements/$reference?limit=2`));
      assert.deepEqual(references.result[1], {
        type: "ModelReference",
        keys: [
          { type: "Submodel", value: submodel.id },
          { type: "SubmodelElementList", value: "Tags" },
        ],
      });
      for (const reference of references.result) valid(reference, "Reference");
      assertResult(await http.get(`${path}/submodel-elements/$reference?level=deep`), 400);

      const one = paged(await http.get(`${path}/submodel-elements/$path?limit=1`));
      assert.deepEqual(one.result, ["Dimensions"]);
      const deep = await allPages(other, `${path}/submodel-elements/$path`, 4);
      assert.deepEqual(deep, json(await http.get(`${path}/$path`)));
      assert.deepEqual(
        await allPages(http, `${path}/submodel-elements/$path?level=core`, 5),
        submodel.submodelElements.map((e: any) => e.idShort),
      );
      const extent = await http.get(`${path}/submodel-elements/$path?extent=withoutBlobValue`);
      assert.equal(
        extent.status,
        mount === "repository" ? 400 : 200,
        "extent is declared on $path below a shell only (AAS API §a quirk 6)",
      );
      for (const suffix of ["$metadata", "$value", "$reference", "$path"]) {
        for (const query of ["limit=-1", "cursor=", "level=%23%23%23%23%23", "content=path"])
          assertResult(await http.get(`${path}/submodel-elements/${suffix}?${query}`), 400);
        assertResult(await http.request("POST", `${path}/submodel-elements/${suffix}`, { body: "{}" }), 405);
      }
      assertResult(await http.get(`${path}/submodel-elements/$metadata?extent=withBlobValue`), 400);
      // A top-level Operation: whole in the $metadata list, left out of the $value list (spec §7.5).
      const operation = {
        modelType: "Operation",
        idShort: "Calibrate",
        inputVariables: [{ value: property("Mode", "fast") }],
      };
      assert.equal(
        (await http.request("POST", `${path}/submodel-elements`, { body: JSON.stringify(operation) })).status,
        201,
      );
      assert.deepEqual(paged(await other.get(`${path}/submodel-elements/$metadata`)).result.at(-1), operation);
      assert.deepEqual(paged(await other.get(`${path}/submodel-elements/$value`)).result.at(-1), {
        Big: 12345678901234567890.123456789,
      });
    });

    test("paged $path and $value stay correct across inserts and deletes between pages", async () => {
      const { path } = await fixture("list-paging");
      const first = paged(await http.get(`${path}/submodel-elements/$path?limit=3`));
      assert.deepEqual(first.result, ["Dimensions", "Dimensions.Width", "Dimensions.Height"]);
      assert.equal((await http.request("DELETE", `${path}/submodel-elements/Dimensions.Width`)).status, 204);
      assert.equal((await http.request("DELETE", `${path}/submodel-elements/Tags`)).status, 204);
      assert.equal(
        (
          await http.request("POST", `${path}/submodel-elements/Dimensions`, {
            body: JSON.stringify(property("Colour", "red")),
          })
        ).status,
        201,
      );
      const second = paged(
        await other.get(`${path}/submodel-elements/$path?limit=4&cursor=${encodeURIComponent(first.cursor!)}`),
      );
      assert.deepEqual(second.result, [
        "Dimensions.Nested",
        "Dimensions.Nested.Depth",
        "Dimensions.Colour",
        "Functions",
      ]);
      const values = paged(await http.get(`${path}/submodel-elements/$value?limit=2`));
      assert.equal(
        (await http.request("POST", `${path}/submodel-elements`, { body: JSON.stringify(property("Last", "z")) }))
          .status,
        201,
      );
      const rest = await allPages(
        other,
        `${path}/submodel-elements/$value?cursor=${encodeURIComponent(values.cursor!)}`,
        100,
      );
      assert.deepEqual([...values.result, ...rest].map((item) => Object.keys(item)[0]).slice(0, 3), [
        "Dimensions",
        "Functions",
        "Links",
      ]);
      assert.deepEqual(rest.at(-1), { Last: "z" });
    });

    test("GET an element by idShortPath: every kind is a valid v3.0 element, ETag and 304, level, extent; 404 and 400", async () => {
      const { submodel, path } = await fixture("get");
      for (const [kind, idShortPath] of KINDS) {
        const res = await other.get(`${path}/submodel-elements/${idShortPath}`);
        const element = valid(json(res), "SubmodelElement");
        assert.equal(element.modelType, kind);
        assert.deepEqual(element, withoutBlobs(elementOf(submodel, idShortPath)));
        assert.equal(
          (await http.get(`${path}/submodel-elements/${idShortPath}?level=core&extent=withBlobValue`)).status,
          200,
        );
      }
      const firmware = json(await http.get(`${path}/submodel-elements/Firmware?extent=withBlobValue`));
      assert.equal(firmware.value, "SGVsbG8gQUFTIQ==");
      const item = await http.get(`${path}/submodel-elements/Tags%5B1%5D`);
      assert.deepEqual(json(item), elementOf(submodel, "Tags[1]"));
      const etag = etagOf(item);
      assert.equal((await http.get(`${path}/submodel-elements/Tags%5B1%5D`, { "if-none-match": etag })).status, 304);
      assert.deepEqual(
        json(await http.get(`${path}/submodel-elements/Dimensions?level=core`)).value.map((e: any) => e.idShort),
        ["Width", "Height", "Nested"],
      );
      assert.equal(json(await http.get(`${path}/submodel-elements/Dimensions?level=core`)).value[2].value, undefined);
      assertResult(await http.get(`${path}/submodel-elements/Dimensions.Nope`), 404);
      assertResult(await http.get(`${path}/submodel-elements/Tags%5B9%5D`), 404);
      // An index addresses list items only: a collection's children are named, `C[0]` names nothing.
      for (const notAList of [
        "Dimensions%5B0%5D",
        "Dimensions%5B2%5D.Depth",
        "Motor%5B0%5D",
        "Links.AnnotatedLink%5B0%5D",
        "Tags%5B0%5D%5B0%5D",
      ]) {
        assertResult(await http.get(`${path}/submodel-elements/${notAList}`), 404);
        assertResult(await http.get(`${path}/submodel-elements/${notAList}/$reference`), 404);
        assertResult(await http.request("DELETE", `${path}/submodel-elements/${notAList}`), 404);
      }
      assert.deepEqual(
        json(await http.get(`${path}/submodel-elements/Dimensions?level=core`)).value.map((e: any) => e.idShort),
        ["Width", "Height", "Nested"],
        "nothing was deleted",
      );
      for (const bad of ["Dimensions..Width", "Tags%5B01%5D", "Tags%5Bx%5D", "1abc"])
        assertResult(await http.get(`${path}/submodel-elements/${bad}`), 400);
      for (const query of [...TRAPS, "limit=1"])
        assertResult(await http.get(`${path}/submodel-elements/Dimensions?${query}`), 400);
      assertResult(await http.get(`${path}/submodel-elements/Dimensions/Width`), 400);
    });

    test("POST into a collection, list (index in Location), entity and annotated relationship; 409, 400, 404", async () => {
      const { path } = await fixture("post-into");
      const base = `/api/v3.0${path}/submodel-elements`;
      const intoCollection = await http.request("POST", `${path}/submodel-elements/Dimensions.Nested`, {
        body: JSON.stringify(property("Colour", "red")),
      });
      assert.equal(intoCollection.status, 201, intoCollection.text);
      assert.equal(intoCollection.headers.location, `${base}/Dimensions.Nested.Colour`);
      const intoList = await http.request("POST", `${path}/submodel-elements/Tags`, {
        body: JSON.stringify(property(undefined, "new")),
      });
      assert.equal(intoList.status, 201, intoList.text);
      assert.equal(intoList.headers.location, `${base}/Tags%5B2%5D`);
      assert.equal(json(await other.get(`${path}/submodel-elements/Tags%5B2%5D`)).value, "new");
      assert.equal(
        (
          await http.request("POST", `${path}/submodel-elements/Motor`, {
            body: JSON.stringify(property("Voltage", "230", "xs:int")),
          })
        ).status,
        201,
      );
      assert.equal(
        (
          await http.request("POST", `${path}/submodel-elements/Links.AnnotatedLink`, {
            body: JSON.stringify(property("Extra", "x")),
          })
        ).status,
        201,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements/Dimensions.Nested`, {
          body: JSON.stringify(property("Colour", "blue")),
        }),
        409,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements/Tags`, { body: JSON.stringify(property("Named", "x")) }),
        400,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements/Tags`, {
          body: JSON.stringify({ modelType: "Range", valueType: "xs:int" }),
        }),
        400,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements/MaxRotationSpeed`, {
          body: JSON.stringify(property("Child", "x")),
        }),
        400,
      );
      assertResult(
        await http.request("POST", `${path}/submodel-elements/Nope`, { body: JSON.stringify(property("Child", "x")) }),
        404,
      );
    });

    test("PUT an element: 204 and replaced in place; 404 when missing; 400 for another idShort or a bad body; If-Match", async () => {
      const { path } = await fixture("put");
      const url = `${path}/submodel-elements/Dimensions.Nested`;
      const etag = etagOf(await http.get(url));
      const replacement = { modelType: "SubmodelElementCollection", idShort: "Nested", value: [property("Only", "1")] };
      const put = await http.request("PUT", url, { body: JSON.stringify(replacement), headers: { "if-match": etag } });
      assert.equal(put.status, 204, put.text);
      assert.deepEqual(json(await other.get(url)), replacement);
      assert.deepEqual(
        json(await http.get(`${path}/submodel-elements/Dimensions`)).value.map((e: any) => e.idShort),
        ["Width", "Height", "Nested"],
        "position kept",
      );
      assertResult(
        await http.request("PUT", url, { body: JSON.stringify(replacement), headers: { "if-match": etag } }),
        412,
      );
      assertResult(
        await http.request("PUT", `${path}/submodel-elements/Dimensions.Missing`, {
          body: JSON.stringify(property("Missing", "x")),
        }),
        404,
      );
      assertResult(await http.request("PUT", url, { body: JSON.stringify({ ...replacement, idShort: "Other" }) }), 400);
      assertResult(
        await http.request("PUT", url, {
          body: JSON.stringify({ ...replacement, value: [property("A", "1", "xs:anyType")] }),
        }),
        400,
      );
      assert.equal(
        (
          await http.request("PUT", `${path}/submodel-elements/Tags%5B0%5D`, {
            body: JSON.stringify(property(undefined, "first")),
          })
        ).status,
        204,
      );
      assert.equal(json(await http.get(`${path}/submodel-elements/Tags%5B0%5D`)).value, "first");
    });

    test("PATCH an element: merge patch (null removes, arrays whole), same kind/idShort/children, If-Match and If-None-Match", async () => {
      const { submodel, path } = await fixture("patch");
      const url = `${path}/submodel-elements/MaxRotationSpeed`;
      const patched = await http.request("PATCH", url, {
        body: JSON.stringify({ value: "7000", semanticId: null, description: [{ language: "en", text: "speed" }] }),
      });
      assert.equal(patched.status, 204, patched.text);
      const { semanticId: _s, ...rest } = elementOf(submodel, "MaxRotationSpeed");
      assert.deepEqual(valid(json(await other.get(url)), "SubmodelElement"), {
        ...rest,
        value: "7000",
        description: [{ language: "en", text: "speed" }],
      });
      const dimensions = json(await http.get(`${path}/submodel-elements/Dimensions`));
      const value = dimensions.value.map((e: any) => (e.idShort === "Height" ? { ...e, value: "1.5" } : e));
      assert.equal(
        (await http.request("PATCH", `${path}/submodel-elements/Dimensions`, { body: JSON.stringify({ value }) }))
          .status,
        204,
      );
      assert.equal(json(await http.get(`${path}/submodel-elements/Dimensions.Height`)).value, "1.5");
      assertResult(
        await http.request("PATCH", `${path}/submodel-elements/Dimensions`, {
          body: JSON.stringify({ value: value.slice(0, 1) }),
        }),
        400,
        /add or remove/,
      );
      assertResult(await http.request("PATCH", url, { body: JSON.stringify({ idShort: "Renamed" }) }), 400, /idShort/);
      assertResult(await http.request("PATCH", url, { body: JSON.stringify({ modelType: "Range" }) }), 400);
      assertResult(await http.request("PATCH", url, { body: JSON.stringify({ value: "fast" }) }), 400);
      assertResult(await http.request("PATCH", url, { body: JSON.stringify({ valueType: "xs:dateTimeStamp" }) }), 400);
      assertResult(await http.request("PATCH", `${path}/submodel-elements/Nope`, { body: "{}" }), 404);
      const etag = etagOf(await http.get(url));
      assertResult(
        await http.request("PATCH", url, { body: '{"value": "1"}', headers: { "if-none-match": etag } }),
        412,
      );
      assert.equal(
        (await http.request("PATCH", url, { body: '{"value": "1"}', headers: { "if-match": etag } })).status,
        204,
      );
      assertResult(await http.request("PATCH", url, { body: '{"value": "2"}', headers: { "if-match": etag } }), 412);
      const level = mount === "repository" ? "deep" : "bogus";
      assertResult(await http.request("PATCH", `${url}?level=${level}`, { body: "{}" }), 400);
      assert.equal((await http.request("PATCH", `${url}?level=core`, { body: "{}" })).status, 204);
    });

    test("PATCH with a GET body (Blob bytes left out by default) keeps nested Blobs' bytes; an explicit null clears them", async () => {
      const { path } = await fixture("patch-blobs");
      const box = {
        modelType: "SubmodelElementCollection",
        idShort: "Box",
        value: [
          { modelType: "Blob", idShort: "B", contentType: "text/plain", value: "aGk=" },
          {
            modelType: "SubmodelElementList",
            idShort: "L",
            typeValueListElement: "Blob",
            value: [{ modelType: "Blob", contentType: "text/plain", value: "b25l" }],
          },
        ],
      };
      assert.equal(
        (await http.request("POST", `${path}/submodel-elements`, { body: JSON.stringify(box) })).status,
        201,
      );
      const bytes = async (idShortPath: string) =>
        json(await other.get(`${path}/submodel-elements/${idShortPath}?extent=withBlobValue`)).value;
      // The element, then the whole submodel, PATCHed with what a plain GET gave.
      const got = json(await http.get(`${path}/submodel-elements/Box`));
      assert.equal(got.value[0].value, undefined, "the default GET leaves the bytes out");
      assert.equal(
        (await http.request("PATCH", `${path}/submodel-elements/Box`, { body: JSON.stringify(got) })).status,
        204,
      );
      assert.equal(await bytes("Box.B"), "aGk=");
      assert.equal(await bytes("Box.L%5B0%5D"), "b25l");
      const firmware = await bytes("Firmware");
      assert.ok(firmware);
      const submodel = json(await http.get(path));
      assert.equal((await http.request("PATCH", path, { body: JSON.stringify(submodel) })).status, 204);
      assert.equal(await bytes("Firmware"), firmware);
      assert.equal(await bytes("Box.B"), "aGk=");
      // A new value, and an explicit null, are taken.
      const edited = {
        ...got,
        value: [
          { ...got.value[0], value: "Ynll" },
          { ...got.value[1], value: [{ ...got.value[1].value[0], value: null }] },
        ],
      };
      assert.equal(
        (await http.request("PATCH", `${path}/submodel-elements/Box`, { body: JSON.stringify(edited) })).status,
        204,
      );
      assert.equal(await bytes("Box.B"), "Ynll");
      assert.equal(await bytes("Box.L%5B0%5D"), undefined);
      // The Blob itself PATCHed with null: cleared too.
      const cleared = await http.request("PATCH", `${path}/submodel-elements/Box.B`, { body: '{"value": null}' });
      assert.equal(cleared.status, 204, cleared.text);
      assert.equal(await bytes("Box.B"), undefined);
    });

    test("DELETE an element: 204 and gone; later list items move up; If-Match; 404", async () => {
      const { path } = await fixture("delete");
      const etag = etagOf(await http.get(`${path}/submodel-elements/Manual`));
      await http.request("PATCH", `${path}/submodel-elements/Manual/$value`, {
        body: '{"contentType": "text/markdown"}',
      });
      assertResult(
        await http.request("DELETE", `${path}/submodel-elements/Manual`, { headers: { "if-match": etag } }),
        412,
      );
      assert.equal((await http.request("DELETE", `${path}/submodel-elements/Manual`)).status, 204);
      assertResult(await other.get(`${path}/submodel-elements/Manual`), 404);
      assertResult(await http.request("DELETE", `${path}/submodel-elements/Manual`), 404);
      assert.equal((await http.request("DELETE", `${path}/submodel-elements/Tags%5B0%5D`)).status, 204);
      assert.deepEqual(json(await other.get(`${path}/submodel-elements/Tags/$value`)), { Tags: ["test"] });
      assert.equal((await http.request("DELETE", `${path}/submodel-elements/Dimensions`)).status, 204);
      assertResult(await http.get(`${path}/submodel-elements/Dimensions.Nested.Depth`), 404);
    });

    test("$metadata of an element: per kind (values and children left out), 400 for Operation and Capability; PATCH", async () => {
      const { submodel, path } = await fixture("metadata");
      for (const [kind, idShortPath] of KINDS) {
        const res = await http.get(`${path}/submodel-elements/${idShortPath}/$metadata`);
        if (kind === "Operation" || kind === "Capability") {
          assertResult(res, 400);
          continue;
        }
        const metadata = json(res);
        assert.equal(metadata.modelType, kind);
        for (const key of [
          "value",
          "valueId",
          "statements",
          "annotations",
          "first",
          "second",
          "observed",
          "min",
          "max",
          "globalAssetId",
        ])
          assert.equal(metadata[key], undefined, `${kind}.${key}`);
        // contentType is mandatory in the metamodel and describes the value: it stays (issue 14.2).
        if (kind === "File" || kind === "Blob") assert.equal(typeof metadata.contentType, "string", kind);
      }
      assert.deepEqual(
        valid(json(await http.get(`${path}/submodel-elements/Tags/$metadata`)), "SubmodelElement"),
        (({ value: _v, ...rest }) => rest)(elementOf(submodel, "Tags")),
      );
      assert.equal(json(await http.get(`${path}/submodel-elements/Motor/$metadata`)).entityType, "SelfManagedEntity");
      assert.equal(
        etagOf(await http.get(`${path}/submodel-elements/Dimensions/$metadata?level=core`)),
        etagOf(await http.get(`${path}/submodel-elements/Dimensions`)),
      );
      assertResult(await http.get(`${path}/submodel-elements/Dimensions/$metadata?extent=withBlobValue`), 400);
      const patch = await http.request("PATCH", `${path}/submodel-elements/Dimensions/$metadata`, {
        body: JSON.stringify({ category: "PARAMETER", displayName: [{ language: "en", text: "Size" }] }),
      });
      assert.equal(patch.status, 204, patch.text);
      const after = json(await other.get(`${path}/submodel-elements/Dimensions`));
      assert.equal(after.category, "PARAMETER");
      assert.equal(after.value.length, 3, "children untouched");
      assertResult(
        await http.request("PATCH", `${path}/submodel-elements/MaxRotationSpeed/$metadata`, { body: '{"value": "1"}' }),
        400,
        /"value"/,
      );
      assertResult(
        await http.request("PATCH", `${path}/submodel-elements/Functions.Reset/$metadata`, { body: "{}" }),
        400,
      );
      assertResult(
        await http.request("PATCH", `${path}/submodel-elements/Dimensions/$metadata`, { body: '{"idShort": "Other"}' }),
        400,
      );
    });

    test("$value of an element: wrapped in its idShort, every kind; 400 for Operation/Capability; PATCH wrapped or bare, all or nothing", async () => {
      const { submodel, path } = await fixture("value");
      const value = async (idShortPath: string, query = "") =>
        json(await http.get(`${path}/submodel-elements/${idShortPath}/$value${query}`));
      assert.deepEqual(await value("MaxRotationSpeed"), { MaxRotationSpeed: 5000 });
      assert.deepEqual(await value("ProductName"), { ProductName: [{ en: "Test pump" }, { de: "Testpumpe" }] });
      assert.deepEqual(await value("TemperatureRange"), { TemperatureRange: { min: -20.5, max: 80 } });
      assert.deepEqual(await value("Firmware"), { Firmware: { contentType: "application/octet-stream" } });
      assert.deepEqual(await value("Firmware", "?extent=withBlobValue"), {
        Firmware: { contentType: "application/octet-stream", value: "SGVsbG8gQUFTIQ==" },
      });
      assert.deepEqual(await value("Manual"), {
        Manual: { contentType: "text/plain", value: "/aasx/files/manual.txt" },
      });
      assert.deepEqual(await value("Links.ManufacturerLink"), {
        ManufacturerLink: elementOf(submodel, "Links.ManufacturerLink").value,
      });
      assert.deepEqual(Object.keys((await value("Links.SpeedToRange")).SpeedToRange), ["first", "second"]);
      assert.deepEqual((await value("Links.AnnotatedLink")).AnnotatedLink.annotations, { Note: "annotation value" });
      assert.deepEqual((await value("Links.SpeedChanged")).SpeedChanged, {
        observed: elementOf(submodel, "Links.SpeedChanged").observed,
      });
      assert.deepEqual(await value("Motor"), {
        Motor: {
          statements: { Power: 1.5 },
          entityType: "SelfManagedEntity",
          globalAssetId: "https://example.org/assets/motor-0001",
        },
      });
      assert.deepEqual(
        await value("Functions"),
        { Functions: {} },
        "Operation and Capability are left out of containers",
      );
      assert.deepEqual(await value("Dimensions", "?level=core"), {
        Dimensions: { Width: 0.25, Height: 0.4, Nested: {} },
      });
      assert.deepEqual(await value("Stamp"), { Stamp: "2024-05-01T10:00:00.125+02:00" });
      assert.deepEqual(await value("Day"), { Day: "---05Z" });
      assert.equal(
        (await http.get(`${path}/submodel-elements/Big/$value`)).text,
        '{"Big":12345678901234567890.123456789}',
      );
      assertResult(await http.get(`${path}/submodel-elements/Functions.Reset/$value`), 400);
      assertResult(await http.get(`${path}/submodel-elements/Functions.Pumping/$value`), 400);
      assertResult(await http.get(`${path}/submodel-elements/MaxRotationSpeed/$value?limit=1`), 400);

      const patch = (idShortPath: string, body: string) =>
        http.request("PATCH", `${path}/submodel-elements/${idShortPath}/$value`, { body });
      assert.equal((await patch("Stamp", '"2026-01-02T03:04:05Z"')).status, 204);
      assert.equal((await patch("Day", '{"Day": "---29+01:00"}')).status, 204);
      assert.equal((await patch("Big", "0.100000000000000000000000000001")).status, 204);
      assert.equal((await patch("Dimensions", '{"Width": 1, "Nested": {"Depth": 2}}')).status, 204);
      assert.equal((await patch("TemperatureRange", '{"max": 90}')).status, 204);
      assert.equal((await patch("ProductName", '{"de": "Pumpe", "fr": "Pompe"}')).status, 204);
      assert.equal((await patch("Tags", '["x", "test"]')).status, 204);
      assert.equal(
        (await other.get(`${path}/submodel-elements/Big/$value`)).text,
        '{"Big":0.100000000000000000000000000001}',
      );
      assert.deepEqual(
        [await value("Stamp"), await value("Day")],
        [{ Stamp: "2026-01-02T03:04:05Z" }, { Day: "---29+01:00" }],
      );
      assert.deepEqual(await value("Dimensions"), { Dimensions: { Width: 1, Height: 0.4, Nested: { Depth: 2 } } });
      assert.deepEqual(await value("TemperatureRange"), { TemperatureRange: { min: -20.5, max: 90 } });
      assert.deepEqual(await value("ProductName"), { ProductName: [{ de: "Pumpe" }, { fr: "Pompe" }] });
      assert.deepEqual(await value("Tags"), { Tags: ["x", "test"] });
      for (const [idShortPath, body] of [
        ["Dimensions", '{"Width": 3, "Depth": 4}'],
        ["Tags", '["a", "b", "c"]'],
        // An array is replaced whole and a PATCH removes no item: a shorter one is refused too.
        ["Tags", '["a"]'],
        ["Tags", "[]"],
        ["Stamp", '"2026-13-01T00:00:00"'],
        ["Day", '"Monday"'],
        ["MaxRotationSpeed", "1.5"],
        ["Functions.Reset", "{}"],
        ["Motor", '{"entityType": "Other"}'],
      ]) {
        assertResult(await patch(idShortPath, body), 400);
      }
      assert.deepEqual(
        await value("Dimensions"),
        { Dimensions: { Width: 1, Height: 0.4, Nested: { Depth: 2 } } },
        "a rejected patch changed nothing",
      );
      assert.equal((await patch("MaxRotationSpeed", "null")).status, 204);
      assert.equal(
        json(await http.get(`${path}/submodel-elements/MaxRotationSpeed`)).idShort,
        "MaxRotationSpeed",
        "null clears the value, never the element",
      );
    });

    test("$reference of an element: Submodel key, one key per step typed by kind, list items by index; level core only", async () => {
      const { submodel, path } = await fixture("reference");
      const res = await http.get(`${path}/submodel-elements/Tags%5B1%5D/$reference`);
      assert.deepEqual(valid(json(res), "Reference"), {
        type: "ModelReference",
        keys: [
          { type: "Submodel", value: submodel.id },
          { type: "SubmodelElementList", value: "Tags" },
          { type: "Property", value: "1" },
        ],
      });
      assert.equal(etagOf(res), etagOf(await http.get(`${path}/submodel-elements/Tags%5B1%5D`)));
      for (const [kind, idShortPath] of KINDS) {
        const reference = json(await other.get(`${path}/submodel-elements/${idShortPath}/$reference?level=core`));
        assert.deepEqual(reference.keys.at(-1), { type: kind, value: idShortPath.split(".").at(-1) });
      }
      assertResult(await http.get(`${path}/submodel-elements/Dimensions/$reference?level=deep`), 400);
      assertResult(await http.get(`${path}/submodel-elements/Nope/$reference`), 404);
    });

    test("$path of an element: full paths from the root (deep, core) on collections, lists, entities only", async () => {
      const { path } = await fixture("path");
      const res = await http.get(`${path}/submodel-elements/Dimensions.Nested/$path`);
      assert.deepEqual(json(res), ["Dimensions.Nested", "Dimensions.Nested.Depth"]);
      etagOf(res);
      assert.deepEqual(json(await other.get(`${path}/submodel-elements/Tags/$path`)), ["Tags", "Tags[0]", "Tags[1]"]);
      assert.deepEqual(json(await http.get(`${path}/submodel-elements/Motor/$path`)), ["Motor", "Motor.Power"]);
      assert.deepEqual(json(await http.get(`${path}/submodel-elements/Dimensions/$path?level=core`)), [
        "Dimensions",
        "Dimensions.Width",
        "Dimensions.Height",
        "Dimensions.Nested",
      ]);
      assert.deepEqual(
        json(await http.get(`${path}/submodel-elements/Dimensions?content=path&level=core`)),
        json(await http.get(`${path}/submodel-elements/Dimensions/$path?level=core`)),
      );
      for (const [kind, idShortPath] of KINDS) {
        if (["SubmodelElementCollection", "SubmodelElementList", "Entity"].includes(kind)) continue;
        assertResult(await http.get(`${path}/submodel-elements/${idShortPath}/$path`), 400);
      }
      assertResult(await http.get(`${path}/submodel-elements/Dimensions/$path?extent=withBlobValue`), 400);
      assertResult(await http.get(`${path}/submodel-elements/Dimensions/$path?limit=1`), 400);
    });
  }
}
