/**
 * Black-box suite of the Description API (AAS API §a.7, §b) and of per-endpoint `profiles`
 * (spec §2.2): ONE process (embedded; distributed: one http-gateway) serving three HTTP endpoints
 * on their own ports with different profiles. The model it starts with holds the same shell,
 * submodel and concept description twice (spec §7.3). In distributed mode a record corrupted in
 * Redis causes a real 500, with a stack only where `includeErrorDetails` is on.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createRedisRepository } from "@twinport/model-store";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { EXAMPLE_MODEL, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { assertResult, paged, shellBody } from "./shell-suite-support.ts";

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const API = "https://admin-shell.io/aas/API/3/0";
/** The 18 profile identifiers of the v3.0.1 ServiceDescription enum. */
const V301_ENUM = [
  "AssetAdministrationShellServiceSpecification/SSP-001",
  "AssetAdministrationShellServiceSpecification/SSP-002",
  "SubmodelServiceSpecification/SSP-001",
  "SubmodelServiceSpecification/SSP-002",
  "SubmodelServiceSpecification/SSP-003",
  "AasxFileServerServiceSpecification/SSP-001",
  "AssetAdministrationShellRegistryServiceSpecification/SSP-001",
  "AssetAdministrationShellRegistryServiceSpecification/SSP-002",
  "SubmodelRegistryServiceSpecification/SSP-001",
  "SubmodelRegistryServiceSpecification/SSP-002",
  "DiscoveryServiceSpecification/SSP-001",
  "AssetAdministrationShellRepositoryServiceSpecification/SSP-001",
  "AssetAdministrationShellRepositoryServiceSpecification/SSP-002",
  "SubmodelRepositoryServiceSpecification/SSP-001",
  "SubmodelRepositoryServiceSpecification/SSP-002",
  "SubmodelRepositoryServiceSpecification/SSP-003",
  "SubmodelRepositoryServiceSpecification/SSP-004",
  "ConceptDescriptionServiceSpecification/SSP-001",
].map((name) => `${API}/${name}`);

const ENDPOINTS = [
  {},
  { profiles: ["AAS_REPOSITORY_READ", "DISCOVERY_FULL"] },
  { profiles: ["AAS_FULL", "CONCEPT_DESCRIPTION_FULL"], includeErrorDetails: true },
  // Only proprietary profiles: no service specification, so nothing /description could list.
  { profiles: ["FAAAST_RESET"] },
];

/** The example model with a shell, a submodel and a concept description repeated verbatim. */
function modelWithDuplicates(dir: string): string {
  const path = join(dir, "model-with-duplicates.json");
  const twice = {
    assetAdministrationShells: [...model.assetAdministrationShells, model.assetAdministrationShells[0]],
    submodels: [model.submodels[1], ...model.submodels],
    conceptDescriptions: [...model.conceptDescriptions, structuredClone(model.conceptDescriptions[1])],
  };
  writeFileSync(path, JSON.stringify(twice));
  return path;
}

async function description(client: HttpClient): Promise<string[]> {
  const res = await client.get("/description");
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ["profiles"]);
  for (const profile of body.profiles) assert.ok(V301_ENUM.includes(profile), `${profile} is not in the v3.0.1 enum`);
  assert.equal(new Set(body.profiles).size, body.profiles.length, "no duplicates");
  return body.profiles;
}

