import assert from "node:assert/strict";
import { test } from "node:test";
import { compileIdPattern } from "./id-pattern.ts";
import { pathCovers, prefixScope } from "./id-short-path-scope.ts";

test("id patterns: * matches any run of characters, everything else is literal", () => {
  const nameplates = compileIdPattern("https://ex.org/sm/*/nameplate");
  assert.ok(nameplates("https://ex.org/sm/1/nameplate"));
  assert.ok(nameplates("https://ex.org/sm//nameplate"));
  assert.ok(!nameplates("https://ex.org/sm/1/nameplateX"));
  // Regular-expression characters are literal.
  assert.ok(compileIdPattern("urn:a.b(c)?")("urn:a.b(c)?"));
  assert.ok(!compileIdPattern("urn:a.b")("urn:aXb"));
  assert.ok(compileIdPattern("*")(""));
});

test("idShortPath prefixes cover on segment boundaries; ancestors lead below, are not covered", () => {
  assert.ok(pathCovers("A.B", "A.B"));
  assert.ok(pathCovers("A.B", "A.B.C"));
  assert.ok(pathCovers("A.B", "A.B[0]"));
  assert.ok(!pathCovers("A.B", "A.BC"));
  assert.ok(pathCovers("L", "L[10].x"));
  assert.ok(!pathCovers("L[1]", "L[10]"));
  const scope = prefixScope(["A.B", "L[0]"]);
  assert.ok(scope.leadsBelow("A") && scope.leadsBelow("A", ".") && !scope.covers("A"));
  // Only a list holds `L[0]`, only a collection-like element `A.B`.
  assert.ok(!scope.leadsBelow("A", "[") && scope.leadsBelow("L", "[") && !scope.leadsBelow("L", "."));
  assert.ok(!scope.leadsBelow("A.B") && !scope.leadsBelow("A.BC") && !scope.leadsBelow("AB"));
});
