import assert from "node:assert/strict";
import { test } from "node:test";
import { isAcceptable, preferredMediaType } from "./content-negotiation.ts";

const MODEL = ["application/json", "application/xml", "text/xml", "application/asset-administration-shell-package+xml"];

test("q=0 excludes a type even where a wildcard admits everything else (RFC 9110 §12.5.1)", () => {
  assert.equal(preferredMediaType("application/json;q=0, */*;q=0.1", MODEL), "application/xml");
  assert.equal(preferredMediaType("*/*, application/json;q=0", ["application/json"]), undefined);
  assert.equal(preferredMediaType("*/*;q=0", MODEL), undefined);
  assert.equal(isAcceptable("application/json;q=0, */*;q=0.1", "application/json"), false);
});

test("no Accept, an empty one, and wildcards take the first offered; ties keep the offered order", () => {
  assert.equal(preferredMediaType(undefined, MODEL), "application/json");
  assert.equal(preferredMediaType("  ", MODEL), "application/json");
  assert.equal(preferredMediaType("*/*", MODEL), "application/json");
  assert.equal(preferredMediaType("application/*", MODEL), "application/json");
  assert.equal(preferredMediaType("text/*", MODEL), "text/xml");
  assert.equal(preferredMediaType("application/json;q=0.5, application/xml", MODEL), "application/xml");
});

test("a charset parameter on a text type still matches what we write (UTF-8)", () => {
  assert.equal(preferredMediaType("application/json; charset=utf-8", MODEL), "application/json");
  assert.equal(isAcceptable("application/json; charset=UTF-8", "application/json"), true);
  assert.equal(isAcceptable("image/png", "application/json"), false);
});

test("synonyms: text/xml for application/xml, and the three AASX spellings", () => {
  assert.equal(isAcceptable("text/xml", "application/xml"), true);
  assert.equal(isAcceptable("application/aasx+xml", "application/asset-administration-shell-package"), true);
  assert.equal(
    isAcceptable(
      "application/asset-administration-shell-package",
      "application/asset-administration-shell-package+xml",
    ),
    true,
  );
  assert.equal(isAcceptable("application/xml", "application/asset-administration-shell-package"), false);
});