export function descriptionSuite(mode: Mode): void {
  describe(`Description API and endpoint profiles, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let all: HttpClient;
    let readOnly: HttpClient;
    let aasAndCds: HttpClient;
    let resetOnly: HttpClient;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "twinport-description-"));
      sut = await startSystem(mode, { model: modelWithDuplicates(dir), gateways: 1, endpoints: ENDPOINTS });
      [all, readOnly, aasAndCds, resetOnly] = sut.clients;
    });
    after(async () => {
      await sut?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("a model holding the same identifiables twice loads, each once (spec §7.3)", async () => {
      assert.deepEqual(paged(await all.get("/shells")).result, model.assetAdministrationShells);
      assert.deepEqual(paged(await all.get("/concept-descriptions")).result, model.conceptDescriptions);
      assert.deepEqual(
        paged(await all.get("/submodels"))
          .result.map((sm) => sm.id)
          .sort(),
        model.submodels.map((sm: any) => sm.id).sort(),
      );
    });

    test("the endpoint without profiles describes every implemented profile, full ones with their read ones", async () => {
      const profiles = await description(all);
      for (const name of [
        "AssetAdministrationShellServiceSpecification/SSP-001",
        "AssetAdministrationShellServiceSpecification/SSP-002",
        "SubmodelServiceSpecification/SSP-001",
        "SubmodelServiceSpecification/SSP-002",
        "SubmodelServiceSpecification/SSP-003",
        "DiscoveryServiceSpecification/SSP-001",
        "AssetAdministrationShellRepositoryServiceSpecification/SSP-001",
        "AssetAdministrationShellRepositoryServiceSpecification/SSP-002",
        "SubmodelRepositoryServiceSpecification/SSP-001",
        "SubmodelRepositoryServiceSpecification/SSP-002",
        "ConceptDescriptionServiceSpecification/SSP-001",
      ]) {
        assert.ok(profiles.includes(`${API}/${name}`), `missing ${name}`);
      }
      // Claimed exactly when served: the AASX file server only once /packages exists.
      const packagesServed = (await all.get("/packages")).status !== 400;
      assert.equal(profiles.includes(`${API}/AasxFileServerServiceSpecification/SSP-001`), packagesServed);
      for (const absent of [
        "Registry",
        "SubmodelRepositoryServiceSpecification/SSP-003",
        "SubmodelRepositoryServiceSpecification/SSP-004",
      ]) {
        assert.ok(!profiles.some((profile) => profile.includes(absent)), `${absent} is not served`);
      }
      assertResult(await all.request("POST", "/description", { body: "{}" }), 405);
      assertResult(await all.get("/description?limit=1"), 400);
    });

    test("AAS_REPOSITORY_READ + DISCOVERY_FULL: described exactly; reads served, writes 405, other APIs 404", async () => {
      assert.deepEqual(await description(readOnly), [
        `${API}/DiscoveryServiceSpecification/SSP-001`,
        `${API}/AssetAdministrationShellRepositoryServiceSpecification/SSP-002`,
      ]);
      const shell = b64(model.assetAdministrationShells[0].id);
      assert.equal(paged(await readOnly.get("/shells")).result.length, 3);
      assert.equal((await readOnly.get(`/shells/${shell}`)).status, 200);
      assert.equal((await readOnly.get(`/shells/${shell}/asset-information`)).status, 200);
      assert.equal(paged(await readOnly.get(`/shells/${shell}/submodel-refs`)).result.length, 2);
      assert.equal(paged(await readOnly.get("/shells/$reference")).result.length, 3);
      const post = await readOnly.request("POST", "/shells", { body: JSON.stringify(shellBody("urn:refused")) });
      assertResult(post, 405);
      assert.equal(post.headers.allow, "GET, HEAD");
      const put = await readOnly.request("PUT", `/shells/${shell}`, {
        body: JSON.stringify(model.assetAdministrationShells[0]),
      });
      assertResult(put, 405);
      assert.equal(put.headers.allow, "GET, HEAD");
      assertResult(await readOnly.request("PUT", `/shells/${shell}/asset-information`, { body: "{}" }), 405);
      assertResult(
        await readOnly.request("DELETE", `/shells/${shell}/submodel-refs/${b64(model.submodels[0].id)}`),
        404,
        /not served/,
      );
      assertResult(await readOnly.get("/concept-descriptions"), 404, /not served/);
      assertResult(await readOnly.get("/submodels"), 404, /not served/);
      // Discovery is fully served here, writes included.
      assert.equal(paged(await readOnly.get("/lookup/shells")).result.length, 3);
      const links = await readOnly.request("POST", `/lookup/shells/${shell}`, {
        body: JSON.stringify([{ name: "batch", value: `B-${mode}` }]),
      });
      assert.equal(links.status, 201, links.text);
      assert.deepEqual(
        paged(
          await all.get(`/shells?assetIds=${b64(JSON.stringify({ name: "batch", value: `B-${mode}` }))}`),
        ).result.map((s) => s.id),
        [model.assetAdministrationShells[0].id],
      );
    });

    test("AAS_FULL + CONCEPT_DESCRIPTION_FULL: described exactly; the repository-only paths 404, DELETE of a shell 405", async () => {
      assert.deepEqual(await description(aasAndCds), [
        `${API}/AssetAdministrationShellServiceSpecification/SSP-001`,
        `${API}/AssetAdministrationShellServiceSpecification/SSP-002`,
        `${API}/ConceptDescriptionServiceSpecification/SSP-001`,
      ]);
      const shell = b64(model.assetAdministrationShells[1].id);
      assert.equal((await aasAndCds.get(`/shells/${shell}`)).status, 200);
      assert.equal((await aasAndCds.get(`/shells/${shell}/$reference`)).status, 200);
      const info = (await aasAndCds.get(`/shells/${shell}/asset-information`)).json();
      assert.equal(
        (await aasAndCds.request("PUT", `/shells/${shell}/asset-information`, { body: JSON.stringify(info) })).status,
        204,
      );
      assertResult(await aasAndCds.get("/shells"), 404, /not served/);
      assertResult(await aasAndCds.get("/shells/$reference"), 404, /not served/);
      const del = await aasAndCds.request("DELETE", `/shells/${shell}`);
      assertResult(del, 405);
      assert.equal(del.headers.allow, "GET, PUT, HEAD");
      assert.equal(paged(await aasAndCds.get("/concept-descriptions")).result.length, 2);
      assertResult(await aasAndCds.get("/lookup/shells"), 404, /not served/);
      assertResult(await aasAndCds.get("/submodels"), 404, /not served/);
      // Where includeErrorDetails is on, a client error carries the stack of where it was raised (spec §7.1).
      const missing = await aasAndCds.get(`/shells/${b64("urn:nothing")}`);
      assertResult(missing, 404);
      assert.deepEqual(
        missing.json().messages.map((message: { messageType: string }) => message.messageType),
        ["Error", "Exception"],
      );
    });

    test("FAAAST_RESET only: no service specification, so no Description API (404, never an empty profile list)", async () => {
      // ServiceDescription.profiles has minItems 1 (AAS API §b): {"profiles": []} is no valid answer.
      const res = await resetOnly.get("/description");
      assertResult(res, 404);
      assertResult(await resetOnly.get("/shells"), 404);
      // The endpoint's OpenAPI document agrees: it describes no /description either.
      const document = (await resetOnly.get("/openapi.json")).json();
      assert.deepEqual(Object.keys(document.paths), ["/reset"]);
    });

    // A real internal error needs a corrupted store, which only Redis lets a test reach from outside:
    // this case exists in distributed mode only (a gateway unit test covers the mapping in-process).
    if (mode === "distributed")
      test("a server failure: 500 with a Result body; the stack only where includeErrorDetails is true", async () => {
        const repository = await createRedisRepository({ url: sut.redis!.url });
        try {
          const id = "urn:test:corrupt";
          const result = await repository.commit({
            preconditions: [{ on: "id-free", id }],
            ops: [{ op: "put-identifiable", kind: "shell", id, json: "{corrupt" }],
            event: { kind: "shell.created", id, origin: "test", time: new Date().toISOString() },
          });
          assert.ok(result.ok);
          const plain = await all.get(`/shells/${b64(id)}`);
          assertResult(plain, 500);
          assert.deepEqual(
            plain.json().messages.map((m: any) => m.messageType),
            ["Error"],
          );
          assert.doesNotMatch(plain.text, /SyntaxError|at .*\.ts/, "no internals without includeErrorDetails");
          const detailed = await aasAndCds.get(`/shells/${b64(id)}`);
          assertResult(detailed, 500);
          const messages = detailed.json().messages;
          assert.deepEqual(
            messages.map((m: any) => m.messageType),
            ["Error", "Exception"],
          );
          assert.match(messages[1].text, /SyntaxError[\s\S]*\n\s+at /, "the stack trace");
        } finally {
          await repository.close();
        }
      });
  });
}
