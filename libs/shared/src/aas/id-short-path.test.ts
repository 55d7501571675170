import assert from "node:assert/strict";
import { test } from "node:test";
import { AasError } from "./aas-error.ts";
import { childPath, formatIdShortPath, isBelow, parentPathOf, parseIdShortPath, splitParent } from "./id-short-path.ts";

const isPathError = (error: unknown) => error instanceof AasError && error.kind === "id-short-path";

test("parses and formats idShortPaths, including nested lists", () => {
  const cases: [string, ReturnType<typeof parseIdShortPath>][] = [
    ["a", [{ idShort: "a" }]],
    ["sme1.sme2[0].p1", [{ idShort: "sme1" }, { idShort: "sme2" }, { index: 0 }, { idShort: "p1" }]],
    ["L[0][1]", [{ idShort: "L" }, { index: 0 }, { index: 1 }]],
    ["L[10].x_y-z.B9", [{ idShort: "L" }, { index: 10 }, { idShort: "x_y-z" }, { idShort: "B9" }]],
  ];
  for (const [text, segments] of cases) {
    assert.deepEqual(parseIdShortPath(text), segments, text);
    assert.equal(formatIdShortPath(segments), text);
  }
});

test("rejects every malformed idShortPath", () => {
  for (const bad of [
    "",
    "a..b",
    ".a",
    "a.",
    "a[01]",
    "[0]",
    "a[-1]",
    "a[]",
    "a[1",
    "a[x]",
    "a[1]b",
    "1a",
    "a.1b",
    "a b",
    "a/b",
    "a[99999999999999999999]",
    "a.[0]",
  ]) {
    assert.throws(() => parseIdShortPath(bad), isPathError, JSON.stringify(bad));
  }
  assert.throws(() => formatIdShortPath([]), isPathError);
  assert.throws(() => formatIdShortPath([{ index: 0 }]), isPathError);
  assert.throws(() => formatIdShortPath([{ idShort: "a" }, { index: -1 }]), isPathError);
  assert.throws(() => formatIdShortPath([{ idShort: "a.b" }]), isPathError);
});

test("splitParent, parentPathOf and childPath agree", () => {
  assert.deepEqual(splitParent("a.b[2]"), { parentPath: "a.b", segment: "[2]", index: 2 });
  assert.deepEqual(splitParent("a[2].b"), { parentPath: "a[2]", segment: "b" });
  assert.deepEqual(splitParent("L[0][1]"), { parentPath: "L[0]", segment: "[1]", index: 1 });
  assert.deepEqual(splitParent("a"), { parentPath: "", segment: "a" });
  assert.throws(() => splitParent(""), isPathError);
  for (const path of ["a", "a.b", "a.b[2]", "L[0][1]", "a[3].b.c"]) {
    const { parentPath, segment, index } = splitParent(path);
    assert.equal(parentPathOf(path), parentPath);
    assert.equal(childPath(parentPath, index === undefined ? { idShort: segment } : { index }), path);
  }
  assert.equal(childPath("", { idShort: "x" }), "x");
  assert.equal(childPath("l", { index: 3 }), "l[3]");
  assert.equal(childPath("a", { idShort: "b" }), "a.b");
  assert.throws(() => childPath("", { index: 0 }), isPathError);
});

test("isBelow tells descendants from siblings that share a prefix", () => {
  assert.ok(isBelow("a.b", "a"));
  assert.ok(isBelow("a[0]", "a"));
  assert.ok(isBelow("a", ""));
  assert.ok(!isBelow("ab", "a"));
  assert.ok(!isBelow("a", "a"));
  assert.ok(!isBelow("", ""));
});
