/**
 * Black-box suite of the access rules over real HTTPS, embedded and distributed, for an anonymous
 * caller (no credentials): rules grant anonymous READ on 5 of 52 submodels. Lists hold only those
 * with exact paging across gateways; every other read and every write is 401 with a Bearer
 * challenge and the AAS Result body. (Bearer-token callers: the authentication suite.)
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ACCESS_CD_1, ACCESS_MANY, ACCESS_SHELL_A, ACCESS_SM_1, accessModel } from "@twinport/shared/test-support";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { assertResult, paged } from "./shell-suite-support.ts";

const READABLE = ACCESS_MANY.filter((id) => id.endsWith("7"));
const security = {
  rules: [{ subjects: [{ anonymous: true }], rights: ["READ"], objects: [{ submodels: "urn:access:many:*7" }] }],
};

function unauthenticated(res: HttpResponse): void {
  assertResult(res, 401, /Not allowed/);
  assert.equal(res.headers["www-authenticate"], 'Bearer realm="twinport"');
}

export function anonymousAccessSuite(mode: Mode): void {
  describe(`access rules for an anonymous caller over HTTP, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    let other: HttpClient;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "twinport-access-"));
      const model = join(dir, "access-model.json");
      writeFileSync(model, JSON.stringify(accessModel()));
      sut = await startSystem(mode, { models: [model], config: { security } });
      http = sut.clients[0]!;
      other = sut.clients[sut.clients.length - 1]!;
    });
    after(async () => {
      await sut?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("lists hold only the readable submodels, pages are full until the data ends, cursors continue on any gateway", async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      let client = http;
      do {
        const page = paged(
          await client.get(`/submodels?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
        );
        seen.push(...page.result.map((sm) => sm.id));
        sizes.push(page.result.length);
        cursor = page.cursor;
        client = client === http ? other : http;
      } while (cursor !== undefined);
      assert.deepEqual(seen, READABLE);
      assert.deepEqual(sizes, [2, 2, 1]);
      // The last readable submodel ends the list: no cursor to an empty page of hidden ones.
      const whole = paged(await other.get("/submodels?limit=5"));
      assert.deepEqual([whole.result.map((sm) => sm.id), whole.cursor], [READABLE, undefined]);
      assert.deepEqual(paged(await http.get("/submodels/$path?limit=10")).result, ["V", "V", "V", "V", "V"]);
      assert.deepEqual(paged(await http.get("/shells")).result, []);
      assert.deepEqual(paged(await http.get("/concept-descriptions")).result, []);
      assert.deepEqual(paged(await http.get("/lookup/shells")).result, []);
      assert.deepEqual(paged(await http.get("/packages")).result, []);
      const environment = await http.get("/serialization", { accept: "application/json" });
      assert.equal(environment.status, 200, environment.text);
      const serialized = environment.json();
      assert.deepEqual(
        (serialized.submodels ?? []).map((sm: { id: string }) => sm.id),
        READABLE,
      );
      assert.equal((serialized.assetAdministrationShells ?? []).length, 0);
    });

    test("a readable submodel answers in every form; its elements too", async () => {
      const id = b64(READABLE[0]!);
      assert.equal((await http.get(`/submodels/${id}`)).json().id, READABLE[0]);
      assert.deepEqual((await other.get(`/submodels/${id}/$value`)).json(), { V: 7 });
      assert.equal((await http.get(`/submodels/${id}/submodel-elements/V`)).json().value, "7");
    });

    test("every other read is 401 with a Bearer challenge, whether the thing exists or not", async () => {
      unauthenticated(await http.get(`/submodels/${b64(ACCESS_SM_1)}`));
      unauthenticated(await other.get(`/submodels/${b64(ACCESS_SM_1)}/submodel-elements/P/$value`));
      unauthenticated(await http.get(`/submodels/${b64("urn:nothing")}`));
      unauthenticated(await http.get(`/shells/${b64(ACCESS_SHELL_A)}`));
      unauthenticated(await http.get(`/concept-descriptions/${b64(ACCESS_CD_1)}`));
      unauthenticated(await http.get(`/serialization?submodelIds=${b64(ACCESS_SM_1)}`, { accept: "application/json" }));
      unauthenticated(await http.get(`/packages/${b64("p")}`));
    });

    test("writes are 401, also on readable submodels, and change nothing", async () => {
      const readable = b64(READABLE[0]!);
      unauthenticated(await http.request("PATCH", `/submodels/${readable}/submodel-elements/V/$value`, { body: "99" }));
      unauthenticated(
        await http.request("POST", "/submodels", { body: JSON.stringify({ modelType: "Submodel", id: "urn:x" }) }),
      );
      unauthenticated(await http.request("DELETE", `/submodels/${b64(ACCESS_SM_1)}`));
      unauthenticated(
        await http.request("PUT", `/shells/${b64(ACCESS_SHELL_A)}/asset-information`, {
          body: JSON.stringify({ assetKind: "Instance", globalAssetId: "urn:y" }),
        }),
      );
      unauthenticated(await http.request("DELETE", "/reset"));
      unauthenticated(
        await http.request("POST", `/submodels/${b64(ACCESS_SM_1)}/submodel-elements/Op/invoke`, {
          body: JSON.stringify({ inputArguments: [] }),
        }),
      );
      assert.deepEqual((await other.get(`/submodels/${readable}/$value`)).json(), { V: 7 });
    });
  });
}
