import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChangeEvent } from "@twinport/shared";
import { faaastElementValue } from "./faaast-element-value.ts";
import { faaastMessageOf, referenceOf } from "./faaast-event-message.ts";

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
  // Digits that do not change the value do not make a decimal a string (a Range's min was "1.10", its max 2).
  for (const [lexical, number] of [
    ["1.0", 1],
    ["2.50", 2.5],
    ["100.000", 100],
    ["-.5", -0.5],
    ["+007.25", 7.25],
    ["-0.0", 0],
  ] as const)
    assert.equal(JSON.stringify(property("xs:decimal", lexical)?.value), JSON.stringify(number), lexical);
  // XSD's infinities as Java writes and reads them; NaN stays NaN.
  assert.equal(property("xs:double", "INF")?.value, "Infinity");
  assert.equal(property("xs:float", "-INF")?.value, "-Infinity");
  assert.equal(property("xs:double", "NaN")?.value, "NaN");
  // An open end of a Range is left out, not a null value FA³ST's deserializer cannot read.
  assert.deepEqual(faaastElementValue({ modelType: "Range", valueType: "xs:int", max: "9" }), {
    modelType: "Range",
    max: { dataType: "xs:int", value: 9 },
  });
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
  // A call that had no arguments still says so: {}.
  const none = faaastMessageOf(
    event({ kind: "operation.invoked", idShortPath: "Op", payload: { invocationId: "i", async: false } }),
  );
  assert.deepEqual([none.body.input, none.body.inoutput], [{}, {}]);
});

// The expected JSON below is FA³ST's, as in its test resources eventmessage-operationinvoke.json and
// eventmessage-operationfinish.json (FAAAST-Service, dataformat/json/src/test/resources/event/).
const ref = (idShort: string) => ({
  type: "ModelReference",
  keys: [
    { type: "Submodel", value: "http://example.org/submodel" },
    { type: "Property", value: idShort },
  ],
});
const int = (idShort: string, value: string) => ({ modelType: "Property", idShort, valueType: "xs:int", value });
const dbl = (idShort: string, value: string) => ({ modelType: "Property", idShort, valueType: "xs:double", value });
const str = (idShort: string, value: string) => ({ modelType: "Property", idShort, valueType: "xs:string", value });

test("value changes of every kind: FA³ST's typed value with modelType and the kind's own fields", () => {
  const typed = (element: Record<string, unknown>) =>
    faaastMessageOf(event({ kind: "element.value-changed", idShortPath: String(element.idShort), payload: element }))
      .body.newValue;
  assert.deepEqual(
    typed({
      modelType: "MultiLanguageProperty",
      idShort: "Label",
      value: [
        { language: "de", text: "deutsch" },
        { language: "en", text: "english" },
      ],
    }),
    { modelType: "MultiLanguageProperty", value: [{ de: "deutsch" }, { en: "english" }] },
  );
  assert.deepEqual(typed({ modelType: "ReferenceElement", idShort: "Ref", value: ref("property") }), {
    modelType: "ReferenceElement",
    ...ref("property"),
  });
  assert.deepEqual(typed({ modelType: "File", idShort: "F", contentType: "mimeType", value: "/example.txt" }), {
    modelType: "File",
    contentType: "mimeType",
    value: "/example.txt",
  });
  assert.deepEqual(
    typed({
      modelType: "SubmodelElementList",
      idShort: "List",
      typeValueListElement: "Property",
      value: [
        { modelType: "Property", valueType: "xs:int", value: "1" },
        { modelType: "Property", valueType: "xs:double", value: "3.14" },
      ],
    }),
    {
      modelType: "SubmodelElementList",
      values: [
        { modelType: "Property", dataType: "xs:int", value: 1 },
        { modelType: "Property", dataType: "xs:double", value: 3.14 },
      ],
    },
  );
  assert.deepEqual(
    typed({
      modelType: "SubmodelElementCollection",
      idShort: "Info",
      value: [
        str("property_string", "example value"),
        {
          modelType: "SubmodelElementCollection",
          idShort: "nested_collection",
          value: [int("nested_property_int", "1"), dbl("nested_property_double", "3.14")],
        },
        // No value: left out, as FA³ST has no value class for it.
        { modelType: "Operation", idShort: "Reset" },
      ],
    }),
    {
      modelType: "SubmodelElementCollection",
      values: {
        property_string: { modelType: "Property", dataType: "xs:string", value: "example value" },
        nested_collection: {
          modelType: "SubmodelElementCollection",
          values: {
            nested_property_int: { modelType: "Property", dataType: "xs:int", value: 1 },
            nested_property_double: { modelType: "Property", dataType: "xs:double", value: 3.14 },
          },
        },
      },
    },
  );
  assert.deepEqual(typed({ modelType: "RelationshipElement", idShort: "Rel", first: ref("a"), second: ref("b") }), {
    modelType: "RelationshipElement",
    first: ref("a"),
    second: ref("b"),
  });
  assert.deepEqual(
    typed({
      modelType: "AnnotatedRelationshipElement",
      idShort: "ARel",
      first: ref("a"),
      second: ref("b"),
      annotations: [int("exampleAnnotation", "1")],
    }),
    {
      modelType: "AnnotatedRelationshipElement",
      first: ref("a"),
      second: ref("b"),
      annotation: [{ exampleAnnotation: { modelType: "Property", dataType: "xs:int", value: 1 } }],
    },
  );
  // FA³ST's EntityValue bean: statements by idShort, entityType, globalAssetId, specificAssetIds.
  assert.deepEqual(
    typed({
      modelType: "Entity",
      idShort: "Part",
      entityType: "SelfManagedEntity",
      globalAssetId: "urn:asset:1",
      specificAssetIds: [{ name: "serial", value: "42" }],
      statements: [int("Count", "2")],
    }),
    {
      modelType: "Entity",
      entityType: "SelfManagedEntity",
      globalAssetId: "urn:asset:1",
      specificAssetIds: [{ name: "serial", value: "42" }],
      statements: { Count: { modelType: "Property", dataType: "xs:int", value: 2 } },
    },
  );
  assert.deepEqual(
    typed({ modelType: "BasicEventElement", idShort: "Ev", observed: ref("property"), direction: "output" }),
    { modelType: "BasicEventElement", observed: ref("property") },
  );
});

