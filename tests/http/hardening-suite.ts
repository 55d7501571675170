/**
 * Black-box suite of issue 13 part 2 (hostile inputs) over real HTTPS and raw sockets, run against
 * embedded mode and the distributed mode (model-store + http-gateway + Redis + NATS as processes).
 * Every hostile request gets a 4xx with the AAS Result body, and a normal request right after it
 * still succeeds: the server neither crashed nor froze.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { findCertificate, startSystem, type Mode, type SystemUnderTest } from "../test-support/system.ts";

const SUBMODEL_ID = "https://example.org/submodels/technical-data-1";
const SUBMODEL = `/submodels/${b64(SUBMODEL_ID)}`;

export function assertResult(response: HttpResponse, status: number, reason?: RegExp): void {
  assert.equal(response.status, status, response.text);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ["messages"], response.text);
  assert.equal(body.messages[0].messageType, "Error");
  assert.equal(body.messages[0].code, String(status));
  if (reason) assert.match(body.messages[0].text, reason);
}

export async function assertServing(client: HttpClient, after: string): Promise<void> {
  const response = await client.get(SUBMODEL);
  assert.equal(response.status, 200, `still serving after ${after}: ${response.text}`);
}

const json = (body: unknown) => ({ body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json" } });

export function hardeningSuite(mode: Mode): void {
  describe(`hostile inputs (issue 13 part 2), ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let client: HttpClient;
    let ca: string | undefined;

    before(async () => {
      sut = await startSystem(mode, { gateways: 1 });
      client = sut.clients[0]!;
      const gateway = sut.processes.find((proc) => proc.role !== "model-store")!;
      ca = findCertificate(dirname(gateway.logFile));
    });
    after(async () => {
      await sut?.stop();
    });

    describe("no input sets an object's prototype", () => {
      test("merge patches, $metadata and $value patches with __proto__ are refused and change nothing", async () => {
        const cases: [string, string, unknown][] = [
          ["PATCH submodel", SUBMODEL, JSON.parse('{"__proto__":{"idShort":"Hacked"}}')],
          ["PATCH $metadata", `${SUBMODEL}/$metadata`, JSON.parse('{"__proto__":{"idShort":"Hacked"}}')],
          ["PATCH element", `${SUBMODEL}/submodel-elements/Dimensions`, JSON.parse('{"__proto__":{"idShort":"Hacked"}}')],
          ["PATCH $value", `${SUBMODEL}/$value`, JSON.parse('{"__proto__":{"Dimensions":{"Width":9}}}')],
          ["PATCH element $value", `${SUBMODEL}/submodel-elements/Dimensions/$value`, JSON.parse('{"Dimensions":{"__proto__":{"Width":9}}}')],
        ];
        for (const [what, path, body] of cases) {
          const response = await client.request("PATCH", path, json(body));
          assertResult(response, 400, /__proto__/);
          await assertServing(client, what);
        }
        // Escaped in the JSON text, the key is the same member name.
        const escaped = await client.request("PATCH", SUBMODEL, json('{"\\u005f_proto__":{"idShort":"Hacked"}}'));
        assertResult(escaped, 400, /__proto__/);
        const submodel = (await client.get(SUBMODEL)).json();
        assert.equal(submodel.idShort, "TechnicalData");
        const width = (await client.get(`${SUBMODEL}/submodel-elements/Dimensions.Width/$value`)).json();
        assert.deepEqual(width, { Width: 0.25 });
      });

      test("constructor and prototype are unknown properties of AAS objects", async () => {
        const patch = await client.request("PATCH", SUBMODEL, json({ constructor: { prototype: { idShort: "Hacked" } } }));
        assertResult(patch, 400, /constructor/);
        const posted = await client.request("POST", `${SUBMODEL}/submodel-elements`, json({ modelType: "Property", idShort: "P", valueType: "xs:string", prototype: { x: 1 } }));
        assertResult(posted, 400, /prototype/);
        const modelType = await client.request("POST", `${SUBMODEL}/submodel-elements`, json({ modelType: "constructor", idShort: "P" }));
        assert.equal(modelType.status, 400, modelType.text);
        const created = await client.request("POST", "/shells", json('{"modelType":"AssetAdministrationShell","id":"urn:x:proto","__proto__":{},"assetInformation":{"assetKind":"Instance","globalAssetId":"urn:a"}}'));
        assertResult(created, 400, /__proto__/);
        await assertServing(client, "constructor/prototype members");
      });

      test("elements called constructor and prototype are plain data", async () => {
        const collection = {
          modelType: "SubmodelElementCollection",
          idShort: "prototype",
          value: [{ modelType: "Property", idShort: "constructor", valueType: "xs:string", value: "a" }],
        };
        const posted = await client.request("POST", `${SUBMODEL}/submodel-elements`, json(collection));
        assert.equal(posted.status, 201, posted.text);
        const patched = await client.request("PATCH", `${SUBMODEL}/submodel-elements/prototype/$value`, json({ prototype: { constructor: "b" } }));
        assert.equal(patched.status, 204, patched.text);
        const value = (await client.get(`${SUBMODEL}/submodel-elements/prototype/$value`)).json();
        assert.deepEqual(value, { prototype: { constructor: "b" } });
        const submodelValue = await client.request("PATCH", `${SUBMODEL}/$value`, json({ prototype: { constructor: "c" } }));
        assert.equal(submodelValue.status, 204, submodelValue.text);
        assert.deepEqual((await client.get(`${SUBMODEL}/submodel-elements/prototype.constructor/$value`)).json(), { constructor: "c" });
        assert.equal((await client.request("DELETE", `${SUBMODEL}/submodel-elements/prototype`)).status, 204);
      });

      test("query parameters named __proto__, constructor, prototype are ignored as data", async () => {
        const response = await client.get(`/submodels?__proto__[idShort]=Hacked&constructor=x&prototype=y&__proto__=z`);
        assert.equal(response.status, 200, response.text);
        const listed = response.json().result.find((submodel: { id: string }) => submodel.id === SUBMODEL_ID);
        assert.equal(listed.idShort, "TechnicalData");
      });

      test("XML and AASX documents with a __proto__ member are refused", async () => {
        const xml =
          '<environment xmlns="https://admin-shell.io/aas/3/0"><submodels><submodel><__proto__><idShort>Hacked</idShort></__proto__>' +
          "<id>urn:x:xml-proto</id></submodel></submodels></environment>";
        const imported = await client.request("POST", "/import", { body: xml, headers: { "content-type": "application/xml" } });
        assertResult(imported, 400, /__proto__/);
        const environment = '{"submodels":[{"modelType":"Submodel","id":"urn:x:aasx-proto","__proto__":{"idShort":"Hacked"}}]}';
        const { writeAasx } = await import("@twinport/shared");
        const aasx = writeAasx({ environment: JSON.parse(environment), files: [], format: "json" });
        const response = await client.request("POST", "/import", { body: Buffer.from(aasx), headers: { "content-type": "application/asset-administration-shell-package+xml" } });
        assertResult(response, 400, /__proto__/);
        assert.equal((await client.get(`/submodels/${b64("urn:x:aasx-proto")}`)).status, 404);
        await assertServing(client, "hostile documents");
      });
    });

    void ca;
  });
}
