import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assetIdTerm, indexTerm, indexTermsOf, indexTermsOfJson, referenceTerms } from "./index-terms.ts";
import { parseReferenceFilter } from "./reference-filter.ts";

describe("filter index terms", () => {
  it("names field and value; long values, \\0 and surrogates become a digest without \\0", () => {
    assert.equal(indexTerm("idShort", "Pump"), "idShort=Pump");
    const long = indexTerm("idShort", "x".repeat(500));
    assert.match(long, /^#idShort=[A-Za-z0-9_-]{43}$/);
    assert.notEqual(long, indexTerm("idShort", "x".repeat(501)));
    for (const odd of ["a\0b", "\uD800", "😀"]) {
      const term = indexTerm("semanticId", odd);
      assert.match(term, /^#semanticId=/);
      assert.ok(!term.includes("\0"));
    }
    // Name and value cannot run into each other.
    assert.notEqual(assetIdTerm("a", "b=c"), assetIdTerm("a=b", "c"));
  });

  it("gives each kind the terms of its filters", () => {
    const ref = (...values: string[]) => ({ keys: values.map((value) => ({ type: "GlobalReference", value })) });
    assert.deepEqual(
      indexTermsOf("shell", {
        idShort: "S",
        assetInformation: {
          globalAssetId: "g",
          specificAssetIds: [
            { name: "n", value: "v" },
            { name: "n", value: "v" },
          ],
        },
      }),
      ["idShort=S", assetIdTerm("globalAssetId", "g"), assetIdTerm("n", "v")],
    );
    assert.deepEqual(indexTermsOf("submodel", { idShort: "M", semanticId: ref("a", "b") }), [
      "idShort=M",
      "semanticId=a",
      "semanticId=b",
    ]);
    assert.deepEqual(
      indexTermsOf("concept-description", {
        isCaseOf: [ref("c")],
        embeddedDataSpecifications: [{ dataSpecification: ref("d") }],
      }),
      ["isCaseOf=c", "dataSpecificationRef=d"],
    );
    // A filter's terms: every key value of a whole Reference, or the one key value.
    assert.deepEqual(
      referenceTerms("semanticId", parseReferenceFilter("semanticId", JSON.stringify(ref("a", "b", "a")))),
      ["semanticId=a", "semanticId=b"],
    );
    assert.deepEqual(referenceTerms("isCaseOf", parseReferenceFilter("isCaseOf", "x")), ["isCaseOf=x"]);
  });

  it("never throws on shapes stored without validation (it runs inside the commit)", () => {
    const odd: unknown[] = [
      { assetInformation: null },
      { assetInformation: "x", idShort: 5 },
      { assetInformation: { specificAssetIds: {} } },
      { assetInformation: { specificAssetIds: [null, 1, "s", { name: 1, value: "v" }], globalAssetId: 3 } },
    ];
    for (const shell of odd) assert.deepEqual(indexTermsOf("shell", shell as Record<string, unknown>), []);
    assert.deepEqual(indexTermsOf("submodel", { semanticId: { keys: [null, 1, { value: 2 }] } }), []);
    assert.deepEqual(indexTermsOf("concept-description", { isCaseOf: "x", embeddedDataSpecifications: [null, 1] }), []);
    assert.deepEqual(indexTermsOfJson("shell", "not json"), []);
    assert.deepEqual(indexTermsOfJson("shell", "[1]"), []);
  });
});