test("operation arguments: an object by idShort of typed values, as FA³ST's invoke and finish messages", () => {
  const variables = (...elements: Record<string, unknown>[]) => elements.map((value) => ({ value }));
  const invoked = faaastMessageOf(
    event({
      kind: "operation.invoked",
      idShortPath: "Op",
      payload: {
        invocationId: "i",
        async: false,
        inputArguments: variables(int("propertyInt", "1"), {
          modelType: "Range",
          idShort: "range",
          valueType: "xs:double",
          min: "0.1",
          max: "0.2",
        }),
        inoutputArguments: variables({
          modelType: "MultiLanguageProperty",
          idShort: "multilanguageProperty",
          value: [{ language: "en", text: "english" }],
        }),
      },
    }),
  );
  assert.deepEqual(invoked.body, {
    "@type": "OperationInvokeEvent",
    element: {
      type: "ModelReference",
      keys: [
        { type: "Submodel", value: "urn:sm" },
        { type: "Operation", value: "Op" },
      ],
    },
    input: {
      propertyInt: { modelType: "Property", dataType: "xs:int", value: 1 },
      range: {
        modelType: "Range",
        min: { dataType: "xs:double", value: 0.1 },
        max: { dataType: "xs:double", value: 0.2 },
      },
    },
    inoutput: {
      multilanguageProperty: { modelType: "MultiLanguageProperty", value: [{ en: "english" }] },
    },
  });
  const finished = faaastMessageOf(
    event({
      kind: "operation.finished",
      idShortPath: "Op",
      payload: {
        invocationId: "i",
        async: false,
        result: {
          executionState: "Completed",
          success: true,
          outputArguments: variables({
            modelType: "SubmodelElementCollection",
            idShort: "submodelElementCollection",
            value: [str("property_string", "example value")],
          }),
          inoutputArguments: variables({ modelType: "ReferenceElement", idShort: "referenceElement", value: ref("p") }),
        },
      },
    }),
  );
  assert.deepEqual(finished.body.output, {
    submodelElementCollection: {
      modelType: "SubmodelElementCollection",
      values: { property_string: { modelType: "Property", dataType: "xs:string", value: "example value" } },
    },
  });
  assert.deepEqual(finished.body.inoutput, { referenceElement: { modelType: "ReferenceElement", ...ref("p") } });
});
