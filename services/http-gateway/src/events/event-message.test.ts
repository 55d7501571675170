import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChangeEvent } from "@twinport/shared";
import { eventMessage } from "./event-message.ts";

const base = { seq: 7, revision: 7, id: "urn:sm", time: "2026-11-26T10:00:00.000Z", origin: "http" };
const data = (text: string) => {
  const lines = text.split("\n");
  assert.equal(lines[0], "id: 7");
  assert.ok(text.endsWith("\n\n"));
  return JSON.parse(lines[2]!.slice("data: ".length));
};
const SM = "dXJuOnNt"; // base64url of "urn:sm"

describe("event messages", () => {
  it("a value change carries the unwrapped ValueOnly value, numbers exact", () => {
    const event: ChangeEvent = {
      ...base,
      kind: "element.value-changed",
      idShortPath: "Temp",
      payload: { modelType: "Property", idShort: "Temp", valueType: "xs:int", value: "21" },
    };
    const text = eventMessage(event, true);
    assert.equal(text.split("\n")[1], "event: element.value-changed");
    assert.match(text, /"value":21\}/);
    assert.equal(data(text).value, 21);
  });

  it("a large payload the bus left out, or one the reader may not see whole, becomes an href", () => {
    const omitted: ChangeEvent = {
      ...base,
      kind: "element.value-changed",
      idShortPath: "A.B[2]",
      payloadOmitted: true,
    };
    assert.equal(
      data(eventMessage(omitted, true)).href,
      `/api/v3.0/submodels/${SM}/submodel-elements/A.B%5B2%5D/$value`,
    );
    const updated: ChangeEvent = {
      ...base,
      kind: "submodel.updated",
      payload: { modelType: "Submodel", id: "urn:sm" },
    };
    assert.deepEqual(data(eventMessage(updated, true)).submodel, { modelType: "Submodel", id: "urn:sm" });
    const partial = data(eventMessage(updated, false));
    assert.equal(partial.submodel, undefined);
    assert.equal(partial.href, `/api/v3.0/submodels/${SM}`);
  });

  it("a deletion carries the identifiers only", () => {
    const deleted = data(eventMessage({ ...base, kind: "shell.deleted" }, true));
    assert.deepEqual(Object.keys(deleted).sort(), ["id", "kind", "origin", "revision", "seq", "time"]);
  });
});
