import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UploadClaims, uploadKeysIn } from "./upload-claims.ts";

const KEY = "/aasx/files/0123456789abcdef/manual.pdf";

describe("upload claims", () => {
  it("finds the uploads a body names in any spelling, and none in a Property's value", () => {
    for (const body of [
      '"50%"',
      '"25 \\u00b0C"',
      "7000",
      '"aasx is a format"',
      '{"value":"/aasx/manual.pdf"}',
      "not json %",
    ])
      assert.deepEqual(uploadKeysIn(body), [], body);
    for (const body of [
      JSON.stringify({ contentType: "application/pdf", value: KEY }),
      JSON.stringify({ value: `file://${KEY}` }),
      JSON.stringify([{ value: KEY.replace("manual", "%6Danual") }]),
      JSON.stringify({ a: { b: [KEY.replace("/aasx/", "/AASX/")] } }),
      JSON.stringify({ value: KEY.replace("/aasx/", "/aa\tsx/") }),
      `{"value":"${KEY.replace("aasx", "\\u0061asx")}"}`,
    ])
      assert.deepEqual(uploadKeysIn(body), [KEY], body);
  });

  it("a release sees a claim held, or a write that settled while it looked; nothing once it ended", () => {
    const claims = new UploadClaims();
    const settled = claims.hold([KEY]);
    const token = claims.started();
    assert.equal(claims.named(KEY, token), true, "held");
    settled(true);
    assert.equal(claims.named(KEY, token), true, "settled while the release looked");
    claims.ended();
    const next = claims.started();
    assert.equal(claims.named(KEY, next), false, "a later release reads what was committed");
    const failed = claims.hold([KEY]);
    failed(false);
    assert.equal(claims.named(KEY, next), false, "a write that did not commit leaves no mark");
    claims.ended();
  });

  it("a release that deferred to claims looks again once the last one settled, whatever its outcome", () => {
    const claims = new UploadClaims();
    const looks: string[] = [];
    assert.equal(
      claims.deferTo(KEY, async () => void looks.push("unclaimed")),
      false,
      "no claim: nothing to defer to",
    );
    const first = claims.hold([KEY]);
    const second = claims.hold([KEY]);
    assert.equal(
      claims.deferTo(KEY, async () => void looks.push("again")),
      true,
    );
    assert.deepEqual(first(false), [], "another write still claims it");
    const rechecks = second(false);
    assert.equal(rechecks.length, 1);
    for (const recheck of rechecks) void recheck();
    assert.deepEqual(looks, ["again"]);
    assert.deepEqual(claims.hold([KEY])(true), [], "handed over once");
  });
});
