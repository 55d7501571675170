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

  it("reads true and false, and the default when absent", async () => {
    assert.deepEqual(await (await app.request("/?flag=true")).json(), { value: true });
    assert.deepEqual(await (await app.request("/?flag=false")).json(), { value: false });
    assert.deepEqual(await (await app.request("/")).json(), { value: true });
  });

  it("refuses anything else, and a repeated parameter, as bad requests", async () => {
    for (const query of ["flag=TRUE", "flag=1", "flag=yes", "flag=", "flag=%23%23%23", "flag=true&flag=false"]) {
      const body = (await (await app.request(`/?${query}`)).json()) as { error: string; message: string };
      assert.equal(body.error, "bad-request", query);
      assert.match(body.message, /flag/);
    }
  });
});
