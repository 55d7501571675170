/**
 * The console's reading of live updates, in Node (the same code the browser runs): the
 * Server-Sent Events parser over a byte stream cut at awkward places, and ValueOnly values
 * (GET …/$value, an event's `value`) applied to the elements on screen.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Element } from "../console/src/model.ts";
import { readEvents, type ServerEvent } from "../console/src/sse.ts";
import { applyChildren, applyValueOnly, elementAt } from "../console/src/value-only.ts";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function eventsOf(chunks: string[]): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  await readEvents(streamOf(chunks), (event) => events.push(event), new AbortController().signal);
  return events;
}

describe("Server-Sent Events parser", () => {
  const change = { seq: 7, kind: "element", id: "urn:sm", idShortPath: "A.B", value: "42" };
  const text = `: keep-alive\n\nid: 7\nevent: element.value-changed\ndata: ${JSON.stringify(change)}\n\nevent: reset\ndata: {}\n\n`;

  test("reads id, event and data; comments and keep-alives are no events", async () => {
    const events = await eventsOf([text]);
    assert.deepEqual(events, [
      { id: "7", event: "element.value-changed", data: JSON.stringify(change) },
      { id: "7", event: "reset", data: "{}" },
    ]);
  });

  test("the same events whatever the chunks (one byte at a time, CRLF line ends, a multi-byte character split)", async () => {
    const crlf = text.replace(/\n/g, "\r\n");
    const bytes = [...crlf];
    assert.deepEqual(await eventsOf(bytes), await eventsOf([text]));
    const umlaut = "data: Förderband\n\n";
    const encoded = new TextEncoder().encode(umlaut);
    const split = encoded.indexOf(0xc3) + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoded.slice(0, split));
        controller.enqueue(encoded.slice(split));
        controller.close();
      },
    });
    const events: ServerEvent[] = [];
    await readEvents(stream, (event) => events.push(event), new AbortController().signal);
    assert.deepEqual(events, [{ id: undefined, event: "message", data: "Förderband" }]);
  });

  test("joins data lines with a newline; an event cut off by the end of the stream is dropped", async () => {
    assert.deepEqual(await eventsOf(["data: a\ndata: b\n\ndata: incomplete\n"]), [
      { id: undefined, event: "message", data: "a\nb" },
    ]);
  });
});

describe("ValueOnly applied to the elements on screen", () => {
  const tree = (): Element[] => [
    { modelType: "Property", idShort: "Speed", valueType: "xs:int", value: "1" },
    {
      modelType: "SubmodelElementCollection",
      idShort: "Dimensions",
      value: [{ modelType: "Property", idShort: "Width", valueType: "xs:double", value: "0.25" }],
    },
    {
      modelType: "SubmodelElementList",
      idShort: "Tags",
      value: [
        { modelType: "Property", valueType: "xs:string", value: "a" },
        { modelType: "Property", valueType: "xs:string", value: "b" },
      ],
    },
    { modelType: "MultiLanguageProperty", idShort: "Name", value: [{ language: "en", text: "pump" }] },
    { modelType: "Range", idShort: "Temperature", valueType: "xs:int", min: "0", max: "10" },
    { modelType: "Blob", idShort: "Firmware", contentType: "application/octet-stream", value: "AAEC" },
    { modelType: "Operation", idShort: "Reset" },
  ];

  test("a submodel's $value updates every element it names, and leaves out what it leaves out", () => {
    const elements = tree();
    applyChildren(elements, {
      Speed: 5000,
      Dimensions: { Width: 0.5 },
      Tags: ["x", "y"],
      Name: [{ en: "pump" }, { de: "Pumpe" }],
      Temperature: { min: -5, max: 80 },
      Firmware: { contentType: "application/octet-stream" },
    });
    assert.equal(elementAt(elements, "Speed")?.value, "5000");
    assert.equal(elementAt(elements, "Dimensions.Width")?.value, "0.5");
    assert.equal(elementAt(elements, "Tags[1]")?.value, "y");
    assert.deepEqual(elementAt(elements, "Name")?.value, [
      { language: "en", text: "pump" },
      { language: "de", text: "Pumpe" },
    ]);
    assert.deepEqual([elementAt(elements, "Temperature")?.min, elementAt(elements, "Temperature")?.max], ["-5", "80"]);
    // A Blob's ValueOnly without its content (no extent=WithBlobValue) keeps the content read before.
    assert.equal(elementAt(elements, "Firmware")?.value, "AAEC");
  });

  test("one element's value from an event, found by its idShortPath", () => {
    const elements = tree();
    const width = elementAt(elements, "Dimensions.Width");
    assert.ok(width);
    applyValueOnly(width, 1.75);
    assert.equal(elementAt(elements, "Dimensions.Width")?.value, "1.75");
    assert.equal(elementAt(elements, "Dimensions.Depth"), undefined);
    assert.equal(elementAt(elements, "Tags[5]"), undefined);
  });
});
