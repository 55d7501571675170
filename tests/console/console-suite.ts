/**
 * The web console in a real browser (headless Chromium, playwright-core), against a running system
 * in embedded or distributed mode, checking what a person sees: the tree of shells, submodels and
 * elements with values and units, concept descriptions, a value edit that the API then serves, a
 * value written over OPC UA appearing without reload, an AASX upload (its shell, thumbnail and
 * attachment), an AASX download, and an operation started from the console. In distributed mode
 * the page is loaded from one gateway and the API is checked through the other.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, type TestContext, test } from "node:test";
import { DEFAULT_AASX_LIMITS, readAasx, writeAasx } from "@twinport/shared";
import { DataType } from "node-opcua";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, withPage } from "../test-support/browser.ts";
import { b64 } from "../test-support/http-client.ts";
import type { Mode } from "../test-support/system.ts";
import { openSubmodel, rowOf, seeText } from "./console-page.ts";
import { type ConsoleSystem, startConsoleSystem } from "./console-system.ts";

const TECHNICAL_DATA_1 = "https://example.org/submodels/technical-data-1";
const TECHNICAL_DATA_2 = "https://example.org/submodels/technical-data-2";
const TECHNICAL_DATA_3 = "https://example.org/submodels/technical-data-3";
const element = (submodel: string, path: string) => `/submodels/${b64(submodel)}/submodel-elements/${path}`;

// A 1×1 PNG, so the browser really decodes the thumbnail.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const MANUAL = Buffer.from("Pump manual, uploaded through the console\n");

/** A package with one shell and one submodel that the example model does not have. */
function uploadPackage(): Buffer {
  const submodel = {
    modelType: "Submodel",
    id: "https://example.org/submodels/console-upload",
    idShort: "UploadedData",
    submodelElements: [
      { modelType: "Property", idShort: "Pressure", valueType: "xs:double", value: "2.5" },
      { modelType: "File", idShort: "Manual", contentType: "text/plain", value: "/aasx/files/pump-manual.txt" },
    ],
  };
  const shell = {
    modelType: "AssetAdministrationShell",
    id: "https://example.org/aas/console-upload",
    idShort: "UploadedPump",
    assetInformation: {
      assetKind: "Instance",
      globalAssetId: "https://example.org/assets/uploaded-pump",
      defaultThumbnail: { path: "/aasx/pump.png", contentType: "image/png" },
    },
    submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: submodel.id }] }],
  };
  return Buffer.from(
    writeAasx({
      environment: { assetAdministrationShells: [shell], submodels: [submodel], conceptDescriptions: [] },
      files: [{ path: "/aasx/files/pump-manual.txt", contentType: "text/plain", bytes: MANUAL }],
      thumbnail: { path: "/aasx/pump.png", contentType: "image/png", bytes: PNG },
    }),
  );
}

