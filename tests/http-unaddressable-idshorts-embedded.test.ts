/**
 * With validation off (`core.validationOnCreate` / `validationOnUpdate` / `validationOnLoad` false, as
 * FA³ST users set it to load their files), an element whose idShort an idShortPath cannot address
 * (`a.b`, `a[0]`), or two siblings with one idShort, are still refused (400): stored, the first made
 * every read of its submodel, GET /submodels and /serialization answer 500, and the second silently
 * replaced its sibling (black-box finding). Real HTTP, embedded mode (the check is the engine's,
 * the same in both modes).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { b64, type HttpClient } from "./test-support/http-client.ts";
import { type SystemUnderTest, startSystem } from "./test-support/system.ts";

let system: SystemUnderTest;
let http: HttpClient;

before(async () => {
  system = await startSystem("embedded", {
    config: { core: { validationOnCreate: false, validationOnUpdate: false, validationOnLoad: false } },
  });
  http = system.clients[0]!;
});
after(() => system?.stop());

const property = (idShort: string, value = "1") => ({ modelType: "Property", idShort, valueType: "xs:int", value });
const submodel = (id: string, elements: unknown[]) =>
  JSON.stringify({ modelType: "Submodel", id, submodelElements: elements });
const json = { "Content-Type": "application/json" };

test("an idShort with '.', '[' or ']', or two siblings with one idShort, are refused with validation off; reads stay whole", async () => {
  const cases: [string, unknown[]][] = [
    ["a dot", [property("a.b")]],
    ["an index", [property("a[0]")]],
    ["a bracket", [property("a]")]],
    ["deeper", [{ modelType: "SubmodelElementCollection", idShort: "C", value: [property("x.y")] }]],
    ["two siblings", [property("X", "1"), property("X", "2")]],
    ["a control character", [property("ok\u0000")]],
  ];
  for (const [what, elements] of cases) {
    const id = `urn:test:unaddressable:${what.replace(/ /g, "-")}`;
    const posted = await http.request("POST", "/submodels", { body: submodel(id, elements), headers: json });
    assert.equal(posted.status, 400, `${what}: ${posted.text}`);
    assert.match(posted.json().messages[0].text, /idShort/, what);
    assert.equal((await http.get(`/submodels/${b64(id)}`)).status, 404, `${what}: nothing stored`);
  }
  // Into an existing submodel: POST and PUT of an element, and an import.
  const id = "urn:test:unaddressable:existing";
  assert.equal((await http.request("POST", "/submodels", { body: submodel(id, []), headers: json })).status, 201);
  const elements = `/submodels/${b64(id)}/submodel-elements`;
  const post = await http.request("POST", elements, { body: JSON.stringify(property("p.q")), headers: json });
  assert.equal(post.status, 400, post.text);
  const collection = { modelType: "SubmodelElementCollection", idShort: "C", value: [property("Y"), property("Y")] };
  const put = await http.request("POST", elements, { body: JSON.stringify(collection), headers: json });
  assert.equal(put.status, 400, put.text);
  const imported = await http.request("POST", "/import", {
    body: JSON.stringify({ submodels: [JSON.parse(submodel("urn:test:unaddressable:imported", [property("i.j")]))] }),
    headers: json,
  });
  assert.ok(imported.status === 400 || imported.status === 200, imported.text);
  // Named with its identifiable, as a validation finding is.
  assert.match(imported.text, /submodels\[0\] \('urn:test:unaddressable:imported'\).*'\.', '\[' or '\]'/);
  assert.equal((await http.get(`/submodels/${b64("urn:test:unaddressable:imported")}`)).status, 404, imported.text);
  // Every read of the repository still answers.
  assert.equal((await http.get("/submodels")).status, 200);
  assert.equal((await http.get("/serialization")).status, 200);
});
