/**
 * Black-box suite of the AAS Repository API and the AAS API below /shells/{aasIdentifier}
 * (AAS API §a.1 rows 1–9 and 13–15; the thumbnail rows belong to the files suite), over real HTTPS,
 * embedded and distributed (where a second gateway reads what the first one wrote).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { EXAMPLE_MODEL, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import {
  assertResult,
  etagOf,
  paged,
  shellBody,
  submodelRef,
  valid,
  validAssetInformation,
} from "./shell-suite-support.ts";

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const shells: any[] = model.assetAdministrationShells;
const SHELL_1 = shells[0].id as string;
const json = (value: unknown) => ({ body: JSON.stringify(value) });
const assetIds = (...pairs: [string, string][]) =>
  b64(
    JSON.stringify(
      pairs.length === 1 ? { name: pairs[0][0], value: pairs[0][1] } : pairs.map(([name, value]) => ({ name, value })),
    ),
  );

export function shellRepositorySuite(mode: Mode): void {
  describe(`AAS Repository and AAS API, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    /** The other gateway in distributed mode (reads what `http` wrote); the same one embedded. */
    let other: HttpClient;
    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0];
      other = sut.clients[sut.clients.length - 1];
    });
    after(async () => {
      await sut?.stop();
    });

    test("GET /shells: valid shells in the paged envelope; limit and cursor across gateways", async () => {
      const all = paged(await http.get("/shells"));
      assert.deepEqual(all.cursor, undefined);
      assert.deepEqual(all.result.slice(0, 3), shells);
      for (const shell of all.result) valid(shell, "AssetAdministrationShell");
      const first = paged(await http.get("/shells?limit=2"));
      assert.equal(first.result.length, 2);
      const rest = paged(await other.get(`/shells?limit=2&cursor=${encodeURIComponent(first.cursor!)}`));
      assert.deepEqual(
        [...first.result, ...rest.result].map((s) => s.id).slice(0, 3),
        shells.map((s) => s.id),
      );
      for (const query of [
        "limit=-1",
        "limit=0",
        "limit=abc",
        "cursor=",
        "level=core",
        "extent=withBlobValue",
        "content=path",
        "limit=1&limit=2",
      ]) {
        assertResult(await http.get(`/shells?${query}`), 400);
      }
    });

    test("GET /shells filters by idShort (exact) and assetIds (all must match; repeated, comma-separated or an array)", async () => {
      assert.deepEqual(
        paged(await http.get("/shells?idShort=TestAas2")).result.map((s) => s.id),
        [shells[1].id],
      );
      assert.deepEqual(
        paged(await http.get("/shells?idShort=testaas2")).result,
        [],
        "case-sensitive; no match is 200 []",
      );
      const global = assetIds(["globalAssetId", "https://example.org/assets/pump-0003"]);
      assert.deepEqual(
        paged(await http.get(`/shells?assetIds=${global}`)).result.map((s) => s.id),
        [shells[2].id],
      );
      const serial = assetIds(["serialNumber", "SN-0003"]);
      assert.deepEqual(
        paged(await http.get(`/shells?assetIds=${global}&assetIds=${serial}`)).result.map((s) => s.id),
        [shells[2].id],
      );
      assert.deepEqual(
        paged(await http.get(`/shells?assetIds=${global},${serial}`)).result.map((s) => s.id),
        [shells[2].id],
      );
      const mismatch = assetIds(["globalAssetId", "https://example.org/assets/pump-0003"], ["serialNumber", "SN-0001"]);
      assert.deepEqual(paged(await http.get(`/shells?assetIds=${mismatch}`)).result, []);
      assert.deepEqual(paged(await http.get(`/shells?assetIds=${serial}&idShort=TestAas1`)).result, []);
      assertResult(await http.get("/shells?assetIds=invalid-base64url====="), 400, /assetIds/);
      assertResult(await http.get(`/shells?assetIds=${b64("not json")}`), 400, /assetIds/);
      assertResult(await http.get(`/shells?assetIds=${b64('{"name":"x"}')}`), 400, /assetIds/);
    });

    test("GET /shells/$reference: ModelReferences, paged, filtered by idShort, assetIds and assetId", async () => {
      const all = paged(await http.get("/shells/$reference"));
      assert.deepEqual(
        all.result.slice(0, 3),
        shells.map((s) => ({ type: "ModelReference", keys: [{ type: "AssetAdministrationShell", value: s.id }] })),
      );
      for (const ref of all.result) valid(ref, "Reference");
      const first = paged(await http.get("/shells/%24reference?limit=1"));
      assert.equal(first.result.length, 1);
      assert.ok(first.cursor);
      const byIdShort = paged(await http.get("/shells/$reference?idShort=TestAas2")).result;
      assert.deepEqual(
        byIdShort.map((r) => r.keys[0].value),
        [shells[1].id],
      );
      const serial = assetIds(["serialNumber", "SN-0001"]);
      assert.deepEqual(
        paged(await http.get(`/shells/$reference?assetIds=${serial}`)).result.map((r) => r.keys[0].value),
        [SHELL_1],
      );
      assert.deepEqual(
        paged(await http.get(`/shells/$reference?assetId=${serial}`)).result.map((r) => r.keys[0].value),
        [SHELL_1],
        "spec §4.1.10: assetId",
      );
      assertResult(await http.get("/shells/$reference?level=core"), 400);
      const post = await http.request("POST", "/shells/$reference", json(shellBody("urn:x")));
      assertResult(post, 405);
      assert.equal(post.headers.allow, "GET, HEAD");
    });

    test("POST /shells: 201 with Location, ETag and the shell; 409 on repeat; 400 for unknown properties", async () => {
      const shell = shellBody(`urn:test:${mode}:posted`);
      const created = await http.request("POST", "/shells", json(shell));
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0/shells/${b64(shell.id as string)}`);
      const etag = etagOf(created);
      assert.deepEqual(valid(created.json(), "AssetAdministrationShell"), shell);
      const read = await other.get(`/shells/${b64(shell.id as string)}`);
      assert.equal(read.headers.etag, etag, "read-your-writes through the other gateway, same revision");
      assertResult(await http.request("POST", "/shells", json(shell)), 409);
      assertResult(
        await http.request("POST", "/shells", json({ ...shellBody("urn:x:unknown"), colour: "red" })),
        400,
        /colour/,
      );
      assertResult(
        await http.request(
          "POST",
          "/shells",
          json({ ...shellBody("urn:x:nothing"), assetInformation: { assetKind: "Instance" } }),
        ),
        400,
        /AASd-131/,
      );
    });

    test("GET /shells/{id}: the shell with its ETag, 304 on If-None-Match; 404 for unknown and non-shell ids; 400 for bad base64url", async () => {
      const res = await http.get(`/shells/${b64(SHELL_1)}`);
      assert.equal(res.status, 200);
      assert.deepEqual(valid(res.json(), "AssetAdministrationShell"), shells[0]);
      const etag = etagOf(res);
      const again = await other.get(`/shells/${b64(SHELL_1)}`, { "If-None-Match": etag });
      assert.equal(again.status, 304);
      assertResult(await http.get(`/shells/${b64("urn:nothing")}`), 404);
      assertResult(await http.get(`/shells/${b64(model.submodels[0].id)}`), 404);
      assertResult(await http.get(`/shells/${b64(model.conceptDescriptions[0].id)}`), 404);
      assertResult(await http.get("/shells/invalid-base64url====="), 400, /base64url/);
      assertResult(await http.get(`/shells/${b64(SHELL_1)}/$metadata`), 400);
      assertResult(await http.get(`/shells/${b64(SHELL_1)}/$value`), 400);
      assertResult(await http.get(`/shells/${b64(SHELL_1)}/unknown/segments`), 400);
    });

    test("PUT /shells/{id}: 204; If-Match stale 412, current 204; 404 missing; 400 other id", async () => {
      const id = `urn:test:${mode}:put`;
      const etag = etagOf(await http.request("POST", "/shells", json(shellBody(id))));
      const put = await http.request("PUT", `/shells/${b64(id)}`, {
        body: JSON.stringify(shellBody(id, { idShort: "Changed" })),
        headers: { "If-Match": etag },
      });
      assert.equal(put.status, 204, put.text);
      assert.equal(put.text, "");
      assert.equal((await other.get(`/shells/${b64(id)}`)).json().idShort, "Changed");
      assertResult(
        await other.request("PUT", `/shells/${b64(id)}`, {
          body: JSON.stringify(shellBody(id)),
          headers: { "If-Match": etag },
        }),
        412,
      );
      assertResult(
        await http.request("PUT", `/shells/${b64(id)}`, {
          body: JSON.stringify(shellBody(id)),
          headers: { "If-None-Match": "*" },
        }),
        412,
      );
      assertResult(await http.request("PUT", `/shells/${b64("urn:missing")}`, json(shellBody("urn:missing"))), 404);
      assertResult(await http.request("PUT", `/shells/${b64(id)}`, json(shellBody("urn:other"))), 400);
    });

    test("DELETE /shells/{id}: If-Match stale 412, then 204, then 404", async () => {
      const id = `urn:test:${mode}:delete`;
      const etag = etagOf(await http.request("POST", "/shells", json(shellBody(id))));
      await http.request("PUT", `/shells/${b64(id)}`, json(shellBody(id, { idShort: "Newer" })));
      assertResult(await http.request("DELETE", `/shells/${b64(id)}`, { headers: { "If-Match": etag } }), 412);
      const deleted = await http.request("DELETE", `/shells/${b64(id)}`);
      assert.equal(deleted.status, 204);
      assertResult(await other.get(`/shells/${b64(id)}`), 404);
      assertResult(await http.request("DELETE", `/shells/${b64(id)}`), 404);
    });

    test("GET /shells/{id}/$reference: a ModelReference to the shell", async () => {
      const res = await http.get(`/shells/${b64(SHELL_1)}/$reference`);
      assert.equal(res.status, 200);
      assert.deepEqual(valid(res.json(), "Reference"), {
        type: "ModelReference",
        keys: [{ type: "AssetAdministrationShell", value: SHELL_1 }],
      });
      assertResult(await http.get(`/shells/${b64("urn:nothing")}/$reference`), 404);
      assertResult(await http.get(`/shells/${b64(SHELL_1)}/$reference?level=core`), 400);
    });

    test("GET/PUT /shells/{id}/asset-information: the shell's ETag; If-Match and If-None-Match; 400, 404", async () => {
      const id = `urn:test:${mode}:asset-information`;
      await http.request("POST", "/shells", json(shellBody(id)));
      const got = await http.get(`/shells/${b64(id)}/asset-information`);
      assert.equal(got.status, 200);
      assert.deepEqual(validAssetInformation(got.json()), { assetKind: "Instance", globalAssetId: `${id}/asset` });
      const etag = etagOf(got);
      assert.equal(etag, (await http.get(`/shells/${b64(id)}`)).headers.etag);
      const info = {
        assetKind: "Type",
        globalAssetId: "urn:asset:type",
        specificAssetIds: [{ name: "partNumber", value: "P-1" }],
        assetType: "pump",
      };
      assertResult(
        await http.request("PUT", `/shells/${b64(id)}/asset-information`, {
          body: JSON.stringify(info),
          headers: { "If-Match": '"1"' },
        }),
        412,
      );
      assertResult(
        await http.request("PUT", `/shells/${b64(id)}/asset-information`, {
          body: JSON.stringify(info),
          headers: { "If-None-Match": etag },
        }),
        412,
      );
      const put = await http.request("PUT", `/shells/${b64(id)}/asset-information`, {
        body: JSON.stringify(info),
        headers: { "If-Match": etag },
      });
      assert.equal(put.status, 204, put.text);
      const after = await other.get(`/shells/${b64(id)}/asset-information`);
      assert.deepEqual(after.json(), info);
      assert.notEqual(etagOf(after), etag);
      assert.deepEqual((await other.get(`/shells/${b64(id)}`)).json().assetInformation, info);
      assertResult(
        await http.request("PUT", `/shells/${b64(id)}/asset-information`, json({ ...info, colour: "red" })),
        400,
        /colour/,
      );
      assertResult(
        await http.request("PUT", `/shells/${b64(id)}/asset-information`, json({ assetKind: "Instance" })),
        400,
      );
      assertResult(await http.request("PUT", `/shells/${b64(id)}/asset-information`, { body: "" }), 400);
      assertResult(await http.request("PUT", `/shells/${b64("urn:missing")}/asset-information`, json(info)), 404);
      assertResult(await http.get(`/shells/${b64(model.submodels[0].id)}/asset-information`), 404);
      assertResult(await http.request("POST", `/shells/${b64(id)}/asset-information`, json(info)), 405);
    });

    test("GET /shells/{id}/submodel-refs: valid References, paged", async () => {
      const all = paged(await http.get(`/shells/${b64(SHELL_1)}/submodel-refs`));
      assert.deepEqual(all.result, shells[0].submodels);
      for (const ref of all.result) valid(ref, "Reference");
      const first = paged(await http.get(`/shells/${b64(SHELL_1)}/submodel-refs?limit=1`));
      assert.deepEqual(first.result, [shells[0].submodels[0]]);
      const second = paged(
        await other.get(`/shells/${b64(SHELL_1)}/submodel-refs?limit=1&cursor=${encodeURIComponent(first.cursor!)}`),
      );
      assert.deepEqual(second, { result: [shells[0].submodels[1]], cursor: undefined });
      assertResult(await http.get(`/shells/${b64(SHELL_1)}/submodel-refs?limit=0`), 400);
      assertResult(await http.get(`/shells/${b64(SHELL_1)}/submodel-refs?level=deep`), 400);
      assertResult(await http.get(`/shells/${b64("urn:nothing")}/submodel-refs`), 404);
    });

    test("POST /shells/{id}/submodel-refs: 201 with Location and the reference; 409 when present; 400 when not a submodel reference", async () => {
      const id = `urn:test:${mode}:refs`;
      await http.request("POST", "/shells", json(shellBody(id)));
      const ref = submodelRef(model.submodels[0].id);
      const created = await http.request("POST", `/shells/${b64(id)}/submodel-refs`, json(ref));
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.location, `/api/v3.0/shells/${b64(id)}/submodel-refs/${b64(model.submodels[0].id)}`);
      assert.deepEqual(valid(created.json(), "Reference"), ref);
      assert.deepEqual(paged(await other.get(`/shells/${b64(id)}/submodel-refs`)).result, [ref]);
      // The submodel is now reachable below the shell.
      assert.equal((await other.get(`/shells/${b64(id)}/submodels/${b64(model.submodels[0].id)}`)).status, 200);
      assertResult(await http.request("POST", `/shells/${b64(id)}/submodel-refs`, json(ref)), 409);
      assertResult(
        await http.request(
          "POST",
          `/shells/${b64(id)}/submodel-refs`,
          json({ type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:x" }] }),
        ),
        400,
      );
      assertResult(
        await http.request("POST", `/shells/${b64(id)}/submodel-refs`, json({ type: "ModelReference", keys: [] })),
        400,
      );
      assertResult(await http.request("POST", `/shells/${b64(id)}/submodel-refs`, { body: "{oops" }), 400);
      assertResult(await http.request("POST", `/shells/${b64("urn:nothing")}/submodel-refs`, json(ref)), 404);
    });

    test("DELETE /shells/{id}/submodel-refs/{submodelId}: 204, only the reference goes; 404 after; If-Match", async () => {
      const id = `urn:test:${mode}:unref`;
      const smId = model.submodels[1].id;
      await http.request("POST", "/shells", json(shellBody(id, { submodels: [submodelRef(smId)] })));
      const etag = etagOf(await http.get(`/shells/${b64(id)}`));
      await http.request(
        "PUT",
        `/shells/${b64(id)}/asset-information`,
        json({ assetKind: "Instance", globalAssetId: "urn:asset:changed" }),
      );
      assertResult(
        await http.request("DELETE", `/shells/${b64(id)}/submodel-refs/${b64(smId)}`, {
          headers: { "If-Match": etag },
        }),
        412,
      );
      const deleted = await http.request("DELETE", `/shells/${b64(id)}/submodel-refs/${b64(smId)}`);
      assert.equal(deleted.status, 204, deleted.text);
      assert.deepEqual(paged(await other.get(`/shells/${b64(id)}/submodel-refs`)).result, []);
      const shell = (await other.get(`/shells/${b64(id)}`)).json();
      assert.equal(shell.submodels, undefined);
      valid(shell, "AssetAdministrationShell");
      assert.equal((await other.get(`/submodels/${b64(smId)}`)).status, 200, "the submodel itself stays");
      assertResult(await other.get(`/shells/${b64(id)}/submodels/${b64(smId)}`), 404);
      assertResult(await http.request("DELETE", `/shells/${b64(id)}/submodel-refs/${b64(smId)}`), 404);
      assertResult(await http.request("DELETE", `/shells/${b64(id)}/submodel-refs/not-base64url!`), 400);
      assertResult(await http.request("GET", `/shells/${b64(id)}/submodel-refs/${b64(smId)}`), 405);
    });

    test("methods a path does not have: 405 with Allow", async () => {
      const patch = await http.request("PATCH", `/shells/${b64(SHELL_1)}`, json({}));
      assertResult(patch, 405);
      assert.equal(patch.headers.allow, "GET, PUT, DELETE, HEAD");
      const refs = await http.request("PUT", `/shells/${b64(SHELL_1)}/submodel-refs`, json([]));
      assertResult(refs, 405);
      assert.equal(refs.headers.allow, "GET, POST, HEAD");
    });
  });
}
