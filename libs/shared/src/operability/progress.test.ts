import assert from "node:assert/strict";
import { test } from "node:test";
import { importProgressLines, startProgress } from "./progress.ts";

function recorded(options: { total?: number } = {}) {
  let clock = 0;
  const lines: { fields: Record<string, unknown>; line: string }[] = [];
  const progress = startProgress((fields, line) => lines.push({ fields, line }), {
    task: "building OPC UA address space",
    finished: "built OPC UA address space",
    unit: "elements",
    intervalMs: 3000,
    now: () => clock,
    ...options,
  });
  return { progress, lines, tick: (ms: number) => (clock += ms) };
}

test("a line every interval while the work runs, then the counts and the time", () => {
  const { progress, lines, tick } = recorded({ total: 100_000 });
  for (let i = 0; i < 100; i++) {
    tick(100); // 10 s of work in 100 steps of 1,000 elements
    progress.advance(1000);
  }
  progress.finish("11 identifiables");
  assert.deepEqual(
    lines.map((entry) => entry.line),
    [
      "building OPC UA address space: 30,000 / 100,000 elements",
      "building OPC UA address space: 60,000 / 100,000 elements",
      "building OPC UA address space: 90,000 / 100,000 elements",
      "built OPC UA address space: 100,000 elements, 11 identifiables in 10.0 s",
    ],
  );
  assert.deepEqual(lines[0]!.fields, {
    task: "building OPC UA address space",
    done: 30_000,
    total: 100_000,
    unit: "elements",
  });
  assert.deepEqual(lines[3]!.fields, {
    task: "building OPC UA address space",
    done: 100_000,
    unit: "elements",
    ms: 10_000,
  });
});

test("short work logs only its final line; without a total the lines say so far", () => {
  const short = recorded();
  short.tick(40);
  short.progress.advance(156);
  short.progress.finish();
  assert.deepEqual(
    short.lines.map((entry) => entry.line),
    ["built OPC UA address space: 156 elements in 40 ms"],
  );
  const open = recorded();
  open.tick(3500);
  open.progress.advance(20_000);
  assert.equal(open.lines[0]!.line, "building OPC UA address space: 20,000 elements so far");
  // Work that learns its count only at the end (one command loading everything) gives it to finish.
  const oneStep = recorded();
  oneStep.tick(2500);
  oneStep.progress.finish("3 shells", 156);
  assert.deepEqual(oneStep.lines, [
    {
      fields: { task: "building OPC UA address space", done: 156, unit: "elements", ms: 2500 },
      line: "built OPC UA address space: 156 elements, 3 shells in 2.5 s",
    },
  ]);
});

test("import progress lines only while the start-up load runs, counted against its total", async () => {
  const lines: string[] = [];
  const importing = importProgressLines((_fields, line) => lines.push(line), "loading the model files");
  importing.onCommit(1, 5); // a POST /import while nothing loads: no line
  await importing.during(async () => {
    for (let written = 1; written <= 5; written++) {
      await new Promise((resolve) => setTimeout(resolve, written === 3 ? 3100 : 0));
      importing.onCommit(written, 5);
    }
  });
  importing.onCommit(1, 5);
  assert.deepEqual(lines, ["loading the model files: 3 / 5 shells, submodels and concept descriptions"]);
});

test("import progress lines while the files are read and checked too, before anything is written", async () => {
  const lines: string[] = [];
  const importing = importProgressLines((_fields, line) => lines.push(line), "loading the model files");
  await importing.during(async () => {
    for (let read = 1; read <= 4; read++) {
      await new Promise((resolve) => setTimeout(resolve, read === 2 ? 3100 : 0));
      importing.onCommit(read, undefined, "reading");
    }
    for (let written = 1; written <= 4; written++) {
      await new Promise((resolve) => setTimeout(resolve, written === 3 ? 3100 : 0));
      importing.onCommit(written, 4, "writing");
    }
  });
  assert.deepEqual(lines, [
    "loading the model files: reading and checking: 2 shells, submodels and concept descriptions so far",
    "loading the model files: 3 / 4 shells, submodels and concept descriptions",
  ]);
});
