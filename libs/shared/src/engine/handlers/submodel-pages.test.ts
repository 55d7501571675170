import assert from "node:assert/strict";
import { test } from "node:test";
import type { Paged } from "../../contracts/index.ts";
import { testEngine } from "./test-support/handlers.ts";

/** Every page of GetAllSubmodels, following cursors: the ids, page by page. */
async function walk(budget: number | undefined, limit?: number): Promise<string[][]> {
  const t = await testEngine(budget === undefined ? {} : { pageBudgetChars: budget });
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page: { limit?: number; cursor?: string } = {};
    if (limit !== undefined) page.limit = limit;
    if (cursor !== undefined) page.cursor = cursor;
    const value = (await t.ok("GetAllSubmodels", { page })).value as Paged<{ id: string }>;
    pages.push(value.items.map((item) => item.id));
    cursor = value.cursor;
  } while (cursor !== undefined);
  return pages;
}

test("a page of big submodels ends early with a cursor once it holds the budget; following it lists each once", async () => {
  const whole = await walk(undefined);
  assert.equal(whole.length, 1);
  const all = whole[0]!;
  assert.ok(all.length >= 3, all.join());
  // A budget of one character: every page holds one submodel (a page never ends empty).
  const single = await walk(1);
  assert.deepEqual(
    single,
    all.map((id) => [id]),
  );
  // A budget of a few submodels' records (the fixture's hold a few thousand characters each): more
  // than one page, nothing lost or repeated, order kept.
  const some = await walk(8000);
  assert.ok(some.length > 1 && some.length < all.length, JSON.stringify(some.map((p) => p.length)));
  assert.deepEqual(some.flat(), all);
  // With a limit as well, whichever ends the page first.
  const limited = await walk(8000, 2);
  assert.deepEqual(limited.flat(), all);
  assert.ok(limited.every((page) => page.length <= 2));
});
