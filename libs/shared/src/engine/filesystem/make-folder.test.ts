import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { makeFolder } from "./make-folder.ts";

const root = mkdtempSync(join(tmpdir(), "twinport-make-folder-"));
after(() => rmSync(root, { recursive: true, force: true }));

test("makes every missing folder, and leaves an existing one as it is", () => {
  const deep = join(root, "a", "b", "c");
  makeFolder(deep);
  assert.ok(statSync(deep).isDirectory());
  makeFolder(deep);
  makeFolder(join(root, "a"));
});

test("a file in the way, or a folder the kernel will not make (/proc), is an error naming the folder at once", () => {
  writeFileSync(join(root, "file"), "");
  assert.throws(() => makeFolder(join(root, "file", "below")), /cannot create the folder '.*\/file': EEXIST/);
  assert.throws(() => makeFolder("/proc/1/x/y"), /^Error: cannot create the folder '\/proc\/1\/x': ENOENT/);
});
