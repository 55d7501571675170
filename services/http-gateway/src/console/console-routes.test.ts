import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Hono } from "hono";
import { loadConsoleFiles } from "./console-files.ts";
import { mountConsole } from "./console-routes.ts";

describe("web console routes", () => {
  const dir = mkdtempSync(join(tmpdir(), "twinport-console-files-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>console</title>");
  writeFileSync(join(dir, "assets/index-abc123.js"), "console.log(1)");
  after(() => rmSync(dir, { recursive: true, force: true }));
  const app = new Hono();
  mountConsole(app, loadConsoleFiles(dir));

  it("redirects / and /console to /console/", async () => {
    for (const path of ["/", "/console"]) {
      const response = await app.request(path);
      assert.ok([301, 302].includes(response.status), `${path}: ${response.status}`);
      assert.equal(response.headers.get("location"), "/console/");
    }
  });

  it("serves index.html, revalidated on every load, with a policy that keeps the page to its origin", async () => {
    const response = await app.request("/console/");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("cache-control"), "no-cache");
    assert.match(String(response.headers.get("content-security-policy")), /default-src 'self'/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.match(await response.text(), /<title>console<\/title>/);
  });

  it("serves hashed assets as immutable, with their type", async () => {
    const response = await app.request("/console/assets/index-abc123.js");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.match(String(response.headers.get("cache-control")), /immutable/);
    assert.equal(await response.text(), "console.log(1)");
  });

  it("answers a missing asset 404 with a Result body, other paths with the page", async () => {
    const missing = await app.request("/console/assets/gone.js");
    assert.equal(missing.status, 404);
    assert.match((await missing.json()).messages[0].text, /Nothing is served at \/console\/assets\/gone\.js/);
    // A file name never reaches the file system (the files are a map in memory): no way out of the folder.
    for (const path of ["/console/some/view", "/console/..%2F..%2Fpackage.json"]) {
      const page = await app.request(path);
      assert.equal(page.status, 200, path);
      assert.match(await page.text(), /<title>console<\/title>/);
    }
  });

  it("says so when the console was not built", async () => {
    const unbuilt = new Hono();
    mountConsole(unbuilt, loadConsoleFiles(join(dir, "nothing-here")));
    const response = await unbuilt.request("/console/");
    assert.equal(response.status, 404);
    assert.match((await response.json()).messages[0].text, /not built here \(run `npm run build`\)/);
  });
});
