/**
 * Black-box suite of the Basic Discovery API (AAS API §a.5) over real HTTPS, embedded and
 * distributed. Asset links are the shells' asset ids (ADR 0007): discovery and /shells agree.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { EXAMPLE_MODEL, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { assertResult, paged, shellBody, valid } from "./shell-suite-support.ts";

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const shells: any[] = model.assetAdministrationShells;
const link = (name: string, value: string) => b64(JSON.stringify({ name, value }));

export function discoverySuite(mode: Mode): void {
  describe(`Basic Discovery API, ${mode} mode`, () => {
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

    test("GET /lookup/shells: AAS ids, paged, filtered by asset links (all must match)", async () => {
      const all = paged(await http.get("/lookup/shells"));
      assert.deepEqual(
        all.result.slice(0, 3),
        shells.map((s) => s.id),
      );
      for (const id of all.result) assert.equal(typeof id, "string");
      const first = paged(await http.get("/lookup/shells?limit=2"));
      assert.equal(first.result.length, 2);
      const rest = paged(await other.get(`/lookup/shells?limit=2&cursor=${encodeURIComponent(first.cursor!)}`));
      assert.deepEqual(
        [...first.result, ...rest.result].slice(0, 3),
        shells.map((s) => s.id),
      );
      assert.deepEqual(paged(await http.get(`/lookup/shells?assetIds=${link("serialNumber", "SN-0002")}`)).result, [
        shells[1].id,
      ]);
      const both = `assetIds=${link("serialNumber", "SN-0002")}&assetIds=${link("globalAssetId", "https://example.org/assets/pump-0002")}`;
      assert.deepEqual(paged(await http.get(`/lookup/shells?${both}`)).result, [shells[1].id]);
      const mismatch = `assetIds=${link("serialNumber", "SN-0002")},${link("globalAssetId", "https://example.org/assets/pump-0001")}`;
      assert.deepEqual(paged(await http.get(`/lookup/shells?${mismatch}`)).result, []);
      assertResult(await http.get("/lookup/shells?assetIds=invalid-base64url====="), 400, /assetIds/);
      assertResult(await http.get("/lookup/shells?limit=-1"), 400);
      assertResult(await http.get("/lookup/shells?level=core"), 400);
      const post = await http.request("POST", "/lookup/shells", { body: "[]" });
      assertResult(post, 405);
      assert.equal(post.headers.allow, "GET, HEAD");
    });

    test("GET /lookup/shells/{id}: the links as SpecificAssetIds, global asset id first; 404 for unknown or non-shell ids", async () => {
      const res = await http.get(`/lookup/shells/${b64(shells[0].id)}`);
      assert.equal(res.status, 200);
      const links = res.json();
      assert.deepEqual(links, [
        { name: "globalAssetId", value: "https://example.org/assets/pump-0001" },
        { name: "serialNumber", value: "SN-0001" },
      ]);
      for (const item of links) valid(item, "SpecificAssetId");
      assertResult(await http.get(`/lookup/shells/${b64("urn:nothing")}`), 404);
      assertResult(await http.get(`/lookup/shells/${b64(model.submodels[0].id)}`), 404);
      assertResult(await http.get("/lookup/shells/invalid-base64url====="), 400);
    });

    test("POST /lookup/shells/{id}: 201 with all links; creates or replaces by name; /shells and the shell agree", async () => {
      const id = `urn:test:${mode}:discovered`;
      await http.request("POST", "/shells", {
        body: JSON.stringify(
          shellBody(id, {
            assetInformation: { assetKind: "Instance", specificAssetIds: [{ name: "serialNumber", value: "S-1" }] },
          }),
        ),
      });
      const body = [
        { name: "serialNumber", value: "S-2" },
        {
          name: "batch",
          value: `B-${mode}`,
          externalSubjectId: { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:maker" }] },
        },
        { name: "globalAssetId", value: `urn:asset:${mode}` },
      ];
      const created = await http.request("POST", `/lookup/shells/${b64(id)}`, { body: JSON.stringify(body) });
      assert.equal(created.status, 201, created.text);
      const expected = [{ name: "globalAssetId", value: `urn:asset:${mode}` }, body[0], body[1]];
      assert.deepEqual(created.json(), expected);
      for (const item of created.json()) valid(item, "SpecificAssetId");
      assert.deepEqual((await other.get(`/lookup/shells/${b64(id)}`)).json(), expected);
      assert.deepEqual(paged(await other.get(`/lookup/shells?assetIds=${link("batch", `B-${mode}`)}`)).result, [id]);
      assert.deepEqual(
        paged(await other.get(`/shells?assetIds=${link("globalAssetId", `urn:asset:${mode}`)}`)).result.map(
          (s) => s.id,
        ),
        [id],
      );
      const info = (await other.get(`/shells/${b64(id)}/asset-information`)).json();
      assert.equal(info.globalAssetId, `urn:asset:${mode}`);
      assert.deepEqual(info.specificAssetIds, [body[0], body[1]]);
      assertResult(await http.request("POST", `/lookup/shells/${b64(id)}`, { body: "[]" }), 400);
      assertResult(await http.request("POST", `/lookup/shells/${b64(id)}`, { body: '[{"name":"a"}]' }), 400);
      assertResult(
        await http.request("POST", `/lookup/shells/${b64(id)}`, {
          body: '[{"name":"globalAssetId","value":"urn:1"},{"name":"globalAssetId","value":"urn:2"}]',
        }),
        400,
      );
      // Two links of one name (two serial numbers): together they replace that name's, and what
      // GET answers then posts back unchanged.
      const twice = [
        { name: "serialNumber", value: "S-3" },
        { name: "serialNumber", value: "S-4" },
      ];
      const doubled = await http.request("POST", `/lookup/shells/${b64(id)}`, { body: JSON.stringify(twice) });
      assert.equal(doubled.status, 201, doubled.text);
      const read = (await other.get(`/lookup/shells/${b64(id)}`)).json();
      // They take the place of the serial number they replace; the batch stays where it was.
      assert.deepEqual(read, [expected[0], ...twice, body[1]]);
      const back = await http.request("POST", `/lookup/shells/${b64(id)}`, { body: JSON.stringify(read) });
      assert.equal(back.status, 201, back.text);
      assert.deepEqual(back.json(), read);
      assert.deepEqual(paged(await other.get(`/lookup/shells?assetIds=${link("serialNumber", "S-4")}`)).result, [id]);
      assertResult(await http.request("POST", `/lookup/shells/${b64(id)}`, { body: '{"name":"a","value":"1"}' }), 400);
      assertResult(
        await http.request("POST", `/lookup/shells/${b64("urn:nothing")}`, { body: '[{"name":"a","value":"1"}]' }),
        404,
      );
    });

    test("a specific asset id with the reserved name globalAssetId: listed once, found by its links, posted back as read", async () => {
      const id = `urn:test:${mode}:reserved-name`;
      const global = `urn:asset:${mode}:reserved`;
      const subject = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:maker" }] };
      // AASd-116: a specific asset id may be named "globalAssetId" when its value is the global asset id.
      const reserved = { name: "globalAssetId", value: global, externalSubjectId: subject };
      const serial = { name: "serialNumber", value: `R-${mode}` };
      const created = await http.request("POST", "/shells", {
        body: JSON.stringify(
          shellBody(id, {
            assetInformation: { assetKind: "Instance", globalAssetId: global, specificAssetIds: [reserved, serial] },
          }),
        ),
      });
      assert.equal(created.status, 201, created.text);
      // One link per asset id: the reserved-name one is the global asset id, with its subject.
      const links = (await other.get(`/lookup/shells/${b64(id)}`)).json();
      assert.deepEqual(links, [reserved, serial]);
      for (const item of links) valid(item, "SpecificAssetId");
      const byLinks = links.map((l: unknown) => `assetIds=${b64(JSON.stringify(l))}`).join("&");
      assert.deepEqual(paged(await http.get(`/lookup/shells?${byLinks}`)).result, [id]);
      assert.deepEqual(paged(await http.get(`/lookup/shells?assetIds=${link("globalAssetId", global)}`)).result, [id]);
      // The round trip: what GET answered is a valid POST body and changes nothing.
      const again = await http.request("POST", `/lookup/shells/${b64(id)}`, { body: JSON.stringify(links) });
      assert.equal(again.status, 201, again.text);
      assert.deepEqual(again.json(), [reserved, serial]);
      // The reserved-name id need not come first among the specific asset ids: GET lists it first
      // (as the global asset id's link), and posting that back still leaves their order alone.
      const reordered = await http.request("PUT", `/shells/${b64(id)}/asset-information`, {
        body: JSON.stringify({ assetKind: "Instance", globalAssetId: global, specificAssetIds: [serial, reserved] }),
      });
      assert.equal(reordered.status, 204, reordered.text);
      const listed = (await other.get(`/lookup/shells/${b64(id)}`)).json();
      assert.deepEqual(listed, [reserved, serial]);
      assert.equal(
        (await http.request("POST", `/lookup/shells/${b64(id)}`, { body: JSON.stringify(listed) })).status,
        201,
      );
      assert.deepEqual((await other.get(`/shells/${b64(id)}/asset-information`)).json().specificAssetIds, [
        serial,
        reserved,
      ]);
      // A new global asset id replaces the reserved-name link too (a stale one would break AASd-116).
      const moved = await http.request("POST", `/lookup/shells/${b64(id)}`, {
        body: JSON.stringify([{ name: "globalAssetId", value: `${global}:2` }]),
      });
      assert.equal(moved.status, 201, moved.text);
      assert.deepEqual(moved.json(), [{ name: "globalAssetId", value: `${global}:2` }, serial]);
      assert.deepEqual(
        paged(await other.get(`/lookup/shells?assetIds=${link("globalAssetId", `${global}:2`)}`)).result,
        [id],
      );
      assert.deepEqual(paged(await other.get(`/lookup/shells?assetIds=${link("globalAssetId", global)}`)).result, []);
      assert.deepEqual((await other.get(`/shells/${b64(id)}/asset-information`)).json().specificAssetIds, [serial]);
    });

    test("DELETE /lookup/shells/{id}: 204, every link gone, the shell stays; 412 on a stale If-Match (POST too); 404 for unknown ids", async () => {
      const id = `urn:test:${mode}:forgotten`;
      await http.request("POST", "/shells", {
        body: JSON.stringify(
          shellBody(id, {
            assetInformation: {
              assetKind: "Instance",
              globalAssetId: "urn:asset:forgotten",
              specificAssetIds: [{ name: "serialNumber", value: "F-1" }],
            },
          }),
        ),
      });
      // If-Match as on every write (docs/http-api.md "Concurrency"): a stale ETag changes nothing.
      const current = (await http.get(`/lookup/shells/${b64(id)}`)).headers.etag as string;
      assert.match(current, /^"\d+"$/);
      const stale = `"${Number(current.slice(1, -1)) - 1}"`;
      assertResult(await http.request("DELETE", `/lookup/shells/${b64(id)}`, { headers: { "If-Match": stale } }), 412);
      assertResult(
        await http.request("POST", `/lookup/shells/${b64(id)}`, {
          body: '[{"name":"batch","value":"stale"}]',
          headers: { "If-Match": stale },
        }),
        412,
      );
      assert.equal((await other.get(`/lookup/shells/${b64(id)}`)).json().length, 2, "the links are untouched");
      const deleted = await http.request("DELETE", `/lookup/shells/${b64(id)}`, { headers: { "If-Match": current } });
      assert.equal(deleted.status, 204, deleted.text);
      assert.equal(deleted.text, "");
      assert.deepEqual((await other.get(`/lookup/shells/${b64(id)}`)).json(), []);
      assert.deepEqual(paged(await other.get(`/lookup/shells?assetIds=${link("serialNumber", "F-1")}`)).result, []);
      assert.deepEqual((await other.get(`/shells/${b64(id)}/asset-information`)).json(), { assetKind: "Instance" });
      assertResult(await http.request("DELETE", `/lookup/shells/${b64("urn:nothing")}`), 404);
      const put = await http.request("PUT", `/lookup/shells/${b64(id)}`, { body: "[]" });
      assertResult(put, 405);
      assert.equal(put.headers.allow, "GET, POST, DELETE, HEAD");
    });

    test("a shell whose links were all deleted takes writes of its other parts; a write of its asset information must name an asset again", async () => {
      const id = `urn:test:${mode}:unlinked`;
      const smId = "https://example.org/submodels/technical-data-1";
      const created = await http.request("POST", "/shells", { body: JSON.stringify(shellBody(id)) });
      assert.equal(created.status, 201, created.text);
      assert.equal((await http.request("DELETE", `/lookup/shells/${b64(id)}`)).status, 204);
      // The shell now names no asset (AASd-131, ADR 0007); the reference writes do not touch that.
      const posted = await http.request("POST", `/shells/${b64(id)}/submodel-refs`, {
        body: JSON.stringify({ type: "ModelReference", keys: [{ type: "Submodel", value: smId }] }),
      });
      assert.equal(posted.status, 201, posted.text);
      assert.deepEqual(
        paged(await other.get(`/shells/${b64(id)}/submodel-refs`)).result.map((ref) => ref.keys[0].value),
        [smId],
      );
      const removed = await http.request("DELETE", `/shells/${b64(id)}/submodel-refs/${b64(smId)}`);
      assert.equal(removed.status, 204, removed.text);
      // A bad reference is still refused, as on any shell.
      assertResult(
        await http.request("POST", `/shells/${b64(id)}/submodel-refs`, {
          body: JSON.stringify({ type: "ModelReference", keys: [] }),
        }),
        400,
      );
      // Writing the asset information itself (or the whole shell) without an asset is verified as usual.
      assertResult(
        await http.request("PUT", `/shells/${b64(id)}/asset-information`, {
          body: JSON.stringify({ assetKind: "Type" }),
        }),
        400,
        /AASd-131/,
      );
      assertResult(
        await http.request("PUT", `/shells/${b64(id)}`, {
          body: JSON.stringify({ ...shellBody(id), assetInformation: { assetKind: "Instance" } }),
        }),
        400,
        /AASd-131/,
      );
      assert.equal(
        (
          await http.request("POST", `/lookup/shells/${b64(id)}`, {
            body: '[{"name":"globalAssetId","value":"urn:asset:back"}]',
          })
        ).status,
        201,
      );
      assert.deepEqual((await other.get(`/shells/${b64(id)}/asset-information`)).json(), {
        assetKind: "Instance",
        globalAssetId: "urn:asset:back",
      });
    });
  });
}
