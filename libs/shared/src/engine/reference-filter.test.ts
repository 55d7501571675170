import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CommandError } from "../contracts/index.ts";
import { anyReferenceMatches, parseReferenceFilter, referenceMatches } from "./reference-filter.ts";

const iec = {
  type: "ExternalReference",
  keys: [
    { type: "GlobalReference", value: "https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3" },
  ],
};

describe("reference filters (isCaseOf, dataSpecificationRef)", () => {
  it("reads plain text as one key value, matched against any key", () => {
    const filter = parseReferenceFilter("isCaseOf", iec.keys[0].value);
    assert.deepEqual(filter, { kind: "key-value", value: iec.keys[0].value });
    assert.ok(referenceMatches(iec, filter));
    assert.ok(
      !referenceMatches(
        iec,
        parseReferenceFilter(
          "isCaseOf",
          "https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3/",
        ),
      ),
    );
    assert.ok(
      !referenceMatches(iec, parseReferenceFilter("isCaseOf", iec.keys[0].value.toUpperCase())),
      "case-sensitive",
    );
  });

  it("reads a JSON Reference and compares type and keys exactly", () => {
    assert.ok(referenceMatches(iec, parseReferenceFilter("x", JSON.stringify(iec))));
    assert.ok(
      referenceMatches(iec, parseReferenceFilter("x", JSON.stringify({ keys: iec.keys }))),
      "type may be left out",
    );
    assert.ok(!referenceMatches(iec, parseReferenceFilter("x", JSON.stringify({ ...iec, type: "ModelReference" }))));
    assert.ok(
      !referenceMatches(
        iec,
        parseReferenceFilter("x", JSON.stringify({ keys: [...iec.keys, { type: "GlobalReference", value: "more" }] })),
      ),
    );
    assert.ok(
      !referenceMatches(
        iec,
        parseReferenceFilter("x", JSON.stringify({ keys: [{ type: "FragmentReference", value: iec.keys[0].value }] })),
      ),
    );
  });

  it("treats text that is not JSON as a key value, and refuses JSON that is not a well-formed Reference", () => {
    assert.equal(parseReferenceFilter("x", "{not json").kind, "key-value");
    assert.equal(parseReferenceFilter("x", "abc").kind, "key-value");
    for (const text of [
      '{"name":"a"}',
      '"abc"',
      "42",
      "[]",
      "null",
      "true",
      '{"keys":[]}',
      '{"keys":"a"}',
      '{"keys":[{"type":1,"value":"a"}]}',
      '{"type":3,"keys":[{"type":"A","value":"a"}]}',
    ]) {
      assert.throws(
        () => parseReferenceFilter("isCaseOf", text),
        (error: unknown) =>
          error instanceof CommandError && error.code === "bad-request" && /isCaseOf/.test(error.message),
      );
    }
  });

  it("matches lists of references; absent lists match nothing", () => {
    const filter = parseReferenceFilter("x", iec.keys[0].value);
    assert.ok(
      anyReferenceMatches(
        [{ type: "ExternalReference", keys: [{ type: "GlobalReference", value: "other" }] }, iec],
        filter,
      ),
    );
    assert.ok(!anyReferenceMatches(undefined, filter));
    assert.ok(!anyReferenceMatches([], filter));
  });

  it("refuses what the metamodel has not: another type, a key type, a member; compares a referredSemanticId", () => {
    const refused = (value: unknown, pattern: RegExp) =>
      assert.throws(
        () => parseReferenceFilter("semanticId", JSON.stringify(value)),
        (error: unknown) =>
          error instanceof CommandError && error.code === "bad-request" && pattern.test(error.message),
      );
    refused({ ...iec, type: "NoSuchType" }, /type is ExternalReference or ModelReference/);
    refused({ ...iec, bogus: 1 }, /has no "bogus"/);
    refused({ type: "ExternalReference", keys: [{ type: "NoKey", value: "x" }] }, /KeyTypes/);
    refused({ type: "ExternalReference", keys: [{ type: "GlobalReference", value: "x", extra: 1 }] }, /KeyTypes/);
    refused({ ...iec, referredSemanticId: { keys: [] } }, /semanticId\.referredSemanticId": a Reference needs "keys"/);
    // Members given as null are absent, as in AAS JSON.
    assert.deepEqual(
      parseReferenceFilter("semanticId", JSON.stringify({ ...iec, referredSemanticId: null })),
      parseReferenceFilter("semanticId", JSON.stringify(iec)),
    );
    const referred = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:unit" }] };
    const withReferred = { ...iec, referredSemanticId: referred };
    const asked = (value: unknown) => parseReferenceFilter("semanticId", JSON.stringify(value));
    assert.ok(referenceMatches(withReferred, asked(withReferred)));
    assert.ok(referenceMatches(withReferred, asked(iec)), "a filter without it does not look at it");
    assert.ok(!referenceMatches(iec, asked(withReferred)), "a filter with it needs it");
    assert.ok(
      !referenceMatches(
        withReferred,
        asked({ ...iec, referredSemanticId: { ...referred, keys: [{ type: "GlobalReference", value: "urn:other" }] } }),
      ),
    );
  });
});
