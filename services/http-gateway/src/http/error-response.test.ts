import assert from "node:assert/strict";
import { test } from "node:test";
import { ANONYMOUS, type Principal } from "@twinport/shared";
import { Hono } from "hono";
import { errorResponse } from "./error-response.ts";

/** An app whose only route answers a refusal for the given caller (none: no security configured). */
function refusing(principal: Principal | undefined): Hono {
  const app = new Hono();
  app.get("/", (c) => {
    if (principal) c.set("principal", principal);
    return errorResponse(
      c,
      { code: "forbidden", message: "Not allowed: READ on shell 'x'" },
      { includeErrorDetails: false },
    );
  });
  return app;
}

test("a refused authenticated caller gets 403 with the Result body and no challenge", async () => {
  const res = await refusing({ kind: "user", name: "alice", roles: [] }).request("/");
  assert.equal(res.status, 403);
  assert.equal(res.headers.get("www-authenticate"), null);
  const body = (await res.json()) as { messages: { code: string; text: string }[] };
  assert.equal(body.messages[0]!.code, "403");
});

test("a refused anonymous caller gets 401 with a Bearer challenge and the Result body", async () => {
  const res = await refusing(ANONYMOUS).request("/");
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="twinport"');
  const body = (await res.json()) as { messages: { code: string; text: string }[] };
  assert.deepEqual(
    body.messages.map((m) => [m.code, m.text]),
    [["401", "Not allowed: READ on shell 'x'"]],
  );
});
