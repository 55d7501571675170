import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono } from "hono";
import { ApiError } from "./api-error.ts";
import { booleanQuery } from "./boolean-query.ts";

describe("booleanQuery", () => {
  const app = new Hono();
  app.get("/", (c) => c.json({ value: booleanQuery(c, "flag", true) }));
  app.onError((error, c) =>
    c.json({ error: error instanceof ApiError ? error.error.code : "other", message: error.message }, 400),
  );

  it("reads true and false in any letter case, and the default when absent", async () => {
    for (const word of ["true", "True", "TRUE", "tRuE"])
      assert.deepEqual(await (await app.request(`/?flag=${word}`)).json(), { value: true }, word);
    for (const word of ["false", "False", "FALSE"])
      assert.deepEqual(await (await app.request(`/?flag=${word}`)).json(), { value: false }, word);
    assert.deepEqual(await (await app.request("/")).json(), { value: true });
  });

  it("refuses anything else, and a repeated parameter, as bad requests", async () => {
    for (const query of [
      "flag=1",
      "flag=0",
      "flag=%20true",
      "flag=truee",
      "flag=yes",
      "flag=",
      "flag=%23%23%23",
      "flag=true&flag=false",
    ]) {
      const body = (await (await app.request(`/?${query}`)).json()) as { error: string; message: string };
      assert.equal(body.error, "bad-request", query);
      assert.match(body.message, /flag/);
    }
  });
});
