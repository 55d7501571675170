import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Hono } from "hono";
import { ApiError } from "./api-error.ts";
import { staticFiles } from "./static-files.ts";

const root = mkdtempSync(join(tmpdir(), "twinport-static-files-"));
after(() => rmSync(root, { recursive: true, force: true }));

test("serves a folder and its sub-folders by listed name only; the mount without its slash redirects", async () => {
  const folder = join(root, "site");
  mkdirSync(join(folder, "assets"), { recursive: true });
  writeFileSync(join(folder, "index.html"), "<p>home</p>");
  writeFileSync(join(folder, "assets", "app.js"), "console.log(1)");
  writeFileSync(join(folder, "notes.md"), "not a served type");
  writeFileSync(join(root, "secret.txt"), "outside");
  const app = new Hono();
  app.onError((error, c) => c.text(error.message, error instanceof ApiError ? 404 : 500));
  const handler = staticFiles({ folder, mount: "/console", generated: { "config.js": "window.config = {}" } });
  app.get("/console", handler);
  app.get("/console/*", handler);

  const bare = await app.request("/console");
  assert.equal(bare.status, 301);
  assert.equal(bare.headers.get("location"), "/console/");
  const home = await app.request("/console/");
  assert.equal(await home.text(), "<p>home</p>");
  assert.equal(home.headers.get("content-type"), "text/html; charset=utf-8");
  const script = await app.request("/console/assets/app.js");
  assert.equal(script.status, 200);
  assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal(await (await app.request("/console/config.js")).text(), "window.config = {}");
  for (const path of [
    "/console/notes.md",
    "/console/..%2fsecret.txt",
    "/console/assets/..%2f..%2fsecret.txt",
    "/console/nothing.js",
  ])
    assert.equal((await app.request(path)).status, 404, path);
});
