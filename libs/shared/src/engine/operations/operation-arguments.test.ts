import assert from "node:assert/strict";
import { test } from "node:test";
import type { ElementJson } from "../../aas/index.ts";
import { CommandError } from "../../contracts/index.ts";
import { matchArguments } from "./operation-arguments.ts";

const property = (idShort: string, valueType: string, value?: string): ElementJson => ({
  modelType: "Property",
  idShort,
  valueType,
  ...(value === undefined ? {} : { value }),
});
const declared: ElementJson[] = [
  {
    modelType: "SubmodelElementCollection",
    idShort: "coll",
    value: [
      property("q", "xs:int"),
      {
        modelType: "SubmodelElementList",
        idShort: "l",
        typeValueListElement: "Property",
        valueTypeListElement: "xs:double",
        value: [],
      },
    ],
  },
];
const refused = (given: ElementJson[], message: RegExp) =>
  assert.throws(
    () => matchArguments(declared, given, "input"),
    (error: unknown) => error instanceof CommandError && error.code === "bad-request" && message.test(error.message),
  );

test("full-form arguments fit their variable all the way down (the ValueOnly form is applied to it)", () => {
  const coll = (...value: ElementJson[]): ElementJson => ({
    modelType: "SubmodelElementCollection",
    idShort: "coll",
    value,
  });
  const list = (...value: ElementJson[]): ElementJson => ({
    modelType: "SubmodelElementList",
    idShort: "l",
    typeValueListElement: "Property",
    valueTypeListElement: "xs:double",
    value,
  });
  assert.deepEqual(matchArguments(declared, [coll(property("q", "xs:int", "1"))], "input"), [
    coll(property("q", "xs:int", "1")),
  ]);
  assert.ok(
    matchArguments(declared, [coll(list({ modelType: "Property", valueType: "xs:double", value: "1.5" }))], "input"),
  );
  refused([coll(property("q", "xs:string", "hello"))], /'coll'\.q must have valueType xs:int, not xs:string/);
  refused([coll({ modelType: "Blob", idShort: "q", contentType: "a/b" })], /'coll'\.q must be a Property, not a Blob/);
  refused([coll(property("zz", "xs:string", "a"))], /has 'zz', which its variable does not declare/);
  refused(
    [coll(list({ modelType: "Property", valueType: "xs:int", value: "1" }))],
    /'coll'\.l\[0\] must have valueType xs:double/,
  );
  refused(
    [coll(list({ modelType: "Range", valueType: "xs:double" }))],
    /'coll'\.l\[0\] must be a Property, not a Range/,
  );
});

test("messages of a bad invocation speak of the invocation: an unknown member, a number for the client time-out", async () => {
  const { readOperationRequest, declarationOf } = await import("./operation-arguments.ts");
  const { clientTimeoutMs } = await import("./client-timeout.ts");
  const declaration = declarationOf({
    modelType: "Operation",
    idShort: "Op",
    inputVariables: [{ value: declared[0]! }],
  });
  assert.throws(
    () => readOperationRequest('{"inputArguments":{"coll":{"Q":true}}}', true, declaration),
    (error: unknown) =>
      error instanceof CommandError &&
      /there is no element "Q" here \(a ValueOnly value sets existing elements, it cannot add any\)/.test(
        error.message,
      ) &&
      !/PATCH/.test(error.message),
  );
  const request = readOperationRequest('{"clientTimeoutDuration":5}', true, declaration);
  assert.throws(
    () => clientTimeoutMs(request.clientTimeoutDuration),
    (error: unknown) => error instanceof CommandError && /, got 5$/.test(error.message),
  );
});
