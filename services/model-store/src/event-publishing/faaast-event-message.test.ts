import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChangeEvent } from "@twinport/shared";
import { faaastElementValue, faaastMessageOf, referenceOf } from "./faaast-event-message.ts";

const event = (partial: Partial<ChangeEvent>): ChangeEvent => ({
  seq: 1,
  revision: 1,
  kind: "element.updated",
  id: "urn:sm",
  time: "2026-01-01T00:00:00Z",
  ...partial,
});

test("references: identifiables by their key type, elements below their submodel, list items by index", () => {
  assert.deepEqual(referenceOf(event({ kind: "shell.created", id: "urn:aas" })).keys, [
    { type: "AssetAdministrationShell", value: "urn:aas" },
  ]);
  assert.deepEqual(referenceOf(event({ kind: "concept-description.deleted", id: "urn:cd" })).keys, [
    { type: "ConceptDescription", value: "urn:cd" },
  ]);
  assert.deepEqual(referenceOf(event({ idShortPath: "Info.Items[2].Name", payload: { modelType: "Property" } })).keys, [
    { type: "Submodel", value: "urn:sm" },
    { type: "SubmodelElement", value: "Info" },
    { type: "SubmodelElementList", value: "Items" },
    { type: "SubmodelElement", value: "2" },
    { type: "Property", value: "Name" },
  ]);
});

test("value changes: FA³ST's event value form, typed as FA³ST writes Java values", () => {
  const property = (valueType: string, value: string) =>
    faaastElementValue({ modelType: "Property", idShort: "P", valueType, value });
  assert.deepEqual(property("xs:int", "42"), { modelType: "Property", dataType: "xs:int", value: 42 });
  assert.deepEqual(property("xs:double", "1.5"), { modelType: "Property", dataType: "xs:double", value: 1.5 });
  assert.deepEqual(property("xs:boolean", "true"), { modelType: "Property", dataType: "xs:boolean", value: true });
  assert.deepEqual(property("xs:string", "7"), { modelType: "Property", dataType: "xs:string", value: "7" });
  // Beyond 2^53 a JSON number would lose digits: the lexical form stays.
  assert.equal(property("xs:long", "9223372036854775807")?.value, "9223372036854775807");
  // So does a decimal with more digits than a double holds (it was rounded); one a double holds is a number.
  for (const exact of ["12345678901234567890.5", "0.1000000000000000000002", "99999999999999999999.9"])
    assert.equal(property("xs:decimal", exact)?.value, exact);
  assert.equal(property("xs:decimal", "1.5")?.value, 1.5);
  assert.equal(property("xs:decimal", "-0.25")?.value, -0.25);
  assert.equal(property("xs:double", "0.1000000000000000000002")?.value, 0.1, "a double is a double");
  assert.deepEqual(faaastElementValue({ modelType: "Range", valueType: "xs:int", min: "1", max: "9" }), {
    modelType: "Range",
    min: { dataType: "xs:int", value: 1 },
    max: { dataType: "xs:int", value: 9 },
  });
  const message = faaastMessageOf(
    event({
      kind: "element.value-changed",
      idShortPath: "P",
      payload: { modelType: "Property", idShort: "P", valueType: "xs:int", value: "3" },
    }),
  );
  assert.equal(message.eventClass, "ValueChangeEventMessage");
  assert.deepEqual(message.body, {
    "@type": "ValueChangeEvent",
    element: {
      type: "ModelReference",
      keys: [
        { type: "Submodel", value: "urn:sm" },
        { type: "Property", value: "P" },
      ],
    },
    oldValue: null,
    newValue: { modelType: "Property", dataType: "xs:int", value: 3 },
  });
});

test("an omitted payload (too large for an event) is published as value null", () => {
  const message = faaastMessageOf(event({ kind: "submodel.updated", payloadOmitted: true }));
  assert.equal(message.eventClass, "ElementUpdateEventMessage");
  assert.equal(message.body.value, null);
});

test("an operation event whose arguments were left out says null, not that the call had none", () => {
  const invoked = faaastMessageOf(event({ kind: "operation.invoked", idShortPath: "Op", payloadOmitted: true }));
  assert.equal(invoked.eventClass, "OperationInvokeEventMessage");
  assert.deepEqual([invoked.body.input, invoked.body.inoutput], [null, null]);
  const finished = faaastMessageOf(event({ kind: "operation.finished", idShortPath: "Op", payloadOmitted: true }));
  assert.deepEqual([finished.body.output, finished.body.inoutput], [null, null]);
  // A call that had no arguments still says [].
  const none = faaastMessageOf(
    event({ kind: "operation.invoked", idShortPath: "Op", payload: { invocationId: "i", async: false } }),
  );
  assert.deepEqual([none.body.input, none.body.inoutput], [[], []]);
});
