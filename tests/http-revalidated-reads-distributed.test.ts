/**
 * Gateways without a read cache (messageBus.readCacheMaxAgeMs 0) hold the last answer of a read and
 * ask the model-store whether it still has that revision (docs/adr/0026). Black-box: every read is
 * as fresh as an uncached one, whichever gateway the write went through, and answers stay exact.
 * Only in distributed mode: embedded mode has no hop between gateway and store to save.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { b64 } from "./test-support/http-client.ts";
import { type SystemUnderTest, startSystem } from "./test-support/system.ts";

const SM = "urn:test:revalidated:large";
let system: SystemUnderTest;

before(async () => {
  const model = join(tmpdir(), `revalidated-reads-${process.pid}.json`);
  writeFileSync(
    model,
    JSON.stringify({
      submodels: [
        {
          modelType: "Submodel",
          id: SM,
          idShort: "Large",
          submodelElements: Array.from({ length: 300 }, (_, i) => ({
            modelType: "Property",
            idShort: `P${i}`,
            valueType: "xs:int",
            value: String(i),
          })),
        },
      ],
    }),
  );
  system = await startSystem("distributed", {
    model,
    gateways: 2,
    config: { messageBus: { "@class": "messagebus.nats.MessageBusNats", readCacheMaxAgeMs: 0 } },
  });
});
after(() => system?.stop());

const submodel = `/submodels/${b64(SM)}`;
const value = (i: number) => `${submodel}/submodel-elements/P${i}/$value`;

test("a repeated read answers the same bytes and ETag; a write through the other gateway is seen at once", async () => {
  const [a, b] = system.clients;
  const first = await a!.get(submodel);
  const second = await a!.get(submodel);
  assert.equal(first.status, 200);
  assert.equal(second.text, first.text);
  assert.equal(second.headers.etag, first.headers.etag);
  assert.equal(second.headers["content-type"], "application/json");
  assert.equal(first.json().submodelElements.length, 300);

  for (let round = 1; round <= 5; round++) {
    const written = await b!.request("PATCH", value(7), {
      body: String(1000 + round),
      headers: { "Content-Type": "application/json" },
    });
    assert.equal(written.status, 204);
    // No event stream is waited for: the store decides at the time of the read.
    const read = await a!.get(submodel);
    assert.equal(read.status, 200);
    assert.equal(read.json().submodelElements[7].value, String(1000 + round));
    assert.notEqual(read.headers.etag, first.headers.etag);
    assert.deepEqual((await a!.get(value(7))).json(), { P7: 1000 + round });
  }
});

test("If-None-Match with the held revision still answers 304; other representations are their own answers", async () => {
  const [a] = system.clients;
  const full = await a!.get(submodel);
  const notModified = await a!.get(submodel, { "If-None-Match": full.headers.etag as string });
  assert.equal(notModified.status, 304);
  const valueOnly = await a!.get(`${submodel}/$value`);
  assert.equal(valueOnly.status, 200);
  assert.equal(valueOnly.json().Large, undefined);
  assert.equal(Object.keys(valueOnly.json()).length, 300);
  assert.notEqual(valueOnly.text, full.text);
  assert.equal((await a!.get(`${submodel}/$value`)).text, valueOnly.text);
});

test("a deleted submodel is gone at once, not served from what the gateway held", async () => {
  const [a, b] = system.clients;
  assert.equal((await a!.get(submodel)).status, 200);
  assert.equal((await b!.request("DELETE", submodel)).status, 204);
  const gone = await a!.get(submodel);
  assert.equal(gone.status, 404);
  assert.ok(Array.isArray(gone.json().messages));
});

test("a list index read again after an item before it was deleted answers the item there now, not the one held", async () => {
  const [a, b] = system.clients;
  const id = "urn:test:revalidated:list";
  const item = (value: string) => ({ modelType: "Property", valueType: "xs:string", value });
  const created = await b!.request("POST", "/submodels", {
    body: JSON.stringify({
      modelType: "Submodel",
      id,
      submodelElements: [
        {
          modelType: "SubmodelElementList",
          idShort: "Tags",
          typeValueListElement: "Property",
          valueTypeListElement: "xs:string",
          value: ["A", "B", "C"].map(item),
        },
      ],
    }),
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(created.status, 201, created.text);
  const second = `/submodels/${b64(id)}/submodel-elements/Tags%5B1%5D`;
  // Held by gateway a: B, of the revision the whole list was written with.
  assert.equal((await a!.get(second)).json().value, "B");
  assert.equal((await a!.get(`${second}/$value`)).text, '"B"');
  assert.equal((await b!.request("DELETE", `/submodels/${b64(id)}/submodel-elements/Tags%5B0%5D`)).status, 204);
  // C is at index 1 now, with the same revision as B: the held answer must not be taken for it.
  assert.equal((await a!.get(second)).json().value, "C");
  assert.equal((await a!.get(`${second}/$value`)).text, '"C"');
});
