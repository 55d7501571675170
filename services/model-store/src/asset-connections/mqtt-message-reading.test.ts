import assert from "node:assert/strict";
import { test } from "node:test";
import type { ElementJson } from "@twinport/shared";
import { compileJsonPath } from "./json-path.ts";
import { lazyMqttMessageReading, MAX_MQTT_MESSAGE_BYTES } from "./mqtt-message-reading.ts";

const property: ElementJson = { modelType: "Property", idShort: "Rate", valueType: "xs:int", value: "1" };

test("a lazy reading gives what the message holds once asked, with exact numbers", () => {
  const reading = lazyMqttMessageReading(
    Buffer.from('{"rate": 12345678901234567890}'),
    "line/rate",
    compileJsonPath("$.rate"),
  )!;
  assert.equal(reading.key, "12345678901234567890");
  assert.equal(reading.bodyFor(property), JSON.stringify("12345678901234567890"));
});

test("a message that does not fit throws when its reading is used, not when it arrives; an empty one is no reading", () => {
  const bad = lazyMqttMessageReading(Buffer.from("not json {"), "line/rate", undefined);
  assert.ok(bad, "made without parsing");
  assert.throws(() => bad.key, /a message on "line\/rate" is not JSON/);
  const missing = lazyMqttMessageReading(Buffer.from('{"other": 1}'), "line/rate", compileJsonPath("$.rate"))!;
  assert.throws(() => missing.bodyFor(property), /matched nothing/);
  assert.equal(lazyMqttMessageReading(Buffer.alloc(0), "line/rate", undefined), undefined);
});

test("a message over the size limit is dropped with a message naming it, not stored", () => {
  const big = Buffer.alloc(MAX_MQTT_MESSAGE_BYTES + 1, 0x20);
  big.write('"', 0);
  big.write('"', big.length - 1);
  const reading = lazyMqttMessageReading(big, "line/tele", undefined)!;
  assert.throws(() => reading.key, /a message on "line\/tele" has 16777217 bytes, over the limit of 16777216; dropped/);
  const fits = lazyMqttMessageReading(Buffer.from('"ok"'), "line/tele", undefined)!;
  assert.equal(fits.key, '"ok"');
});
