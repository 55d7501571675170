/**
 * Black-box suite of the Submodel API on the submodel itself below a shell (AAS API §a.2 rows 1–10,
 * at /shells/{aas}/submodels/{sm} and at the spec §4.1.5 form …/aas/submodels/{sm}/submodel): it
 * answers only for submodels the shell references; DELETE removes the submodel from the shell and
 * the repository. Embedded and distributed.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { assertResult, createFixtureAt, etagOf, json, model, valid, withoutBlobs } from "./submodel-suite-support.ts";

const BELOW_SHELL = ["shell", "shell-aas"] as const;

export function submodelSuperpathSuite(mode: Mode): void {
  let sut: SystemUnderTest;
  let http: HttpClient;
  let other: HttpClient;
  describe(`Submodel API below a shell, ${mode} mode`, () => {
    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0];
      other = sut.clients[sut.clients.length - 1];
    });
    after(async () => {
      await sut?.stop();
    });
    for (const mount of BELOW_SHELL) describe(`at the ${mount} mount`, () => superpathTests(mount));

    test("only submodels the shell references are found below it; unknown shells and bad ids", async () => {
      const [shell, foreign] = model.assetAdministrationShells;
      const theirs = foreign.submodels[0].keys[0].value;
      assert.equal((await http.get(`/submodels/${b64(theirs)}`)).status, 200);
      for (const base of [
        `/shells/${b64(shell.id)}/submodels/${b64(theirs)}`,
        `/shells/${b64(shell.id)}/aas/submodels/${b64(theirs)}/submodel`,
      ]) {
        for (const suffix of [
          "",
          "/$metadata",
          "/$value",
          "/$reference",
          "/$path",
          "/submodel-elements",
          "/submodel-elements/MaxRotationSpeed/$value",
        ]) {
          assertResult(await http.get(`${base}${suffix}`), 404);
        }
        assertResult(await http.request("PATCH", `${base}/$value`, { body: '{"MaxRotationSpeed": 1}' }), 404);
        assertResult(await http.request("DELETE", base), 404);
      }
      assert.equal((await http.get(`/submodels/${b64(theirs)}`)).status, 200, "nothing was deleted");
      assertResult(await http.get(`/shells/${b64("urn:no-shell")}/submodels/${b64(theirs)}`), 404);
      assertResult(await http.get(`/shells/${b64(shell.id)}/submodels/invalid-base64url=====`), 400);
    });
  });

  function superpathTests(mount: (typeof BELOW_SHELL)[number]): void {
    const fixture = (label: string) => createFixtureAt(http, `${mount}-${label}`, mount);

    test("GET the submodel: valid, ETag and 304, level, extent, content=path; traps are 400", async () => {
      const { submodel, path } = await fixture("get");
      const res = await other.get(path);
      assert.deepEqual(valid(json(res), "Submodel"), withoutBlobs(submodel));
      const etag = etagOf(res);
      assert.equal((await http.get(path, { "if-none-match": etag })).status, 304);
      assert.deepEqual(json(await http.get(`${path}?extent=withBlobValue`)), submodel);
      assert.equal(json(await http.get(`${path}?level=core`)).submodelElements[0].value, undefined);
      assert.deepEqual(
        json(await http.get(`${path}?content=path&level=core`)),
        submodel.submodelElements.map((e: any) => e.idShort),
      );
      for (const query of ["level=%23%23%23%23%23", "extent=%23%23%23%23%23", "content=value", "limit=1"])
        assertResult(await http.get(`${path}?${query}`), 400);
    });

    test("PUT the submodel: 204; 400 for another id; 412 for a stale If-Match", async () => {
      const { submodel, path } = await fixture("put");
      const etag = etagOf(await http.get(path));
      const replaced = { ...submodel, idShort: "BelowShell", submodelElements: submodel.submodelElements.slice(-3) };
      assert.equal(
        (await http.request("PUT", path, { body: JSON.stringify(replaced), headers: { "if-match": etag } })).status,
        204,
      );
      assert.deepEqual(json(await other.get(`/submodels/${b64(submodel.id)}`)), replaced);
      assertResult(
        await http.request("PUT", path, { body: JSON.stringify(replaced), headers: { "if-match": etag } }),
        412,
      );
      assertResult(await http.request("PUT", path, { body: JSON.stringify({ ...replaced, id: "urn:other" }) }), 400);
    });

    test("PATCH the submodel, its $metadata and its $value: 204, what changes and what does not", async () => {
      const { submodel, path } = await fixture("patch");
      assert.equal(
        (await http.request("PATCH", path, { body: '{"category": "PARAMETER", "description": null}' })).status,
        204,
      );
      const patched = json(await other.get(`${path}/$metadata`));
      assert.equal(patched.category, "PARAMETER");
      assert.equal(patched.description, undefined);
      assert.equal((await http.request("PATCH", `${path}/$metadata`, { body: '{"idShort": "Meta"}' })).status, 204);
      assert.equal(json(await http.get(`${path}/$metadata`)).idShort, "Meta");
      assertResult(await http.request("PATCH", `${path}/$metadata`, { body: '{"submodelElements": null}' }), 400);
      assert.equal(
        (await http.request("PATCH", `${path}/$value`, { body: '{"MaxRotationSpeed": 1200, "Tags": ["one", "test"]}' }))
          .status,
        204,
      );
      const value = json(await other.get(`${path}/$value`));
      assert.deepEqual([value.MaxRotationSpeed, value.Tags], [1200, ["one", "test"]]);
      assertResult(await http.request("PATCH", `${path}/$value`, { body: '{"Nope": 1}' }), 400);
      assertResult(await http.request("PATCH", `${path}?level=deep`, { body: "{}" }), 400);
      const etag = etagOf(await http.get(path));
      assert.equal(
        (
          await http.request("PATCH", `${path}/$value?level=core`, {
            body: '{"MaxRotationSpeed": 1}',
            headers: { "if-match": etag },
          })
        ).status,
        204,
      );
      assertResult(await http.request("PATCH", path, { body: "{}", headers: { "if-match": etag } }), 412);
      assert.equal(
        json(await http.get(`/submodels/${b64(submodel.id)}/submodel-elements/MaxRotationSpeed`)).value,
        "1",
      );
    });

    test("GET $metadata, $value, $reference, $path of the submodel", async () => {
      const { submodel, path } = await fixture("forms");
      const etag = etagOf(await http.get(path));
      const metadata = await http.get(`${path}/$metadata`);
      assert.deepEqual(valid(json(metadata), "Submodel"), (({ submodelElements: _e, ...rest }) => rest)(submodel));
      assert.equal(etagOf(metadata), etag);
      const value = json(await other.get(`${path}/$value?level=core&extent=withBlobValue`));
      assert.deepEqual([value.Dimensions, value.Firmware.value], [{}, "SGVsbG8gQUFTIQ=="]);
      assert.deepEqual(valid(json(await http.get(`${path}/$reference`)), "Reference"), {
        type: "ModelReference",
        keys: [{ type: "Submodel", value: submodel.id }],
      });
      assert.equal(
        (await http.get(`${path}/$reference?level=deep`)).status,
        200,
        "level is accepted on a submodel's $reference (spec §4.1.8)",
      );
      const paths = json(await http.get(`${path}/$path`));
      assert.ok(paths.includes("Dimensions.Nested.Depth") && paths.includes("Tags[1]"));
      for (const [suffix, query] of [
        ["$metadata", "extent=withBlobValue"],
        ["$value", "limit=1"],
        ["$reference", "extent=withBlobValue"],
        ["$path", "extent=withBlobValue"],
        ["$path", "level=%23%23%23%23%23"],
      ]) {
        assertResult(await http.get(`${path}/${suffix}?${query}`), 400);
      }
      assertResult(await http.request("PUT", `${path}/$value`, { body: "{}" }), 405);
    });

    test("DELETE the submodel below the shell: gone from the repository and from the shell's references", async () => {
      const { submodel, path, aasId } = await fixture("delete");
      const etag = etagOf(await http.get(path));
      await http.request("PATCH", `${path}/$value`, { body: '{"MaxRotationSpeed": 2}' });
      assertResult(await http.request("DELETE", path, { headers: { "if-match": etag } }), 412);
      assert.equal((await http.request("DELETE", path)).status, 204);
      assertResult(await other.get(`/submodels/${b64(submodel.id)}`), 404);
      const shell = json(await other.get(`/shells/${b64(aasId!)}`));
      assert.equal(shell.submodels, undefined, "the shell's only reference went with it");
      assertResult(await http.get(path), 404);
    });
  }
}
