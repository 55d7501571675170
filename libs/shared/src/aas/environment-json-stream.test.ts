import assert from "node:assert/strict";
import { test } from "node:test";
import type { AasError } from "./aas-error.ts";
import { createEnvironmentJsonReader } from "./environment-json-stream.ts";
import type { EnvironmentItem } from "./environment-stream.ts";

function readIn(chunks: string[]): EnvironmentItem[] {
  const items: EnvironmentItem[] = [];
  const reader = createEnvironmentJsonReader((item) => items.push(item));
  for (const chunk of chunks) reader.write(chunk);
  reader.end();
  return items;
}

const environment = {
  assetAdministrationShells: [{ id: 'a "quoted" \\ id', idShort: "S}{][", description: [{ text: '\\"}' }] }],
  submodels: [
    { id: "urn:sm:1", submodelElements: [{ idShort: "L", value: [[], {}, "]"] }] },
    { id: "urn:sm:2\u00e9\ud83d\ude00" },
  ],
  conceptDescriptions: null,
};
const text = `\uFEFF \n${JSON.stringify(environment, null, 1)}\n`;
const expected: EnvironmentItem[] = [
  { key: "assetAdministrationShells", index: 0, value: environment.assetAdministrationShells[0] },
  { key: "submodels", index: 0, value: environment.submodels[0] },
  { key: "submodels", index: 1, value: environment.submodels[1] },
];

test("each identifiable is handed out whole, wherever the chunks split the text (strings, escapes, brackets)", () => {
  assert.deepEqual(readIn([text]), expected);
  for (let at = 0; at <= text.length; at++)
    assert.deepEqual(readIn([text.slice(0, at), text.slice(at)]), expected, `split at ${at}`);
  assert.deepEqual(readIn([...text]), expected, "one character at a time");
});

test("what the whole-document reader refuses is refused, the document as a whole", () => {
  const refused: [string, RegExp][] = [
    ["", /empty/],
    ["[]", /must be a JSON object/],
    ['{"assets": []}', /v2\.0/],
    ['{"submodels": [], "other": 1}', /unknown property 'other'/],
    ['{"submodels": {}}', /'submodels' must be a list/],
    ['{"submodels": [{"id": "x",}]}', /Invalid JSON.*\(in submodels\[0\]\)/],
    ['{"submodels": [{"id": "x"}', /ends before the environment is complete/],
    ['{"submodels": []} x', /unexpected text after the environment/],
    ['{"submodels": [], "submodels": []}', /twice/],
    ['{"submodels": [{"__proto__": {}}]}', /__proto__/],
    [`{"submodels": [${"[".repeat(5000)}${"]".repeat(5000)}]}`, /nest/i],
  ];
  for (const [document, message] of refused) assert.throws(() => readIn([document]), message, document.slice(0, 60));
});

test("an empty environment and empty lists hand out nothing", () => {
  assert.deepEqual(readIn(["{}"]), []);
  assert.deepEqual(readIn(['{"assetAdministrationShells": [], "submodels" : [ ] , "conceptDescriptions":null}']), []);
});

test("an item longer than maxItemChars is refused while it is read (413), a long key as unknown, before either is joined", () => {
  const read = (chunks: string[], maxItemChars: number) => {
    const items: EnvironmentItem[] = [];
    const reader = createEnvironmentJsonReader((item) => items.push(item), { maxItemChars });
    for (const chunk of chunks) reader.write(chunk);
    reader.end();
    return items;
  };
  const cd = (value: string) => JSON.stringify({ id: "urn:cd", idShort: value });
  const fits = `{"conceptDescriptions":[${cd("x")},${cd("x".repeat(100 - cd("").length))}]}`;
  assert.equal(read([fits], 100).length, 2, "an item of exactly the limit is read");
  const long = `{"conceptDescriptions":[${cd("x")},${cd("x".repeat(101 - cd("").length))}]}`;
  for (const chunks of [[long], [...long], [long.slice(0, 60), long.slice(60)]])
    assert.throws(
      () => read(chunks, 100),
      (error: AasError) =>
        error.kind === "too-large" &&
        /^conceptDescriptions\[1\] is longer than 100 characters, .*\(core\.importMaxIdentifiableSize\)$/.test(
          error.message,
        ),
    );
  // Refused as the characters arrive: the reader never holds much more than the limit.
  const reader = createEnvironmentJsonReader(() => undefined, { maxItemChars: 1000 });
  reader.write('{"submodels":[{"id":"');
  assert.throws(() => {
    for (let i = 0; i < 1_000; i++) reader.write("x".repeat(100));
  }, /submodels\[0\] is longer than 1000 characters/);
  assert.throws(
    () => read([`{"${"k".repeat(2_000)}":[]}`], 100),
    (error: AasError) =>
      error.kind === "syntax" && /unknown property \(a key of more than 1024 characters\)/.test(error.message),
  );
});

test("whitespace between the frame's tokens is bounded (1 MiB), across chunks too; indentation up to it reads as before", () => {
  const spaces = (count: number) => " ".repeat(count);
  const refused = (chunks: string[]) =>
    assert.throws(
      () => readIn(chunks),
      (error: AasError) => error.kind === "syntax" && /more than 1024 KiB of whitespace/.test(error.message),
    );
  // 400 MiB of spaces between tokens took seconds a character at a time: refused at the bound.
  refused([`{"submodels":[${spaces(2 * 1024 * 1024)}]}`]);
  refused(["{", ...Array.from({ length: 40 }, () => spaces(32 * 1024)), '"submodels":[]}']);
  const item = { id: "urn:sm:spaced" };
  assert.deepEqual(readIn([`{${spaces(1024 * 1024)}"submodels":[${JSON.stringify(item)}${spaces(1000)}]}`]).length, 1);
  assert.deepEqual(readIn(["{", spaces(512 * 1024), spaces(512 * 1024), `"submodels":[${JSON.stringify(item)}]}`]), [
    { key: "submodels", index: 0, value: item },
  ]);
});
