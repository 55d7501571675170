import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { type TestEngine, testEngine } from "./test-support/handlers.ts";

/**
 * RFC 9110 §13.2.1: preconditions are evaluated before the request content is processed. A client
 * that read an element, lost a race, and sends a body that fitted what it read gets 412 (read
 * again), not a 400 about a state it never saw (a black-box finding: 12 of 40 stale writers to a
 * list that others grew got 400). A body no element of that kind could take stays a 400.
 */
const SM = "urn:stale:sm";
const json = (value: unknown) => JSON.stringify(value);

describe("a stale If-Match beside a body that no longer fits the element", () => {
  let t: TestEngine;
  const revisionOf = async (idShortPath: string) =>
    (await t.ok("GetSubmodelElementByPath", { submodelId: SM, idShortPath })).revision!;
  beforeEach(async () => {
    t = await testEngine();
    await t.ok("PostSubmodel", {
      body: json({
        modelType: "Submodel",
        id: SM,
        submodelElements: [
          {
            modelType: "SubmodelElementList",
            idShort: "Tags",
            typeValueListElement: "Property",
            valueTypeListElement: "xs:string",
            value: [
              { modelType: "Property", valueType: "xs:string", value: "pump" },
              { modelType: "Property", valueType: "xs:string", value: "test" },
            ],
          },
          {
            modelType: "Entity",
            idShort: "Motor",
            entityType: "SelfManagedEntity",
            globalAssetId: "urn:motor",
            statements: [{ modelType: "Property", idShort: "Power", valueType: "xs:int", value: "1" }],
          },
          { modelType: "Property", idShort: "Speed", valueType: "xs:string", value: "fast" },
          { modelType: "Operation", idShort: "Reset" },
        ],
      }),
    });
  });

  test("$value of a list that gained an item: 412 with the stale tag, the 400 without one", async () => {
    const stale = await revisionOf("Tags");
    await t.ok("PostSubmodelElement", {
      submodelId: SM,
      idShortPath: "Tags",
      body: json({ modelType: "Property", valueType: "xs:string", value: "new" }),
    });
    const body = json(["1", "2"]);
    await t.fails(
      "PatchSubmodelElementValueByPath",
      { submodelId: SM, idShortPath: "Tags", body, preconditions: { ifMatch: [String(stale)] } },
      "precondition-failed",
    );
    await t.fails("PatchSubmodelElementValueByPath", { submodelId: SM, idShortPath: "Tags", body }, "validation");
  });

  test("$value of an Entity whose statement was deleted since: 412", async () => {
    const stale = await revisionOf("Motor");
    await t.ok("DeleteSubmodelElementByPath", { submodelId: SM, idShortPath: "Motor.Power" });
    await t.fails(
      "PatchSubmodelElementValueByPath",
      {
        submodelId: SM,
        idShortPath: "Motor",
        body: json({ statements: { Power: 2 } }),
        preconditions: { ifMatch: [String(stale)] },
      },
      "precondition-failed",
    );
  });

  test("a merge PATCH whose value no longer fits the element's valueType (changed by a PUT since): 412", async () => {
    const stale = await revisionOf("Speed");
    await t.ok("PutSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Speed",
      body: json({ modelType: "Property", idShort: "Speed", valueType: "xs:int", value: "3" }),
    });
    const body = json({ value: "faster" });
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Speed", body, preconditions: { ifMatch: [String(stale)] } },
      "precondition-failed",
    );
    const unconditioned = await t.run("PatchSubmodelElementByPath", { submodelId: SM, idShortPath: "Speed", body });
    assert.ok(!unconditioned.ok && unconditioned.error.code !== "precondition-failed", JSON.stringify(unconditioned));
  });

  test("a submodel's $value naming an element deleted since: 412 with the stale tag", async () => {
    const stale = (await t.ok("GetSubmodelById", { submodelId: SM })).revision!;
    await t.ok("DeleteSubmodelElementByPath", { submodelId: SM, idShortPath: "Speed" });
    const body = json({ Speed: "slow" });
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, content: "value", body, preconditions: { ifMatch: [String(stale)] } },
      "precondition-failed",
    );
    await t.fails("PatchSubmodelById", { submodelId: SM, content: "value", body }, "bad-request");
  });

  test("a POST into a list whose value type changed since: 412 with the stale tag", async () => {
    const stale = await revisionOf("Tags");
    await t.ok("PutSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Tags",
      body: json({
        modelType: "SubmodelElementList",
        idShort: "Tags",
        typeValueListElement: "Property",
        valueTypeListElement: "xs:int",
        value: [],
      }),
    });
    const body = json({ modelType: "Property", valueType: "xs:string", value: "hello" });
    await t.fails(
      "PostSubmodelElement",
      { submodelId: SM, idShortPath: "Tags", body, preconditions: { ifMatch: [String(stale)] } },
      "precondition-failed",
    );
    const unconditioned = await t.run("PostSubmodelElement", { submodelId: SM, idShortPath: "Tags", body });
    assert.ok(!unconditioned.ok && unconditioned.error.code !== "precondition-failed", JSON.stringify(unconditioned));
    // Into a Property nothing can ever be posted: that 400 comes first.
    const speed = await revisionOf("Speed");
    const intoLeaf = await t.run("PostSubmodelElement", {
      submodelId: SM,
      idShortPath: "Speed",
      body: json({ modelType: "Property", idShort: "In", valueType: "xs:string" }),
      preconditions: { ifMatch: [String(speed + 1000)] },
    });
    assert.ok(!intoLeaf.ok && intoLeaf.error.code !== "precondition-failed", JSON.stringify(intoLeaf));
  });

  test("a merge or $metadata PATCH of an element whose modelType changed since: 412 with the stale tag", async () => {
    const stale = await revisionOf("Speed");
    await t.ok("PutSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Speed",
      body: json({ modelType: "Range", idShort: "Speed", valueType: "xs:int", min: "1", max: "3" }),
    });
    for (const content of ["normal", "metadata"] as const)
      await t.fails(
        "PatchSubmodelElementByPath",
        {
          submodelId: SM,
          idShortPath: "Speed",
          content,
          body: json({ modelType: "Property", valueType: "xs:int" }),
          preconditions: { ifMatch: [String(stale)] },
        },
        "precondition-failed",
      );
    // An Operation has no $metadata form whatever the preconditions.
    const reset = await revisionOf("Reset");
    const metadata = await t.run("PatchSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Reset",
      content: "metadata",
      body: json({}),
      preconditions: { ifMatch: [String(reset + 1000)] },
    });
    assert.ok(!metadata.ok && metadata.error.code !== "precondition-failed", JSON.stringify(metadata));
  });

  test("an Operation takes no $value whatever the preconditions: the 400 stays first", async () => {
    const stale = await revisionOf("Reset");
    await t.ok("PutSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Reset",
      body: json({ modelType: "Operation", idShort: "Reset", category: "PARAMETER" }),
    });
    await t.fails(
      "PatchSubmodelElementValueByPath",
      { submodelId: SM, idShortPath: "Reset", body: json({}), preconditions: { ifMatch: [String(stale)] } },
      "validation",
    );
  });
});
