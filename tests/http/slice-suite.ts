/**
 * Black-box suite of the issue-2 slice over real HTTPS, run against embedded mode and against the
 * distributed mode (model-store + two http-gateways + Redis + NATS as real processes).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { EXAMPLE_MODEL, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const submodel = model.submodels.find((s: any) =>
  s.submodelElements?.some((e: any) => e.modelType === "SubmodelElementList"),
);
const property = submodel.submodelElements.find((e: any) => e.modelType === "Property");
const smPath = `/submodels/${b64(submodel.id)}`;

function assertResult(body: any, status: number) {
  assert.deepEqual(Object.keys(body), ["messages"], "an error body is exactly {messages:[…]}");
  assert.ok(body.messages.length >= 1);
  for (const m of body.messages) {
    for (const key of Object.keys(m))
      assert.ok(
        ["messageType", "text", "code", "timestamp", "correlationId"].includes(key),
        `unexpected message field ${key}`,
      );
    assert.equal(typeof m.text, "string");
    assert.match(m.timestamp, /Z$/);
  }
  assert.equal(body.messages[0].code, String(status));
}

export function sliceSuite(mode: Mode): void {
  describe(`HTTP slice, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0];
    });
    after(async () => {
      await sut?.stop();
    });

    test("GET /shells returns the example's 3 shells in the paged envelope", async () => {
      const res = await http.get("/shells");
      assert.equal(res.status, 200);
      assert.match(String(res.headers["content-type"]), /application\/json/);
      const body = res.json();
      assert.deepEqual(body.paging_metadata, {});
      assert.deepEqual(body.result, model.assetAdministrationShells);
      const page = (await http.get("/shells?limit=2")).json();
      assert.equal(page.result.length, 2);
      assert.ok(page.paging_metadata.cursor);
      const rest = (await http.get(`/shells?limit=2&cursor=${encodeURIComponent(page.paging_metadata.cursor)}`)).json();
      assert.deepEqual(
        [...page.result, ...rest.result].map((s: any) => s.id),
        model.assetAdministrationShells.map((s: any) => s.id),
      );
    });

    test("no server version in any header; HTTPS with a self-signed certificate", async () => {
      const res = await http.get("/shells");
      assert.equal(res.headers.server, undefined);
      assert.equal(res.headers["x-powered-by"], undefined);
      assert.ok(http.baseUrl.startsWith("https://"));
    });

    test("GET a shell and a submodel by base64url id (padded or not), with ETag", async () => {
      const shell = model.assetAdministrationShells[0];
      const res = await http.get(`/shells/${b64(shell.id)}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), shell);
      assert.match(String(res.headers.etag), /^"\d+"$/);
      const padded = Buffer.from(shell.id).toString("base64").replace(/\+/g, "-").replace(/\//g, "_");
      assert.equal((await http.get(`/shells/${padded}`)).status, 200);
      // Blob bytes come only with extent=withBlobValue (the API default leaves them out).
      const sm = await http.get(`${smPath}?extent=withBlobValue`);
      assert.equal(sm.status, 200);
      assert.deepEqual(sm.json(), submodel);
      assert.ok(sm.headers.etag);
    });

    test("errors: 400 invalid base64url, 404 unknown id and non-shell id, 405 method, 400 extra path, exact Result body", async () => {
      const bad = await http.get("/shells/invalid-base64url=====");
      assert.equal(bad.status, 400);
      assertResult(bad.json(), 400);
      const missing = await http.get(`/shells/${b64("urn:nope")}`);
      assert.equal(missing.status, 404);
      assertResult(missing.json(), 404);
      assert.equal((await http.get(`/shells/${b64(submodel.id)}`)).status, 404, "a submodel id is not a shell");
      const method = await http.request("PATCH", "/shells");
      assert.equal(method.status, 405);
      assertResult(method.json(), 405);
      const extra = await http.get(`/shells/${b64(model.assetAdministrationShells[0].id)}/bogus/segments`);
      assert.equal(extra.status, 400);
      assertResult(extra.json(), 400);
    });

    test("POST/PUT/DELETE a shell: 201 + Location, 409 on repeat, 204, 404 after delete", async () => {
      const shell = { ...model.assetAdministrationShells[0], id: `urn:test:shell:${mode}`, idShort: "Posted" };
      delete (shell as any).submodels;
      const created = await http.request("POST", "/shells", { body: JSON.stringify(shell) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0/shells/${b64(shell.id)}`);
      assert.deepEqual(created.json(), shell);
      const again = await http.request("POST", "/shells", { body: JSON.stringify(shell) });
      assert.equal(again.status, 409);
      assertResult(again.json(), 409);
      const put = await http.request("PUT", `/shells/${b64(shell.id)}`, {
        body: JSON.stringify({ ...shell, idShort: "Put" }),
      });
      assert.equal(put.status, 204);
      assert.equal((await http.get(`/shells/${b64(shell.id)}`)).json().idShort, "Put");
      const unknownKey = await http.request("PUT", `/shells/${b64(shell.id)}`, {
        body: JSON.stringify({ ...shell, colour: "red" }),
      });
      assert.equal(unknownKey.status, 400);
      assert.equal((await http.request("DELETE", `/shells/${b64(shell.id)}`)).status, 204);
      assert.equal((await http.get(`/shells/${b64(shell.id)}`)).status, 404);
      const malformed = await http.request("POST", "/shells", { body: "{oops" });
      assert.equal(malformed.status, 400);
      assertResult(malformed.json(), 400);
    });

    test("submodels: list, POST, PUT, DELETE", async () => {
      const list = (await http.get("/submodels")).json();
      assert.equal(list.result.length, model.submodels.length);
      const sm = {
        modelType: "Submodel",
        id: `urn:test:sm:${mode}`,
        idShort: "Fresh",
        submodelElements: [{ modelType: "Property", idShort: "P", valueType: "xs:int", value: "1" }],
      };
      const created = await http.request("POST", "/submodels", { body: JSON.stringify(sm) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0/submodels/${b64(sm.id)}`);
      const { submodelElements: _dropped, ...withoutElements } = sm;
      assert.equal(
        (await http.request("PUT", `/submodels/${b64(sm.id)}`, { body: JSON.stringify(withoutElements) })).status,
        204,
      );
      assert.deepEqual((await http.get(`/submodels/${b64(sm.id)}`)).json(), withoutElements);
      const empty = await http.request("PUT", `/submodels/${b64(sm.id)}`, {
        body: JSON.stringify({ ...sm, submodelElements: [] }),
      });
      // The metamodel allows an optional list to be absent or non-empty: an empty one has only one
      // reading, "no elements", and is stored as absent (ADR 0031), not refused.
      assert.equal(empty.status, 204, empty.text);
      assert.deepEqual((await http.get(`/submodels/${b64(sm.id)}`)).json(), withoutElements);
      const emptyKeys = await http.request("PUT", `/submodels/${b64(sm.id)}`, {
        body: JSON.stringify({ ...sm, semanticId: { type: "ExternalReference", keys: [] } }),
      });
      assert.equal(emptyKeys.status, 400, "a Reference without keys violates the metamodel");
      assert.equal((await http.request("DELETE", `/submodels/${b64(sm.id)}`)).status, 204);
      assert.equal((await http.get(`/submodels/${b64(sm.id)}`)).status, 404);
    });

    test("submodel elements: get all, get by path, post at root and by path, put, delete", async () => {
      const all = (await http.get(`${smPath}/submodel-elements?extent=withBlobValue`)).json();
      assert.deepEqual(all.result, submodel.submodelElements);
      const one = await http.get(`${smPath}/submodel-elements/${property.idShort}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.json(), property);
      const element = { modelType: "Property", idShort: `Posted${mode}`, valueType: "xs:string", value: "x" };
      const created = await http.request("POST", `${smPath}/submodel-elements`, { body: JSON.stringify(element) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0${smPath}/submodel-elements/${element.idShort}`);
      assert.equal(
        (await http.request("POST", `${smPath}/submodel-elements`, { body: JSON.stringify(element) })).status,
        409,
      );
      const list = submodel.submodelElements.find((e: any) => e.modelType === "SubmodelElementList");
      const item = structuredClone(list.value[0]);
      const intoList = await http.request("POST", `${smPath}/submodel-elements/${list.idShort}`, {
        body: JSON.stringify(item),
      });
      assert.equal(intoList.status, 201, intoList.text);
      const index = list.value.length;
      assert.equal(intoList.headers.location, `/api/v3.0${smPath}/submodel-elements/${list.idShort}%5B${index}%5D`);
      assert.deepEqual((await http.get(`${smPath}/submodel-elements/${list.idShort}%5B${index}%5D`)).json(), item);
      assert.equal(
        (await http.request("DELETE", `${smPath}/submodel-elements/${list.idShort}%5B${index}%5D`)).status,
        204,
      );
      assert.equal(
        (
          await http.request("PUT", `${smPath}/submodel-elements/${element.idShort}`, {
            body: JSON.stringify({ ...element, value: "y" }),
          })
        ).status,
        204,
      );
      assert.equal((await http.get(`${smPath}/submodel-elements/${element.idShort}`)).json().value, "y");
      assert.equal((await http.request("DELETE", `${smPath}/submodel-elements/${element.idShort}`)).status, 204);
      assert.equal((await http.get(`${smPath}/submodel-elements/${element.idShort}`)).status, 404);
      assert.equal(
        (
          await http.request("PUT", `${smPath}/submodel-elements/Nope`, {
            body: JSON.stringify({ ...element, idShort: "Nope" }),
          })
        ).status,
        404,
      );
    });

    test("GET and PATCH $value of a Property; invalid values are 400 and change nothing", async () => {
      const path = `${smPath}/submodel-elements/${property.idShort}/$value`;
      const res = await http.get(path);
      assert.equal(res.status, 200);
      assert.ok(Object.keys(res.json()).length === 1 && property.idShort in res.json());
      assert.equal((await http.request("PATCH", path, { body: "4711" })).status, 204);
      assert.equal((await http.get(path)).text, `{"${property.idShort}":4711}`);
      assert.equal((await http.request("PATCH", path, { body: `{"${property.idShort}": 4712}` })).status, 204);
      const invalid = await http.request("PATCH", path, { body: '"not-a-number"' });
      assert.equal(invalid.status, 400);
      assertResult(invalid.json(), 400);
      assert.equal((await http.get(path)).text, `{"${property.idShort}":4712}`);
    });

    test("If-Match: stale ETag → 412, current → 204", async () => {
      const path = `${smPath}/submodel-elements/${property.idShort}`;
      const etag = (await http.get(path)).headers.etag as string;
      assert.equal(
        (await http.request("PATCH", `${path}/$value`, { body: "1", headers: { "if-match": etag } })).status,
        204,
      );
      const stale = await http.request("PATCH", `${path}/$value`, { body: "2", headers: { "if-match": etag } });
      assert.equal(stale.status, 412);
      assertResult(stale.json(), 412);
    });

    test("the submodel API below a shell answers only for the shell's submodels", async () => {
      const shell = model.assetAdministrationShells.find((s: any) =>
        s.submodels?.some((r: any) => r.keys[0].value === submodel.id),
      );
      const other = model.assetAdministrationShells.find(
        (s: any) => !s.submodels?.some((r: any) => r.keys[0].value === submodel.id),
      );
      assert.equal(
        (await http.get(`/shells/${b64(shell.id)}/submodels/${b64(submodel.id)}/submodel-elements/${property.idShort}`))
          .status,
        200,
      );
      assert.equal((await http.get(`/shells/${b64(other.id)}/submodels/${b64(submodel.id)}`)).status, 404);
    });

    if (mode === "distributed") {
      test("a write through one gateway is read back through the other at once", async () => {
        assert.ok(sut.clients.length >= 2);
        const [a, b] = sut.clients;
        const path = `${smPath}/submodel-elements/${property.idShort}/$value`;
        for (let i = 0; i < 20; i++) {
          assert.equal((await a.request("PATCH", path, { body: String(9000 + i) })).status, 204);
          assert.equal((await b.get(path)).text, `{"${property.idShort}":${9000 + i}}`);
        }
        const element = { modelType: "Property", idShort: "CrossGateway", valueType: "xs:string", value: "v" };
        assert.equal(
          (await a.request("POST", `${smPath}/submodel-elements`, { body: JSON.stringify(element) })).status,
          201,
        );
        assert.deepEqual((await b.get(`${smPath}/submodel-elements/CrossGateway`)).json(), element);
        assert.equal((await b.request("DELETE", `${smPath}/submodel-elements/CrossGateway`)).status, 204);
        assert.equal((await a.get(`${smPath}/submodel-elements/CrossGateway`)).status, 404);
      });
    }
  });
}
