import assert from "node:assert/strict";
import { test } from "node:test";
import { elementWeight } from "./element-count.ts";

const property = (idShort: string) => ({ modelType: "Property", idShort, valueType: "xs:int", value: "1" });

test("a submodel weighs its elements at every depth; shells, concept descriptions and empty submodels one", () => {
  const submodel = {
    modelType: "Submodel",
    id: "urn:x",
    submodelElements: [
      property("P"),
      { modelType: "MultiLanguageProperty", idShort: "M", value: [{ language: "en", text: "x" }] },
      { modelType: "SubmodelElementCollection", idShort: "C", value: [property("X"), property("Y")] },
      { modelType: "SubmodelElementList", idShort: "L", value: [property("a"), property("b")] },
      { modelType: "Entity", idShort: "E", statements: [property("S")] },
      { modelType: "AnnotatedRelationshipElement", idShort: "R", annotations: [property("A")] },
    ],
  };
  // P, M, C, X, Y, L, a, b, E, S, R, A
  assert.equal(elementWeight("submodel", submodel), 12);
  assert.equal(elementWeight("submodel", { id: "urn:empty" }), 1);
  assert.equal(elementWeight("shell", { id: "urn:s", submodels: [{}, {}] }), 1);
  assert.equal(elementWeight("concept-description", { id: "urn:cd" }), 1);
  assert.equal(elementWeight("submodel", null), 1);
});
