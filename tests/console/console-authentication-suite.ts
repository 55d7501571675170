/**
 * The web console with access control (ADR 0025) in a real browser: the page itself loads without
 * credentials (anonymous callers may read the shells here), the API's 401 for a submodel makes the console ask for a bearer token (from a real OpenID provider),
 * which then goes with every request (also after a reload: sessionStorage); a 403 shows as "not
 * allowed"; a token with the right makes the edit, which the API serves through another gateway.
 */
import assert from "node:assert/strict";
import { after, before, describe, type TestContext, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, withPage } from "../test-support/browser.ts";
import { b64 } from "../test-support/http-client.ts";
import {
  type OpenIdProvider,
  signingKeys,
  startOpenIdProvider,
  TWINPORT_AUDIENCE,
} from "../test-support/openid-provider.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { openSubmodel, rowOf, seeText } from "./console-page.ts";

const MAX_ROTATION_SPEED = `/submodels/${b64("https://example.org/submodels/technical-data-1")}/submodel-elements/MaxRotationSpeed`;

export function consoleAuthenticationSuite(mode: Mode): void {
  describe(`web console with bearer tokens (${mode})`, { timeout: 240_000 }, () => {
    let provider: OpenIdProvider;
    let system: SystemUnderTest;
    let browser: Browser;
    before(async () => {
      provider = await startOpenIdProvider({
        clients: [
          { id: "reader", alg: "RS256", claims: { roles: ["aas-reader"] } },
          { id: "writer", alg: "ES256", claims: { roles: ["aas-writer"] } },
        ],
        keys: await signingKeys("console"),
      });
      // Side by side, each kept as soon as it is there: one failing must not leave the other running.
      const browserStarted = launchBrowser().then((b) => (browser = b));
      const systemStarted = startSystem(mode, {
        config: {
          security: {
            authentication: { bearer: { issuer: provider.issuer, audience: TWINPORT_AUDIENCE } },
            rules: [
              // Anonymous callers see the shells, not their submodels: opening one answers 401.
              { subjects: [{ anonymous: true }], rights: ["READ"], objects: [{ shells: "*" }] },
              { subjects: [{ role: "aas-reader" }], rights: ["READ"], objects: [{ all: true }] },
              { subjects: [{ role: "aas-writer" }], rights: ["READ", "UPDATE"], objects: [{ all: true }] },
            ],
          },
        },
      }).then((s) => (system = s));
      const results = await Promise.allSettled([browserStarted, systemStarted]);
      for (const result of results) if (result.status === "rejected") throw result.reason;
    });
    after(async () => {
      await browser?.close();
      await system?.stop();
      await provider?.stop();
    });
    const page = <T>(t: TestContext, fn: (page: Page) => Promise<T>) => withPage(t, browser, fn);
    const origin = () => new URL(system.clients[0]!.baseUrl).origin;

    test("401 asks for a token; with it the tree shows, 403 says not allowed, a writer's token edits", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin()}/console/`);
        // The shells, then a submodel's 401: the console asks.
        await seeText(p.getByRole("list", { name: "Shells" }), /TestAas1/);
        const form = p.getByRole("form", { name: "Bearer token" });
        await seeText(form, /The server wants a bearer token/);
        assert.equal(await p.getByRole("list", { name: "Submodels of TestAas1" }).getByRole("button").count(), 0);

        await form.getByLabel("Access token").fill(await provider.token("reader"));
        await form.getByRole("button", { name: "Use token" }).click();
        await seeText(p.getByRole("list", { name: "Shells" }), /TestAas1/);
        await openSubmodel(p, "TestAas1", "TechnicalData");
        const row = rowOf(p, "MaxRotationSpeed");
        await row.getByRole("button", { name: "Edit MaxRotationSpeed" }).click();
        await row.getByRole("textbox").fill("1234");
        await row.getByRole("button", { name: "Save" }).click();
        await seeText(row.getByRole("alert"), /^Not allowed: /);

        // The token is kept for this tab: a reload needs no new one.
        await p.reload();
        await seeText(p.getByRole("list", { name: "Shells" }), /TestAas1/);
        await p.getByRole("button", { name: "Forget token" }).click();
        await seeText(p.getByRole("form", { name: "Bearer token" }), /The server wants a bearer token/);
        assert.equal(await p.evaluate(() => sessionStorage.length), 0);

        const writer = await provider.token("writer");
        await p.getByLabel("Access token").fill(writer);
        await p.getByRole("button", { name: "Use token" }).click();
        await openSubmodel(p, "TestAas1", "TechnicalData");
        await rowOf(p, "MaxRotationSpeed").getByRole("button", { name: "Edit MaxRotationSpeed" }).click();
        await rowOf(p, "MaxRotationSpeed").getByRole("textbox").fill("2345");
        await rowOf(p, "MaxRotationSpeed").getByRole("button", { name: "Save" }).click();
        await seeText(rowOf(p, "MaxRotationSpeed"), /Property\s+2345\s/);
        const other = system.clients.at(-1)!;
        const served = await other.get(MAX_ROTATION_SPEED, { authorization: `Bearer ${writer}` });
        assert.equal(served.status, 200, served.text);
        assert.equal(served.json().value, "2345");
      });
    });
  });
}
