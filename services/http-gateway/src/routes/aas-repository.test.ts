import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createHttpApp } from "../create-http-app.ts";
import { httpEndpointSettings } from "../http-endpoint-settings.ts";
import { assertResult, call } from "../test-support/call.ts";
import { b64, type ExampleStore, exampleStore, SHELL_1, SUBMODEL_1 } from "../test-support/example-store.ts";

const newShell = (id: string) =>
  JSON.stringify({
    modelType: "AssetAdministrationShell",
    id,
    idShort: "NewShell",
    assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset:new" },
  });

describe("AAS Repository API (/shells)", () => {
  let example: ExampleStore;
  let app: ReturnType<typeof createHttpApp>;
  before(async () => {
    example = await exampleStore();
    app = createHttpApp({ store: example.store, settings: httpEndpointSettings() });
  });
  after(() => example.close());

  it("GET /shells answers a paged result, always with paging_metadata", async () => {
    const all = await call(app, "GET", "/api/v3.0/shells");
    assert.equal(all.status, 200);
    assert.equal(all.headers.get("content-type"), "application/json");
    assert.deepEqual(Object.keys(all.json), ["paging_metadata", "result"]);
    assert.deepEqual(all.json.paging_metadata, {});
    assert.deepEqual(
      all.json.result.map((shell: { id: string }) => shell.id),
      ["https://example.org/aas/test-1", "https://example.org/aas/test-2", "https://example.org/aas/test-3"],
    );
    assert.equal(all.headers.get("etag"), null, "a list has no single revision");
  });

  it("pages with limit and passes the cursor through", async () => {
    const first = await call(app, "GET", "/api/v3.0/shells?limit=2");
    assert.equal(first.json.result.length, 2);
    assert.equal(typeof first.json.paging_metadata.cursor, "string");
    const second = await call(
      app,
      "GET",
      `/api/v3.0/shells?limit=2&cursor=${encodeURIComponent(first.json.paging_metadata.cursor)}`,
    );
    assert.deepEqual(
      second.json.result.map((shell: { id: string }) => shell.id),
      ["https://example.org/aas/test-3"],
    );
    assert.deepEqual(second.json.paging_metadata, {});
  });

  it("rejects a limit that is not an integer >= 1, repeated, and modifiers /shells does not take", async () => {
    for (const query of [
      "limit=0",
      "limit=-1",
      "limit=abc",
      "limit=1.5",
      "limit=",
      "limit=1&limit=2",
      "level=core",
      "extent=withBlobValue",
      "content=path",
    ]) {
      assertResult(await call(app, "GET", `/api/v3.0/shells?${query}`), 400);
    }
    // Past 2^53 the message says why 9007199254740992 is not taken.
    assertResult(
      await call(app, "GET", "/api/v3.0/shells?limit=9007199254740992"),
      400,
      /no larger than 9007199254740991/,
    );
  });

  it("filters by idShort and by assetIds (base64url JSON, object or array)", async () => {
    const byIdShort = await call(app, "GET", "/api/v3.0/shells?idShort=TestAas2");
    assert.deepEqual(
      byIdShort.json.result.map((shell: { id: string }) => shell.id),
      ["https://example.org/aas/test-2"],
    );
    const global = b64(JSON.stringify({ name: "globalAssetId", value: "https://example.org/assets/pump-0003" }));
    const byAsset = await call(app, "GET", `/api/v3.0/shells?assetIds=${global}`);
    assert.deepEqual(
      byAsset.json.result.map((shell: { id: string }) => shell.id),
      ["https://example.org/aas/test-3"],
    );
    const both = b64(
      JSON.stringify([
        { name: "globalAssetId", value: "https://example.org/assets/pump-0003" },
        { name: "serialNumber", value: "SN-0001" },
      ]),
    );
    assert.deepEqual((await call(app, "GET", `/api/v3.0/shells?assetIds=${both}`)).json, {
      paging_metadata: {},
      result: [],
    });
    assertResult(await call(app, "GET", "/api/v3.0/shells?assetIds=%%%"), 400, /assetIds/);
    assertResult(await call(app, "GET", `/api/v3.0/shells?assetIds=${b64("not json")}`), 400, /assetIds/);
    assertResult(await call(app, "GET", `/api/v3.0/shells?assetIds=${b64('{"name":1}')}`), 400, /assetIds/);
    // A member a SpecificAssetId does not have, or an externalSubjectId that is no Reference: refused.
    const serial = { name: "serialNumber", value: "SN-0001" };
    assertResult(
      await call(app, "GET", `/api/v3.0/shells?assetIds=${b64(JSON.stringify({ ...serial, foo: 1 }))}`),
      400,
      /"foo"/,
    );
    assertResult(
      await call(app, "GET", `/api/v3.0/shells?assetIds=${b64(JSON.stringify({ ...serial, externalSubjectId: "x" }))}`),
      400,
      /externalSubjectId/,
    );
    // An externalSubjectId given must be the asset id's own: this one carries none.
    const subject = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:company:B" }] };
    const bySubject = await call(
      app,
      "GET",
      `/api/v3.0/shells?assetIds=${b64(JSON.stringify({ ...serial, externalSubjectId: subject }))}`,
    );
    assert.deepEqual(bySubject.json.result, []);
    const bySerial = await call(
      app,
      "GET",
      `/api/v3.0/shells?assetIds=${b64(JSON.stringify({ ...serial, externalSubjectId: null, semanticId: null }))}`,
    );
    assert.deepEqual(
      bySerial.json.result.map((shell: { id: string }) => shell.id),
      [SHELL_1],
    );
  });

  it("GET /shells/{id} answers the shell with a strong ETag, 304 when If-None-Match holds it", async () => {
    const got = await call(app, "GET", `/api/v3.0/shells/${b64(SHELL_1)}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.id, SHELL_1);
    assert.equal(got.json.modelType, "AssetAdministrationShell");
    const etag = got.headers.get("etag");
    assert.match(etag ?? "", /^"\d+"$/);
    const again = await call(app, "GET", `/api/v3.0/shells/${b64(SHELL_1)}`, { headers: { "If-None-Match": etag! } });
    assert.equal(again.status, 304);
    assert.equal(again.text, "");
    assert.equal(
      (await call(app, "GET", `/api/v3.0/shells/${b64(SHELL_1)}`, { headers: { "If-None-Match": '"999999"' } })).status,
      200,
    );
  });

  it("accepts padded base64url and %3D-escaped padding", async () => {
    const id = "urn:x:pads"; // 10 bytes: base64 needs "==" padding
    assert.equal((await call(app, "POST", "/api/v3.0/shells", { body: newShell(id) })).status, 201);
    const padded = Buffer.from(id).toString("base64").replace(/\+/g, "-").replace(/\//g, "_");
    assert.ok(padded.endsWith("=="));
    assert.equal((await call(app, "GET", `/api/v3.0/shells/${padded}`)).status, 200);
    assert.equal((await call(app, "GET", `/api/v3.0/shells/${padded.replace(/=/g, "%3D")}`)).status, 200);
  });

  it("answers 400 for an identifier that is not base64url, 404 for an unknown or non-shell id", async () => {
    assertResult(await call(app, "GET", "/api/v3.0/shells/invalid-base64url====="), 400, /base64url/);
    assertResult(await call(app, "GET", "/api/v3.0/shells/a+b"), 400);
    assertResult(await call(app, "GET", `/api/v3.0/shells/${b64("urn:nothing")}`), 404);
    assertResult(await call(app, "GET", `/api/v3.0/shells/${b64(SUBMODEL_1)}`), 404);
  });

  it("POST /shells: 201 with Location (unpadded base64url) and the created shell; 409 on repeat", async () => {
    const id = "urn:example:shell:posted?x=1";
    const posted = await call(app, "POST", "/api/v3.0/shells", {
      body: newShell(id),
      headers: { "Content-Type": "application/json" },
    });
    assert.equal(posted.status, 201, posted.text);
    assert.equal(posted.headers.get("location"), `/api/v3.0/shells/${b64(id)}`);
    assert.ok(!posted.headers.get("location")!.includes("="));
    assert.match(posted.headers.get("etag") ?? "", /^"\d+"$/);
    assert.equal(posted.json.id, id);
    const read = await call(app, "GET", posted.headers.get("location")!);
    assert.equal(read.status, 200);
    assert.equal(read.headers.get("etag"), posted.headers.get("etag"));
    assertResult(await call(app, "POST", "/api/v3.0/shells", { body: newShell(id) }), 409);
  });

  it("POST /shells rejects an empty body, malformed JSON, unknown properties and modifiers", async () => {
    assertResult(await call(app, "POST", "/api/v3.0/shells", { body: "" }), 400, /empty/);
    assertResult(await call(app, "POST", "/api/v3.0/shells", { body: "  \n" }), 400, /empty/);
    assertResult(await call(app, "POST", "/api/v3.0/shells", { body: "{not json" }), 400);
    const unknown = JSON.stringify({ ...JSON.parse(newShell("urn:x:unknown")), colour: "red" });
    assertResult(await call(app, "POST", "/api/v3.0/shells", { body: unknown }), 400, /colour/);
    assertResult(
      await call(app, "POST", "/api/v3.0/shells?level=core", { body: newShell("urn:x:modifier") }),
      400,
      /level/,
    );
  });

  it("PUT /shells/{id}: 204; If-Match with a stale ETag 412, with the current one 204", async () => {
    const id = "urn:example:shell:put";
    const posted = await call(app, "POST", "/api/v3.0/shells", { body: newShell(id) });
    const etag = posted.headers.get("etag")!;
    const changed = JSON.stringify({ ...JSON.parse(newShell(id)), idShort: "Changed" });
    const put = await call(app, "PUT", `/api/v3.0/shells/${b64(id)}`, { body: changed, headers: { "If-Match": etag } });
    assert.equal(put.status, 204, put.text);
    assert.equal(put.text, "");
    assert.equal((await call(app, "GET", `/api/v3.0/shells/${b64(id)}`)).json.idShort, "Changed");
    assertResult(
      await call(app, "PUT", `/api/v3.0/shells/${b64(id)}`, { body: changed, headers: { "If-Match": etag } }),
      412,
    );
    const current = (await call(app, "GET", `/api/v3.0/shells/${b64(id)}`)).headers.get("etag")!;
    // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag never matches, even the current one.
    assertResult(
      await call(app, "PUT", `/api/v3.0/shells/${b64(id)}`, {
        body: changed,
        headers: { "If-Match": `"1", W/${current}` },
      }),
      412,
    );
    assert.equal(
      (
        await call(app, "PUT", `/api/v3.0/shells/${b64(id)}`, {
          body: changed,
          headers: { "If-Match": `"1", W/${current}, ${current}` },
        })
      ).status,
      204,
    );
    assertResult(
      await call(app, "PUT", `/api/v3.0/shells/${b64(id)}`, { body: changed, headers: { "If-None-Match": "*" } }),
      412,
    );
  });

  it("PUT /shells/{id} answers 404 for a missing shell, 400 for a body with another id or no body", async () => {
    assertResult(
      await call(app, "PUT", `/api/v3.0/shells/${b64("urn:missing")}`, { body: newShell("urn:missing") }),
      404,
    );
    assertResult(await call(app, "PUT", `/api/v3.0/shells/${b64(SHELL_1)}`, { body: newShell("urn:other") }), 400);
    assertResult(await call(app, "PUT", `/api/v3.0/shells/${b64(SHELL_1)}`), 400, /empty/);
  });

  it("DELETE /shells/{id}: 204, then 404", async () => {
    const id = "urn:example:shell:delete";
    await call(app, "POST", "/api/v3.0/shells", { body: newShell(id) });
    const deleted = await call(app, "DELETE", `/api/v3.0/shells/${b64(id)}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, "");
    assertResult(await call(app, "GET", `/api/v3.0/shells/${b64(id)}`), 404);
    assertResult(await call(app, "DELETE", `/api/v3.0/shells/${b64(id)}`), 404);
  });

  it("answers 405 with Allow for a method the path does not have", async () => {
    const patch = await call(app, "PATCH", "/api/v3.0/shells", { body: "{}" });
    assertResult(patch, 405);
    assert.equal(patch.headers.get("allow"), "GET, POST, HEAD");
    const post = await call(app, "POST", `/api/v3.0/shells/${b64(SHELL_1)}`, { body: "{}" });
    assertResult(post, 405);
    assert.equal(post.headers.get("allow"), "GET, PUT, DELETE, HEAD");
  });

  it("HEAD answers like GET without a body", async () => {
    const head = await call(app, "HEAD", `/api/v3.0/shells/${b64(SHELL_1)}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, "");
    assert.match(head.headers.get("etag") ?? "", /^"\d+"$/);
  });
});
