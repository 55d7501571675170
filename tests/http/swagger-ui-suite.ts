/**
 * Black-box suite of the API's description (docs/http-api.md "OpenAPI and Swagger UI"): over real
 * HTTPS with the endpoint's self-signed certificate, the OpenAPI document is served, and Swagger UI,
 * opened in headless Chromium, runs GET /shells through "Try it out" → "Execute" and shows the
 * example model's shells. Distributed: on every http-gateway, each answering through the model-store.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser, withPage } from "../test-support/browser.ts";
import { EXAMPLE_MODEL, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";

const shells: { id: string }[] = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8")).assetAdministrationShells;

export function swaggerUiSuite(mode: Mode): void {
  describe(`OpenAPI document and Swagger UI (${mode})`, () => {
    let system: SystemUnderTest;
    let browser: Browser;
    before(async () => {
      system = await startSystem(mode);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await system?.stop();
    });

    test("every endpoint serves the same OpenAPI document, describing GET /shells", async () => {
      const documents: string[] = [];
      for (const client of system.clients) {
        const answer = await client.get("/openapi.json");
        assert.equal(answer.status, 200);
        assert.equal(answer.headers["content-type"], "application/json");
        const document = answer.json();
        assert.equal(document.paths["/shells"].get.operationId, "GetAllAssetAdministrationShells");
        assert.deepEqual(document.servers, [{ url: "/api/v3.0", description: "This endpoint" }]);
        documents.push(answer.text);
      }
      assert.equal(new Set(documents).size, 1, "gateways with one configuration describe one API");
    });

    test("Swagger UI may not be framed by another site (it sends writes with a stored token)", async () => {
      for (const client of system.clients) {
        for (const path of ["/swagger-ui/", "/swagger-ui/swagger-initializer.js"]) {
          const answer = await client.get(path);
          assert.equal(answer.status, 200, path);
          assert.equal(answer.headers["content-security-policy"], "frame-ancestors 'none'", path);
          assert.equal(answer.headers["x-frame-options"], "DENY", path);
        }
      }
    });

    test('Swagger UI: "Try it out" on GET /shells shows the shells of the model', async (t) => {
      for (const client of system.clients) {
        await withPage(t, browser, async (page) => {
          await page.goto(`${client.baseUrl}/swagger-ui/`);
          const operation = page.locator(
            "#operations-Asset_Administration_Shell_Repository_API-GetAllAssetAdministrationShells",
          );
          await operation.locator(".opblock-summary").click();
          await operation.getByRole("button", { name: "Try it out" }).click();
          await operation.getByRole("button", { name: "Execute" }).click();
          const body = operation.locator(".live-responses-table .response-col_description pre.microlight").first();
          await body.waitFor({ timeout: 15_000 });
          const text = (await body.textContent()) ?? "";
          for (const shell of shells)
            assert.ok(text.includes(shell.id), `the response shows ${shell.id}: ${text.slice(0, 500)}`);
          const status = await operation
            .locator(".live-responses-table .response .response-col_status")
            .first()
            .textContent();
          assert.equal(status?.trim(), "200");
        });
      }
    });
  });
}
