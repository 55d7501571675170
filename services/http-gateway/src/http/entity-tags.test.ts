import assert from "node:assert/strict";
import { test } from "node:test";
import { entityTags } from "./entity-tags.ts";

test("If-Match (strong): a weak tag and a quoted * stay as written, so they match no revision", () => {
  assert.deepEqual(entityTags('"5"', "strong"), ["5"]);
  assert.deepEqual(entityTags('W/"5"', "strong"), ['W/"5"']);
  assert.deepEqual(entityTags('W/"5", "6"', "strong"), ['W/"5"', "6"]);
  assert.deepEqual(entityTags("*", "strong"), ["*"]);
  assert.deepEqual(entityTags('"*"', "strong"), ['"*"']);
});

test("If-None-Match (weak): W/ is dropped, the opaque part compared", () => {
  assert.deepEqual(entityTags('W/"5"', "weak"), ["5"]);
  assert.deepEqual(entityTags('"4" , W/"5",,"6"', "weak"), ["4", "5", "6"]);
  assert.deepEqual(entityTags('"*"', "weak"), ['"*"']);
});

test("a comma inside quotes belongs to the tag; OWS and empty members around commas are allowed", () => {
  assert.deepEqual(entityTags('"a,b", "7"', "strong"), ["a,b", "7"]);
  assert.deepEqual(entityTags(' "7" ,\t"8" , ', "strong"), ["7", "8"]);
  assert.deepEqual(entityTags('""', "strong"), [""]);
  assert.equal(entityTags("", "weak"), undefined);
  assert.equal(entityTags(" , ", "weak"), undefined);
});

test("a field that is no list of entity tags is invalid and matches nothing as a whole, for either header", () => {
  for (const comparison of ["strong", "weak"] as const)
    for (const header of [
      "81",
      "7, 8",
      '"7", 8',
      '"7',
      '"7"x',
      '"7" "8"',
      'W/ "7"',
      'w/"7"',
      '"a b"',
      '"4", *',
      '*, "5"',
      "**",
    ])
      assert.deepEqual(entityTags(header, comparison), ['""'], `${comparison}: ${header}`);
});

test("If-Match with no tag in it matches nothing; * is the wildcard only as the whole field", () => {
  for (const header of ["", " ", ",", " , "]) assert.deepEqual(entityTags(header, "strong"), ['""'], `"${header}"`);
  assert.deepEqual(entityTags(" * ", "strong"), ["*"]);
  assert.deepEqual(entityTags('W/"1", *', "strong"), ['""']);
  assert.deepEqual(entityTags('"4", *', "weak"), ['""']);
});
