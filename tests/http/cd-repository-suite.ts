/**
 * Black-box suite of the Concept Description Repository API (AAS API §a.4) over real HTTPS,
 * embedded and distributed (a second gateway reads what the first one wrote).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { EXAMPLE_MODEL, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { assertResult, etagOf, paged, valid } from "./shell-suite-support.ts";

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const cds: any[] = model.conceptDescriptions;
const IEC61360 = "https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3";
const cdBody = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ modelType: "ConceptDescription", id, ...extra });

export function conceptDescriptionSuite(mode: Mode): void {
  describe(`Concept Description Repository API, ${mode} mode`, () => {
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

    test("GET /concept-descriptions: valid concept descriptions, paged", async () => {
      const all = paged(await http.get("/concept-descriptions"));
      assert.deepEqual(all.result, cds);
      for (const cd of all.result) valid(cd, "ConceptDescription");
      const first = paged(await http.get("/concept-descriptions?limit=1"));
      assert.deepEqual(first.result, [cds[0]]);
      const second = paged(
        await other.get(`/concept-descriptions?limit=1&cursor=${encodeURIComponent(first.cursor!)}`),
      );
      assert.deepEqual(second, { result: [cds[1]], cursor: undefined });
      for (const query of [
        "limit=-1",
        "limit=0",
        "cursor=",
        "level=deep",
        "extent=withoutBlobValue",
        "idShort=a&idShort=b",
      ]) {
        assertResult(await http.get(`/concept-descriptions?${query}`), 400);
      }
    });

    test("filters: idShort (exact), isCaseOf and dataSpecificationRef (base64url of a key value or of a JSON Reference)", async () => {
      const ids = async (query: string) =>
        paged(await http.get(`/concept-descriptions?${query}`)).result.map((cd) => cd.id);
      assert.deepEqual(await ids("idShort=SerialNumber"), [cds[1].id]);
      assert.deepEqual(await ids("idShort=serialnumber"), []);
      assert.deepEqual(await ids(`isCaseOf=${b64("0173-1#02-AAM556#002")}`), [cds[1].id]);
      assert.deepEqual(await ids(`isCaseOf=${b64(JSON.stringify(cds[1].isCaseOf[0]))}`), [cds[1].id]);
      assert.deepEqual(await ids(`isCaseOf=${b64("0173-1#02-AAM556#003")}`), []);
      assert.deepEqual(await ids(`dataSpecificationRef=${b64(IEC61360)}`), [cds[0].id]);
      const asReference = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: IEC61360 }] };
      assert.deepEqual(await ids(`dataSpecificationRef=${b64(JSON.stringify(asReference))}`), [cds[0].id]);
      assert.deepEqual(await ids(`dataSpecificationRef=${b64(IEC61360)}&idShort=SerialNumber`), []);
      assertResult(await http.get("/concept-descriptions?isCaseOf=invalid-base64url====="), 400, /isCaseOf/);
      assertResult(await http.get("/concept-descriptions?dataSpecificationRef=a+b"), 400, /dataSpecificationRef/);
      assertResult(await http.get(`/concept-descriptions?isCaseOf=${b64('{"keys":[]}')}`), 400, /isCaseOf/);
    });

    test("POST: 201 with Location, ETag and the body (idShort optional); 409 for a used id; 400 for bad bodies", async () => {
      const id = `urn:test:${mode}:cd:posted`;
      const created = await http.request("POST", "/concept-descriptions", { body: cdBody(id) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0/concept-descriptions/${b64(id)}`);
      assert.deepEqual(valid(created.json(), "ConceptDescription"), { modelType: "ConceptDescription", id });
      const etag = etagOf(created);
      assert.equal((await other.get(`/concept-descriptions/${b64(id)}`)).headers.etag, etag);
      assertResult(await http.request("POST", "/concept-descriptions", { body: cdBody(id) }), 409);
      assertResult(
        await http.request("POST", "/concept-descriptions", { body: cdBody(model.assetAdministrationShells[0].id) }),
        409,
      );
      assertResult(
        await http.request("POST", "/concept-descriptions", { body: cdBody("urn:x", { colour: "red" }) }),
        400,
        /colour/,
      );
      assertResult(
        await http.request("POST", "/concept-descriptions", { body: cdBody("urn:x", { idShort: "1 not an idShort" }) }),
        400,
      );
      assertResult(await http.request("POST", "/concept-descriptions", { body: "" }), 400);
      assertResult(await http.request("POST", "/concept-descriptions?limit=1", { body: cdBody("urn:x") }), 400);
    });

    test("GET /concept-descriptions/{id}: the concept description with its ETag; 304; 404 for unknown and non-CD ids; 400 bad base64url", async () => {
      const res = await http.get(`/concept-descriptions/${b64(cds[0].id)}`);
      assert.equal(res.status, 200);
      assert.deepEqual(valid(res.json(), "ConceptDescription"), cds[0]);
      const etag = etagOf(res);
      assert.equal((await other.get(`/concept-descriptions/${b64(cds[0].id)}`, { "If-None-Match": etag })).status, 304);
      assertResult(await http.get(`/concept-descriptions/${b64("urn:nothing")}`), 404);
      assertResult(await http.get(`/concept-descriptions/${b64(model.assetAdministrationShells[0].id)}`), 404);
      assertResult(await http.get("/concept-descriptions/invalid-base64url====="), 400, /base64url/);
      assertResult(await http.get(`/concept-descriptions/${b64(cds[0].id)}/$metadata`), 400);
    });

    test("PUT: 204; If-Match stale 412 and current 204; If-None-Match * 412; 404 missing; 400 other id", async () => {
      const id = `urn:test:${mode}:cd:put`;
      const etag = etagOf(await http.request("POST", "/concept-descriptions", { body: cdBody(id) }));
      const position = async () =>
        paged(await http.get("/concept-descriptions")).result.findIndex((cd) => cd.id === id);
      const before = await position();
      const put = await http.request("PUT", `/concept-descriptions/${b64(id)}`, {
        body: cdBody(id, { idShort: "Replaced" }),
        headers: { "If-Match": etag },
      });
      assert.equal(put.status, 204, put.text);
      assert.equal(put.text, "");
      const read = await other.get(`/concept-descriptions/${b64(id)}`);
      assert.equal(read.json().idShort, "Replaced");
      assert.notEqual(etagOf(read), etag);
      assertResult(
        await other.request("PUT", `/concept-descriptions/${b64(id)}`, {
          body: cdBody(id),
          headers: { "If-Match": etag },
        }),
        412,
      );
      assertResult(
        await http.request("PUT", `/concept-descriptions/${b64(id)}`, {
          body: cdBody(id),
          headers: { "If-None-Match": "*" },
        }),
        412,
      );
      assertResult(
        await http.request("PUT", `/concept-descriptions/${b64("urn:missing")}`, { body: cdBody("urn:missing") }),
        404,
      );
      assertResult(await http.request("PUT", `/concept-descriptions/${b64(id)}`, { body: cdBody("urn:other") }), 400);
      assert.equal(await position(), before, "a PUT keeps the position");
    });

    test("DELETE: If-Match stale 412, 204, then 404; 405 for other methods", async () => {
      const id = `urn:test:${mode}:cd:delete`;
      const etag = etagOf(await http.request("POST", "/concept-descriptions", { body: cdBody(id) }));
      await http.request("PUT", `/concept-descriptions/${b64(id)}`, { body: cdBody(id, { idShort: "Newer" }) });
      assertResult(
        await http.request("DELETE", `/concept-descriptions/${b64(id)}`, { headers: { "If-Match": etag } }),
        412,
      );
      assert.equal((await http.request("DELETE", `/concept-descriptions/${b64(id)}`)).status, 204);
      assertResult(await other.get(`/concept-descriptions/${b64(id)}`), 404);
      assertResult(await http.request("DELETE", `/concept-descriptions/${b64(id)}`), 404);
      const patch = await http.request("PATCH", `/concept-descriptions/${b64(cds[0].id)}`, { body: "{}" });
      assertResult(patch, 405);
      assert.equal(patch.headers.allow, "GET, PUT, DELETE, HEAD");
      const put = await http.request("PUT", "/concept-descriptions", { body: "[]" });
      assertResult(put, 405);
      assert.equal(put.headers.allow, "GET, POST, HEAD");
    });
  });
}