export function consoleSuite(mode: Mode): void {
  describe(`web console in a browser (${mode})`, { timeout: 300_000 }, () => {
    let system: ConsoleSystem;
    let browser: Browser;
    // The page comes from the first gateway; the API is checked through the last one.
    let origin: string;
    let other: ConsoleSystem["clients"][number];
    before(async () => {
      // Side by side, each kept as soon as it is there: one failing must not leave the other running.
      const browserStarted = launchBrowser().then((b) => (browser = b));
      const systemStarted = startConsoleSystem(mode).then((s) => (system = s));
      const results = await Promise.allSettled([browserStarted, systemStarted]);
      for (const result of results) if (result.status === "rejected") throw result.reason;
      origin = system.origins[0]!;
      other = system.clients.at(-1)!;
    });
    after(async () => {
      await browser?.close();
      await system?.stop();
    });
    const page = <T>(t: TestContext, fn: (page: Page) => Promise<T>) => withPage(t, browser, fn);

    test("/ leads to the console, which shows shells → submodels → elements with values and units", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin}/`);
        assert.equal(new URL(p.url()).pathname, "/console/");
        const shells = p.getByRole("list", { name: "Shells" });
        await seeText(shells, /TestAas1[\s\S]*TestAas2[\s\S]*TestAas3/);
        await seeText(p.getByRole("list", { name: "Submodels of TestAas1" }), /TechnicalData[\s\S]*Identification/);
        await openSubmodel(p, "TestAas1", "TechnicalData");
        await seeText(rowOf(p, "MaxRotationSpeed"), /^MaxRotationSpeed\s+Property\s+5000\s+1\/min/);
        await seeText(rowOf(p, "Dimensions"), /^Dimensions\s+SubmodelElementCollection\s+3 element\(s\)/);
        await seeText(rowOf(p, "Dimensions.Nested.Depth"), /^Depth\s+Property\s+0\.3/);
        await seeText(rowOf(p, "Tags[0]"), /^\[0\]\s+Property\s+pump/);
        await seeText(rowOf(p, "Manual"), /^Manual\s+File\s+\/aasx\/files\/manual\.txt \(text\/plain\)/);
        await seeText(rowOf(p, "TemperatureRange"), /Range/);
        await p.getByRole("button", { name: "Concept descriptions" }).click();
        const cds = p.getByRole("region", { name: "Concept descriptions" });
        await seeText(
          cds,
          /MaxRotationSpeed\s+https:\/\/example\.org\/cd\/max-rotation-speed\s+en: max\. rotation speed\s+1\/min/,
        );
      });
    });

    test("a Property edited in the console is what the API serves, also after a reload; a bad value shows the server's message", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin}/console/`);
        await openSubmodel(p, "TestAas1", "TechnicalData");
        const row = rowOf(p, "MaxRotationSpeed");
        await row.getByRole("button", { name: "Edit MaxRotationSpeed" }).click();
        await row.getByRole("textbox").fill("fast");
        await row.getByRole("button", { name: "Save" }).click();
        await seeText(row.getByRole("alert"), /xs:int|fast/);
        assert.equal((await other.get(element(TECHNICAL_DATA_1, "MaxRotationSpeed"))).json().value, "5000");

        await row.getByRole("textbox").fill("4321");
        await row.getByRole("button", { name: "Save" }).click();
        await seeText(row, /^MaxRotationSpeed\s+Property\s+4321\s+1\/min/);
        const served = await other.get(element(TECHNICAL_DATA_1, "MaxRotationSpeed"));
        assert.equal(served.status, 200, served.text);
        assert.equal(served.json().value, "4321");

        await p.reload();
        await openSubmodel(p, "TestAas1", "TechnicalData");
        await seeText(rowOf(p, "MaxRotationSpeed"), /Property\s+4321\s+1\/min/);
      });
    });

    test("a value changed by someone else while the editor is open is not overwritten: the save shows the 412", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin}/console/`);
        await openSubmodel(p, "TestAas1", "TechnicalData");
        const row = rowOf(p, "MaxRotationSpeed");
        await row.getByRole("button", { name: "Edit MaxRotationSpeed" }).click();
        await row.getByRole("textbox").fill("1111");
        // The ETag is read when the editor opens: give it the moment it takes, then change the value elsewhere.
        await p.waitForTimeout(500);
        const path = `${element(TECHNICAL_DATA_1, "MaxRotationSpeed")}/$value`;
        assert.equal((await other.request("PATCH", path, { body: "2222" })).status, 204);
        await row.getByRole("button", { name: "Save" }).click();
        await seeText(row.getByRole("alert"), /412|If-Match|revision/i);
        assert.equal((await other.get(element(TECHNICAL_DATA_1, "MaxRotationSpeed"))).json().value, "2222");
      });
    });

    test("a value written over OPC UA shows in the open console without a reload", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin}/console/`);
        await openSubmodel(p, "TestAas2", "TechnicalData");
        await seeText(rowOf(p, "MaxRotationSpeed"), /Property\s+5000\s/);
        // The event stream (GET /events) is served here, so the console must follow it, not poll.
        await seeText(p.getByRole("status").filter({ hasText: "Live:" }), /Live: change events/);
        // Gone on a reload: the value must arrive in this very document.
        await p.evaluate(() => {
          (window as unknown as { sameDocument: boolean }).sameDocument = true;
        });
        const status = await system.opcua.write(`${TECHNICAL_DATA_2}|MaxRotationSpeed/Value`, {
          dataType: DataType.Int32,
          value: 6789,
        });
        assert.equal(status.name, "Good");
        await seeText(rowOf(p, "MaxRotationSpeed"), /Property\s+6789\s+1\/min/, 15_000);
        assert.equal(await p.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true);
      });
    });

    test("an AASX package uploaded in the console shows its shell, thumbnail and attachment", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin}/console/`);
        await seeText(p.getByRole("list", { name: "Shells" }), /TestAas1/);
        await p.getByLabel("Upload AASX").setInputFiles({
          name: "uploaded-pump.aasx",
          mimeType: "application/asset-administration-shell-package+xml",
          buffer: uploadPackage(),
        });
        await seeText(
          p.getByRole("status").filter({ hasText: "uploaded-pump.aasx" }),
          /^Uploaded uploaded-pump\.aasx$/,
        );
        await seeText(p.getByRole("list", { name: "Shells" }), /UploadedPump/);
        const thumbnail = p.getByRole("img", { name: "Thumbnail of UploadedPump" });
        await thumbnail.waitFor();
        await waitUntil(
          () => thumbnail.evaluate((img) => (img as HTMLImageElement).naturalWidth === 1),
          "thumbnail decoded",
        );
        assert.equal((await other.get(`/shells/${b64("https://example.org/aas/console-upload")}`)).status, 200);

        await openSubmodel(p, "UploadedPump", "UploadedData");
        await seeText(rowOf(p, "Pressure"), /^Pressure\s+Property\s+2\.5/);
        const [download] = await Promise.all([
          p.waitForEvent("download"),
          rowOf(p, "Manual").getByRole("button", { name: "Download Manual" }).click(),
        ]);
        assert.equal(download.suggestedFilename(), "pump-manual.txt");
        assert.deepEqual(readFileSync((await download.path())!), MANUAL);
      });
    });

    test("a shell downloads as an AASX package with its submodels", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin}/console/`);
        const [download] = await Promise.all([
          p.waitForEvent("download"),
          p.getByRole("button", { name: "Download TestAas3 as AASX" }).click(),
        ]);
        assert.equal(download.suggestedFilename(), "TestAas3.aasx");
        const content = readAasx(new Uint8Array(readFileSync((await download.path())!)), DEFAULT_AASX_LIMITS);
        const environment = content.environment as {
          assetAdministrationShells: { id: string }[];
          submodels: { id: string }[];
        };
        assert.deepEqual(
          environment.assetAdministrationShells.map((s) => s.id),
          ["https://example.org/aas/test-3"],
        );
        assert.ok(environment.submodels.some((s) => s.id === TECHNICAL_DATA_3));
      });
    });

    test("an operation invoked in the console is listed with its state", async (t) => {
      await page(t, async (p) => {
        await p.goto(`${origin}/console/`);
        await openSubmodel(p, "TestAas1", "TechnicalData");
        await rowOf(p, "Functions.Reset").getByRole("button", { name: "Invoke Functions.Reset" }).click();
        const operations = p.getByRole("region", { name: "Operations" });
        await seeText(operations, /Functions\.Reset\s+(Running|Completed|Failed|Error)/);
        // It ends (the example model's Reset has no implementation behind it: the server says so).
        await seeText(operations, /Functions\.Reset\s+(Completed|Failed|Error)\s/, 15_000);
      });
    });
  });
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
