import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
import { Hono } from "hono";
import { ApiError } from "./api-error.ts";
import { identifierParam } from "./path-params.ts";

describe("identifierParam", () => {
  const app = new Hono();
  app.get("/:id", (c) => c.json({ id: identifierParam(c, "id") }));
  app.onError((error, c) =>
    c.json({ error: error instanceof ApiError ? error.error.code : "other", message: error.message }, 400),
  );
  const get = async (form: string) => (await app.request(`/${form}`)).json();

  it("answers a repeated identifier as the first time (it is remembered, not decoded again)", async () => {
    const id = "urn:example:submodel:ä/1";
    for (let round = 0; round < 3; round++) assert.deepEqual(await get(encodeBase64Url(id)), { id });
    // Padded forms name the same identifier.
    const padded = Buffer.from("ab", "utf8").toString("base64");
    assert.equal(padded.endsWith("="), true);
    assert.deepEqual(await get(padded), { id: "ab" });
    assert.deepEqual(await get(padded.replace("=", "%3D")), { id: "ab" });
  });

  it("refuses a malformed identifier every time, also after valid ones were remembered", async () => {
    assert.deepEqual(await get(encodeBase64Url("a")), { id: "a" });
    for (const form of ["YQ!", "QR", "Y"]) {
      for (let round = 0; round < 2; round++) {
        const answer = (await get(form)) as { error: string; message: string };
        assert.equal(answer.error, "bad-request", `${form}, round ${round}`);
        assert.match(answer.message, /Path parameter \{id\}/);
      }
    }
  });

  it("keeps answering right after more identifiers than it remembers", async () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => `urn:many:${i}`);
    for (const id of ids) assert.equal(((await get(encodeBase64Url(id))) as { id: string }).id, id);
    for (const id of [ids[0]!, ids[4_999]!]) assert.deepEqual(await get(encodeBase64Url(id)), { id });
  });
});
