import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChangeEvent, providerTarget } from "@twinport/shared";
import { CatchUpWrites } from "./model-changes.ts";

const SUBMODEL = "urn:example:submodel:drive";
const setpoint = providerTarget(`(Submodel)${SUBMODEL}, (Property)Setpoint`);
const speed = providerTarget(`(Submodel)${SUBMODEL}, (SubmodelElementCollection)Status, (Property)Speed`);

function event(seq: number, origin: string, idShortPath: string, value?: string, kind = "element.value-changed") {
  return {
    seq,
    revision: seq,
    kind,
    id: SUBMODEL,
    idShortPath,
    origin,
    time: "2026-11-27T00:00:00Z",
    ...(value === undefined
      ? {}
      : { payload: { modelType: "Property", idShort: idShortPath, valueType: "xs:int", value } }),
  } as ChangeEvent;
}

test("a catch-up writes the last client value of each element, in commit order, across pages", () => {
  const writes = new CatchUpWrites([setpoint, speed]);
  writes.add([event(5, "http", "Setpoint", "3"), event(6, "http", "Status", undefined, "element.updated")]);
  writes.add([event(7, "opcua", "Setpoint", "4"), event(8, "http", "Other", "9")]);
  assert.deepEqual(
    writes.writes().map(({ target, event }) => [target.idShortPath, event.seq]),
    [
      ["Status.Speed", 6],
      ["Setpoint", 7],
    ],
  );
});

test("a catch-up skips an element whose asset value came into the model after the client's", () => {
  const writes = new CatchUpWrites([setpoint]);
  writes.add([event(5, "http", "Setpoint", "3"), event(6, "asset", "Setpoint", "8")]);
  assert.deepEqual(writes.writes(), []);
  writes.add([event(9, "http", "Setpoint", "5")]);
  assert.deepEqual(
    writes.writes().map(({ event }) => event.seq),
    [9],
  );
});
