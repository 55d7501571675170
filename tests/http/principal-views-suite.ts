/**
 * Answers that depend on who asks (docs/adr/0058), over real HTTPS from several principals,
 * embedded and distributed: a submodel partly readable by one principal and whole by another
 * answers each with its own ETag and `Vary: Authorization`, so that no If-None-Match (of a client
 * that switched credentials, or of a shared cache) validates another principal's representation;
 * a partial reader's tag is still good for If-Match on what it may write.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { b64, type HttpResponse } from "../test-support/http-client.ts";
import {
  type OpenIdProvider,
  signingKeys,
  startOpenIdProvider,
  TWINPORT_AUDIENCE,
} from "../test-support/openid-provider.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";

const TECHNICAL_DATA = "https://example.org/submodels/technical-data-1";
const SUBMODEL = `/submodels/${b64(TECHNICAL_DATA)}`;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function etagOf(response: HttpResponse): string {
  assert.equal(response.status, 200, response.text);
  const etag = response.headers.etag;
  assert.ok(etag, "an ETag");
  return etag;
}

function variesByAuthorization(response: HttpResponse): void {
  const vary = String(response.headers.vary ?? "");
  assert.ok(/(^|,\s*)Authorization(\s*,|$)/i.test(vary), `Vary names Authorization: '${vary}'`);
}

export function principalViewsSuite(mode: Mode): void {
  describe(`answers per principal: ETag and Vary (${mode})`, { timeout: 240_000 }, () => {
    let provider: OpenIdProvider;
    let system: SystemUnderTest;

    before(async () => {
      provider = await startOpenIdProvider({
        clients: [
          { id: "operator", alg: "RS256", claims: { roles: ["aas-reader"] } },
          { id: "fitter", alg: "ES256", claims: { roles: ["fitter"] } },
        ],
        keys: await signingKeys("views"),
      });
      system = await startSystem(mode, {
        // A second endpoint with CORS, whose own Vary (Origin) the principal's must join.
        endpoints: [{}, { corsEnabled: true, corsAllowedOrigin: "https://console.example" }],
        config: {
          core: { managementPort: -1 },
          security: {
            authentication: { bearer: { issuer: provider.issuer, audience: TWINPORT_AUDIENCE } },
            rules: [
              { subjects: [{ role: "aas-reader" }], rights: ["READ"], objects: [{ submodels: TECHNICAL_DATA }] },
              {
                subjects: [{ anonymous: true }],
                rights: ["READ", "UPDATE"],
                objects: [{ submodels: TECHNICAL_DATA, idShortPath: "Dimensions.Width" }],
              },
              {
                subjects: [{ role: "fitter" }],
                rights: ["READ"],
                objects: [{ submodels: TECHNICAL_DATA, idShortPath: "Dimensions.Height" }],
              },
            ],
          },
        },
      });
    });

    after(async () => {
      await system?.stop();
      await provider?.stop();
    });

    test("each principal's representation has its own ETag, and every answer varies by Authorization", async () => {
      const http = system.clients[0]!;
      const operator = bearer(await provider.token("operator"));
      const fitter = bearer(await provider.token("fitter"));
      const whole = await http.get(SUBMODEL, operator);
      const anonymous = await http.get(SUBMODEL);
      const fitted = await http.get(SUBMODEL, fitter);
      const tags = [etagOf(whole), etagOf(anonymous), etagOf(fitted)];
      // Three representations of one revision: three bodies, three tags.
      assert.equal(new Set([whole.text, anonymous.text, fitted.text]).size, 3);
      assert.equal(new Set(tags).size, 3, `distinct ETags: ${tags.join(" ")}`);
      assert.deepEqual(
        anonymous.json().submodelElements.map((e: { idShort: string }) => e.idShort),
        ["Dimensions"],
      );
      for (const response of [whole, anonymous, fitted]) variesByAuthorization(response);
      // Lists and refusals depend on the principal too.
      variesByAuthorization(await http.get("/submodels"));
      variesByAuthorization(await http.get(`/submodels/${b64("https://example.org/submodels/identification-1")}`));
      // The same view asked again: the same tag (it names the view, not the request).
      assert.equal(etagOf(await system.clients[system.clients.length - 1]!.get(SUBMODEL)), tags[1]);
    });

    test("with CORS, Vary names Authorization beside Origin", async () => {
      const cors = system.clients[1]!;
      const answer = await cors.get(SUBMODEL, { origin: "https://console.example" });
      etagOf(answer);
      variesByAuthorization(answer);
      assert.match(String(answer.headers.vary), /Origin/);
      assert.equal(answer.headers["access-control-allow-origin"], "https://console.example");
    });

    test("If-None-Match validates a principal's own representation only", async () => {
      const http = system.clients[0]!;
      const operator = bearer(await provider.token("operator"));
      const fitter = bearer(await provider.token("fitter"));
      const wholeTag = etagOf(await http.get(SUBMODEL, operator));
      const anonymous = await http.get(SUBMODEL);
      const anonymousTag = etagOf(anonymous);
      const fitterTag = etagOf(await http.get(SUBMODEL, fitter));
      // A client that read as the operator, now anonymous: its copy is not the anonymous one.
      const switched = await http.get(SUBMODEL, { "if-none-match": wholeTag });
      assert.equal(switched.status, 200, switched.text);
      assert.equal(switched.text, anonymous.text);
      assert.equal(switched.headers.etag, anonymousTag);
      // Nor the other way round, nor between two partial views.
      assert.equal((await http.get(SUBMODEL, { ...operator, "if-none-match": anonymousTag })).status, 200);
      assert.equal((await http.get(SUBMODEL, { ...fitter, "if-none-match": anonymousTag })).status, 200);
      assert.equal((await http.get(SUBMODEL, { "if-none-match": fitterTag })).status, 200);
      // Each principal's own tag still validates its own copy.
      const own = await http.get(SUBMODEL, { "if-none-match": anonymousTag });
      assert.equal(own.status, 304, own.text);
      assert.equal(own.headers.etag, anonymousTag);
      assert.equal((await http.get(SUBMODEL, { ...operator, "if-none-match": wholeTag })).status, 304);
    });

    test("If-Match on a GET matches a principal's own representation only (another view's tag is a 412)", async () => {
      const http = system.clients[0]!;
      const operator = bearer(await provider.token("operator"));
      const fitter = bearer(await provider.token("fitter"));
      for (const path of [SUBMODEL, `${SUBMODEL}/submodel-elements/Dimensions/$value`]) {
        const wholeTag = etagOf(await http.get(path, operator));
        const anonymous = await http.get(path);
        const anonymousTag = etagOf(anonymous);
        const fitterTag = etagOf(await http.get(path, fitter));
        const own = await http.get(path, { "if-match": anonymousTag });
        assert.equal(own.status, 200, own.text);
        assert.equal(own.text, anonymous.text);
        assert.equal((await http.get(path, { ...operator, "if-match": wholeTag })).status, 200, path);
        // The same revision seen through another view is another representation.
        assert.equal((await http.get(path, { "if-match": wholeTag })).status, 412, path);
        assert.equal((await http.get(path, { "if-match": fitterTag })).status, 412, path);
        assert.equal((await http.get(path, { ...operator, "if-match": anonymousTag })).status, 412, path);
        assert.equal((await http.get(path, { ...fitter, "if-match": `${wholeTag}, ${fitterTag}` })).status, 200, path);
      }
    });

    test("$value of a partly readable collection (the hot route's path) carries the view's tag and Vary", async () => {
      const http = system.clients[0]!;
      const operator = bearer(await provider.token("operator"));
      const path = `${SUBMODEL}/submodel-elements/Dimensions/$value`;
      const anonymous = await http.get(path);
      const whole = await http.get(path, operator);
      assert.deepEqual(Object.keys(anonymous.json().Dimensions), ["Width"]);
      assert.notEqual(etagOf(anonymous), etagOf(whole));
      variesByAuthorization(anonymous);
      variesByAuthorization(whole);
      assert.equal((await http.get(path, { "if-none-match": etagOf(whole) })).status, 200);
      assert.equal((await http.get(path, { "if-none-match": etagOf(anonymous) })).status, 304);
    });

    test("If-Match: a partial reader's tag names the revision it saw, good for a write until that changes", async () => {
      const http = system.clients[0]!;
      const tag = etagOf(await http.get(SUBMODEL));
      const width = `${SUBMODEL}/submodel-elements/Dimensions.Width/$value`;
      const written = await http.request("PATCH", width, { body: "21", headers: { "if-match": tag } });
      assert.equal(written.status, 204, written.text);
      // The submodel has a new revision: the old tag no longer matches.
      const stale = await http.request("PATCH", width, { body: "22", headers: { "if-match": tag } });
      assert.equal(stale.status, 412, stale.text);
      const fresh = etagOf(await http.get(SUBMODEL));
      assert.notEqual(fresh, tag);
      assert.equal((await http.request("PATCH", width, { body: "23", headers: { "if-match": fresh } })).status, 204);
      assert.deepEqual((await http.get(`${width.slice(0, -"/$value".length)}/$value`)).json(), { Width: 23 });
    });
  });
}
