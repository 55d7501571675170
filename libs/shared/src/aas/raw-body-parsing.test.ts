import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";

/**
 * A request body goes through parseJsonText (or parseJsonLossless), which counts its depth before a
 * parser builds it: each of four places that called JSON.parse on a raw body to peek at one member
 * (an operation's clientTimeoutDuration, a package's aasIds, the access rules' semanticId, idShort
 * and id) let 60 MB of "[[[…" hold the event loop ~3 s and take ~3 GB before the handler's own check
 * refused it (black-box finding). This keeps the pattern out of the code that reads requests.
 */
const ROOT = new URL("../../../..", import.meta.url).pathname;
const SCANNED = ["libs/shared/src/engine", "services/http-gateway/src", "services/model-store/src"];
/** JSON.parse of a raw text that is not a request body, each with why. */
const ALLOWED = new Map([
  // A query parameter's value: bounded by the URL length (414 beyond it).
  ["libs/shared/src/engine/reference-filter.ts", 1],
]);

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "test-support" && name !== "node_modules" && name !== "dist") yield* sources(path);
    } else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) yield path;
  }
}

test("no code that reads requests calls JSON.parse on a raw body or text", () => {
  const found: string[] = [];
  for (const dir of SCANNED)
    for (const file of sources(join(ROOT, dir))) {
      const count = (readFileSync(file, "utf8").match(/JSON\.parse\((?:body|text)\b/g) ?? []).length;
      const name = relative(ROOT, file);
      if (count > (ALLOWED.get(name) ?? 0)) found.push(`${name}: ${count}`);
    }
  assert.deepEqual(found, [], "use parseJsonText (depth first) for these");
});
