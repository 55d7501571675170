import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ERROR_CODES, type StoreClient } from "@twinport/shared";
import type { Hono } from "hono";
import { createHttpApp } from "./create-http-app.ts";
import { httpStatusOf } from "./http/error-status.ts";
import { httpEndpointSettings } from "./http-endpoint-settings.ts";
import { assertResult, call } from "./test-support/call.ts";
import { b64, type ExampleStore, exampleStore, SHELL_1, SUBMODEL_1 } from "./test-support/example-store.ts";

describe("createHttpApp: routing, errors and headers", () => {
  let example: ExampleStore;
  before(async () => {
    example = await exampleStore();
  });
  after(() => example.close());
  const app = (overrides: Parameters<typeof httpEndpointSettings>[0] = {}, store?: StoreClient) =>
    createHttpApp({ store: store ?? example.store, settings: httpEndpointSettings(overrides) });

  it("is a Hono app", () => {
    const typed: Hono = app();
    assert.equal(typeof typed.fetch, "function");
  });

  it("answers 400 for unknown paths under /api/v3.0 and 404 outside it, both with a Result body", async () => {
    for (const path of [
      "/api/v3.0",
      "/api/v3.0/",
      "/api/v3.0/nothing",
      "/api/v3.0/nothing/",
      "/api/v3.0/shells//",
      `/api/v3.0/shells/${b64(SHELL_1)}/extra/segments`,
      "/api/v3.0/concept-descriptions/x/y/z",
    ]) {
      assertResult(await call(app(), "GET", path), 400);
    }
    for (const path of ["/shells", "/api/v3.1/shells", "/api/v3/shells", "/favicon.ico"]) {
      assertResult(await call(app(), "GET", path), 404);
    }
    // "/" leads to the web console where it is served (console-routes.ts), and is nothing without it.
    assertResult(await call(app({ consoleEnabled: false }), "GET", "/"), 404);
    assertResult(await call(app({ consoleEnabled: false }), "GET", "/console/"), 404);
  });

  it("FA³ST's pathPrefix serves the API under the prefix as well as under /api/v3.0", async () => {
    const shell = `/shells/${b64(SHELL_1)}`;
    const prefixed = app({ pathPrefix: "/aas" });
    for (const path of [`/aas${shell}`, `/aas${shell}/`, `/api/v3.0${shell}`, "/aas/shells", "/aas/description"]) {
      assert.equal((await call(prefixed, "GET", path)).status, 200, path);
    }
    // Under the prefix, an unknown path is an unknown API path (400); outside it, still 404.
    // Named as the client sent it, not as it is routed (/api/v3.0/nothing).
    assertResult(await call(prefixed, "GET", "/aas/nothing"), 400, /^\/aas\/nothing is not a path/);
    assertResult(await call(prefixed, "GET", "/aasx/shells"), 404);
    assertResult(await call(prefixed, "GET", "/shells"), 404);
    // "" (and "/") serve the API at the root.
    const atRoot = app({ pathPrefix: "" });
    assert.equal((await call(atRoot, "GET", shell)).status, 200);
    assert.equal((await call(atRoot, "GET", `/api/v3.0${shell}`)).status, 200);
    // The web console stays at /console/ with the API at the root, and / still leads there.
    assert.equal((await call(atRoot, "GET", "/console/")).status, 200);
    assert.equal((await call(atRoot, "GET", "/")).status, 302);
    assert.equal((await call(atRoot, "GET", "/console")).status, 301);
    // Without a prefix (or FA³ST's default) the root serves nothing.
    assertResult(await call(app({ pathPrefix: "/api/v3.0" }), "GET", shell), 404);
  });

  it("a Location names the resource under the prefix the client used", async () => {
    // Behind a proxy that forwards only the prefix, /api/v3.0 Locations were unreachable (a
    // black-box finding; the 202/302 of operations kept the prefix already).
    const prefixed = app({ pathPrefix: "/aas" });
    const atRoot = app({ pathPrefix: "" });
    const sm = (id: string) => JSON.stringify({ modelType: "Submodel", id, idShort: "L" });
    const made = [
      [prefixed, "/aas/submodels", "urn:loc:1", `/aas/submodels/${b64("urn:loc:1")}`],
      [prefixed, "/api/v3.0/submodels", "urn:loc:2", `/api/v3.0/submodels/${b64("urn:loc:2")}`],
      [atRoot, "/submodels", "urn:loc:3", `/submodels/${b64("urn:loc:3")}`],
    ] as const;
    for (const [target, path, id, location] of made) {
      const created = await call(target, "POST", path, { body: sm(id) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get("location"), location);
    }
    const element = JSON.stringify({ modelType: "Property", idShort: "P", valueType: "xs:int", value: "1" });
    const inside = await call(prefixed, "POST", `/aas/submodels/${b64("urn:loc:1")}/submodel-elements`, {
      body: element,
    });
    assert.equal(inside.status, 201, inside.text);
    assert.equal(inside.headers.get("location"), `/aas/submodels/${b64("urn:loc:1")}/submodel-elements/P`);
  });

  it("maps every store error code to exactly one status", () => {
    const expected: Record<string, number> = {
      "bad-request": 400,
      validation: 400,
      forbidden: 403,
      "not-found": 404,
      conflict: 409,
      "precondition-failed": 412,
      "method-not-allowed": 405,
      "not-acceptable": 406,
      "payload-too-large": 413,
      "unsupported-media-type": 415,
      unprocessable: 422,
      unavailable: 503,
      timeout: 504,
      internal: 500,
    };
    assert.deepEqual(Object.fromEntries(ERROR_CODES.map((code) => [code, httpStatusOf(code)])), expected);
  });

  it("a store that cannot be reached answers 503", async () => {
    const closing = await exampleStore({ load: false });
    await closing.store.close();
    assertResult(await call(app({}, closing.store), "GET", "/api/v3.0/shells"), 503);
    await closing.close();
  });

  it("validation details travel as further messages", async () => {
    const body = JSON.stringify({ modelType: "Property", idShort: "Bad", valueType: "xs:int", value: "not-a-number" });
    const answer = await call(app(), "POST", `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements`, { body });
    assertResult(answer, 400);
    assert.ok(answer.json.messages.every((message: { messageType: string }) => message.messageType === "Error"));
  });

  it("an exception in the gateway is a 500 Result, with the stack only when includeErrorDetails is true", async () => {
    const throwing: StoreClient = {
      execute: async () => {
        throw new Error("secret internals");
      },
      close: async () => {},
    };
    const hidden = await call(app({ includeErrorDetails: false }, throwing), "GET", "/api/v3.0/shells");
    assertResult(hidden, 500);
    assert.equal(hidden.json.messages.length, 1);
    assert.doesNotMatch(hidden.text, /secret internals/);
    const shown = await call(app({ includeErrorDetails: true }, throwing), "GET", "/api/v3.0/shells");
    assertResult(shown, 500);
    assert.equal(shown.json.messages.length, 2);
    assert.equal(shown.json.messages[1].messageType, "Exception");
    assert.match(shown.json.messages[1].text, /secret internals[\s\S]*at /);
  });

  it("includeErrorDetails adds the stack of where a 4xx was raised as an Exception message (spec §7.1); off, nothing", async () => {
    for (const [path, status] of [
      [`/api/v3.0/shells/${b64("urn:none")}`, 404],
      ["/api/v3.0/shells/%%", 400],
      [`/api/v3.0/shells/${b64(SHELL_1)}?level=deep`, 400],
    ] as const) {
      const answer = await call(app({ includeErrorDetails: true }), "GET", path);
      assertResult(answer, status);
      assert.deepEqual(
        answer.json.messages.map((message: { messageType: string }) => message.messageType),
        ["Error", "Exception"],
        path,
      );
      assert.match(answer.json.messages[1].text, /\n\s+at /);
      const plain = await call(app(), "GET", path);
      assertResult(plain, status);
      assert.equal(plain.json.messages.length, 1);
    }
  });

  it("X-Correlation-Id: echoed when given, generated when absent or unusable", async () => {
    const given = await call(app(), "GET", "/api/v3.0/shells", { headers: { "X-Correlation-Id": "abc-123" } });
    assert.equal(given.headers.get("x-correlation-id"), "abc-123");
    const generated = await call(app(), "GET", "/api/v3.0/shells");
    assert.match(generated.headers.get("x-correlation-id") ?? "", /^[0-9a-f-]{36}$/);
    const tooLong = await call(app(), "GET", "/api/v3.0/shells", { headers: { "X-Correlation-Id": "x".repeat(200) } });
    assert.match(tooLong.headers.get("x-correlation-id") ?? "", /^[0-9a-f-]{36}$/);
    const onError = await call(app(), "GET", "/api/v3.0/nothing", { headers: { "X-Correlation-Id": "err-1" } });
    assert.equal(onError.headers.get("x-correlation-id"), "err-1");
  });

  it("a write carries origin and correlation id into its event; a custom origin is used", async () => {
    const body = JSON.stringify({
      modelType: "AssetAdministrationShell",
      id: "urn:x:origin",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset" },
    });
    const posted = await call(
      createHttpApp({ store: example.store, settings: httpEndpointSettings(), origin: "http-test" }),
      "POST",
      "/api/v3.0/shells",
      { body, headers: { "X-Correlation-Id": "c-9" } },
    );
    assert.equal(posted.status, 201, posted.text);
    const event = example.events.at(-1)!;
    assert.equal(event.kind, "shell.created");
    assert.equal(event.origin, "http-test");
    assert.equal(event.correlationId, "c-9");
  });

  it("413 for a body over maxRequestBodySize, declared or streamed; bodies at the limit pass", async () => {
    const small = app({ maxRequestBodySize: 200 });
    const body = JSON.stringify({
      modelType: "AssetAdministrationShell",
      id: "urn:x:" + "y".repeat(300),
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset" },
    });
    const declared = await small.request("/api/v3.0/shells", {
      method: "POST",
      body,
      headers: { "Content-Length": String(Buffer.byteLength(body)), "Content-Type": "application/json" },
    });
    assert.equal(declared.status, 413);
    assert.equal(declared.headers.get("connection"), "close");
    assertResult(
      { status: 413, headers: declared.headers, text: "", json: await declared.json() },
      413,
      /maxRequestBodySize/,
    );
    const chunks = [body.slice(0, 100), body.slice(100)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await small.request("/api/v3.0/shells", {
      method: "POST",
      body: stream,
      duplex: "half",
      headers: { "Content-Type": "application/json" },
    } as RequestInit);
    assert.equal(streamed.status, 413);
    const fits = JSON.stringify({
      modelType: "AssetAdministrationShell",
      id: "urn:x:fits",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset" },
    });
    assert.equal(
      (
        await app({ maxRequestBodySize: Buffer.byteLength(fits) }).request("/api/v3.0/shells", {
          method: "POST",
          body: fits,
          headers: { "Content-Type": "application/json" },
        })
      ).status,
      201,
    );
  });

  it("profiles: operations outside them answer 405 on served paths and 404 on unserved paths", async () => {
    const readOnly = app({ profiles: ["SUBMODEL_REPOSITORY_READ"] });
    assert.equal((await call(readOnly, "GET", "/api/v3.0/submodels")).status, 200);
    assert.equal(
      (await call(readOnly, "GET", `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`))
        .status,
      200,
    );
    assertResult(await call(readOnly, "POST", "/api/v3.0/submodels", { body: "{}" }), 405);
    assertResult(
      await call(
        readOnly,
        "PATCH",
        `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`,
        { body: "1" },
      ),
      405,
    );
    assertResult(await call(readOnly, "DELETE", `/api/v3.0/submodels/${b64(SUBMODEL_1)}`), 405);
    assertResult(await call(readOnly, "GET", "/api/v3.0/shells"), 404);
    assertResult(await call(readOnly, "GET", `/api/v3.0/shells/${b64(SHELL_1)}/submodels/${b64(SUBMODEL_1)}`), 404);
    const shells = app({ profiles: ["AAS_REPOSITORY_FULL"] });
    assert.equal(
      (await call(shells, "GET", `/api/v3.0/shells/${b64(SHELL_1)}/submodels/${b64(SUBMODEL_1)}`)).status,
      200,
    );
    assertResult(await call(shells, "GET", "/api/v3.0/submodels"), 404);
    const value = app({ profiles: ["SUBMODEL_VALUE"] });
    assert.equal((await call(value, "GET", `/api/v3.0/submodels/${b64(SUBMODEL_1)}`)).status, 200);
    assertResult(await call(value, "GET", `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements`), 404);
  });

  it("CORS off by default: no Access-Control headers, OPTIONS is not a method of the API", async () => {
    const plain = await call(app(), "GET", "/api/v3.0/shells", { headers: { Origin: "https://ui.example" } });
    assert.equal(plain.headers.get("access-control-allow-origin"), null);
    assertResult(
      await call(app(), "OPTIONS", "/api/v3.0/shells", {
        headers: { Origin: "https://ui.example", "Access-Control-Request-Method": "POST" },
      }),
      405,
    );
  });

  it("CORS on: preflight answered with the configured headers, which responses carry too", async () => {
    const cors = app({
      corsEnabled: true,
      corsAllowedOrigin: "https://ui.example",
      corsAllowedMethods: "GET, POST, PATCH",
      corsAllowedHeaders: "Content-Type, If-Match",
      corsExposedHeaders: "Location, ETag",
      corsMaxAge: 600,
      corsAllowCredentials: true,
    });
    const preflight = await call(cors, "OPTIONS", `/api/v3.0/shells/${b64(SHELL_1)}`, {
      headers: { Origin: "https://ui.example", "Access-Control-Request-Method": "PATCH" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "https://ui.example");
    assert.equal(preflight.headers.get("access-control-allow-methods"), "GET,POST,PATCH");
    assert.equal(preflight.headers.get("access-control-allow-headers"), "Content-Type,If-Match");
    assert.equal(preflight.headers.get("access-control-max-age"), "600");
    assert.equal(preflight.headers.get("access-control-allow-credentials"), "true");
    const get = await call(cors, "GET", `/api/v3.0/shells/${b64(SHELL_1)}`, {
      headers: { Origin: "https://ui.example" },
    });
    assert.equal(get.status, 200);
    assert.equal(get.headers.get("access-control-allow-origin"), "https://ui.example");
    assert.equal(get.headers.get("access-control-expose-headers"), "Location,ETag");
    const error = await call(cors, "GET", "/api/v3.0/shells/%%", { headers: { Origin: "https://ui.example" } });
    assert.equal(error.headers.get("access-control-allow-origin"), "https://ui.example");
    const stranger = await call(cors, "GET", "/api/v3.0/shells", { headers: { Origin: "https://evil.example" } });
    assert.equal(stranger.headers.get("access-control-allow-origin"), null);
    const wildcard = await call(app({ corsEnabled: true }), "GET", "/api/v3.0/shells", {
      headers: { Origin: "https://any.example" },
    });
    assert.equal(wildcard.headers.get("access-control-allow-origin"), "*");
    // corsExposedHeaders defaults to empty (spec §2.3): nothing is exposed that was not configured.
    assert.equal(wildcard.headers.get("access-control-expose-headers"), null);
  });

  it("refuses a state-changing request that another site's page makes a browser send (CSRF), and only that", async () => {
    const fresh = await exampleStore();
    try {
      const open = createHttpApp({ store: fresh.store, settings: httpEndpointSettings({}) });
      const shell = `/api/v3.0/shells/${b64(SHELL_1)}`;
      const host = { Host: "aas.example:8443" };
      const crossSite = { ...host, Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };
      // GET /reset (and its pathPrefix or percent-encoded forms) from a foreign page: refused, nothing deleted.
      for (const path of ["/api/v3.0/reset", "/api/v3.0/reset/", "/api/v3.0/r%65set"]) {
        assertResult(await call(open, "GET", path, { headers: crossSite }), 403, /another site's page/);
      }
      assertResult(
        await call(open, "GET", "/api/v3.0/reset", { headers: { ...host, "Sec-Fetch-Site": "same-site" } }),
        403,
      );
      assert.equal((await call(open, "GET", shell)).status, 200);
      // A form POST (multipart: no preflight) and a DELETE, marked cross-site by the browser.
      const form =
        '--b\r\nContent-Disposition: form-data; name="file"; filename="m.json"\r\nContent-Type: application/json\r\n\r\n{}\r\n--b--\r\n';
      assertResult(
        await call(open, "POST", "/api/v3.0/import", {
          body: form,
          headers: { ...crossSite, "Content-Type": "multipart/form-data; boundary=b" },
        }),
        403,
      );
      assertResult(await call(open, "DELETE", shell, { headers: crossSite }), 403);
      // A browser too old for Sec-Fetch-Site: its Origin against Host; an opaque origin is foreign.
      assertResult(await call(open, "DELETE", shell, { headers: { ...host, Origin: "https://evil.example" } }), 403);
      assertResult(await call(open, "DELETE", shell, { headers: { ...host, Origin: "null" } }), 403);
      assert.equal((await call(open, "GET", shell)).status, 200, "nothing was deleted");
      // Reads from anywhere stay as they were (CORS decides whether the page may see them).
      assert.equal((await call(open, "GET", shell, { headers: crossSite })).status, 200);
      // This server's own pages (the console), the address bar, and clients that are not browsers.
      const put = { body: (await call(open, "GET", shell)).text };
      assert.equal(
        (await call(open, "PUT", shell, { ...put, headers: { ...host, "Sec-Fetch-Site": "same-origin" } })).status,
        204,
      );
      assert.equal(
        (await call(open, "PUT", shell, { ...put, headers: { ...host, Origin: "https://aas.example:8443" } })).status,
        204,
      );
      assert.equal((await call(open, "PUT", shell, put)).status, 204);
      assert.equal(
        (await call(open, "GET", "/api/v3.0/reset", { headers: { ...host, "Sec-Fetch-Site": "none" } })).status,
        204,
      );
      // An origin that the CORS settings let in may write; another still may not.
      const withCors = (corsAllowedOrigin: string) =>
        createHttpApp({ store: fresh.store, settings: httpEndpointSettings({ corsEnabled: true, corsAllowedOrigin }) });
      const ui = { ...host, Origin: "https://ui.example", "Sec-Fetch-Site": "cross-site" };
      assert.equal((await call(withCors("https://ui.example"), "DELETE", shell, { headers: ui })).status, 404);
      assertResult(await call(withCors("https://ui.example"), "DELETE", shell, { headers: crossSite }), 403);
      assert.equal((await call(withCors("*"), "DELETE", shell, { headers: crossSite })).status, 404);
    } finally {
      await fresh.close();
    }
  });

  it("HEAD /reset is 405 and deletes nothing (Hono would run the GET handler for it)", async () => {
    const fresh = await exampleStore();
    try {
      const open = createHttpApp({ store: fresh.store, settings: httpEndpointSettings({}) });
      const head = await call(open, "HEAD", "/api/v3.0/reset");
      assert.equal(head.status, 405);
      assert.equal(head.headers.get("allow"), "GET, DELETE");
      assert.equal((await call(open, "GET", `/api/v3.0/shells/${b64(SHELL_1)}`)).status, 200, "nothing was deleted");
      const put = await call(open, "PUT", "/api/v3.0/reset");
      assertResult(put, 405);
      assert.equal(put.headers.get("allow"), "GET, DELETE");
      // HEAD of an ordinary GET is still served.
      assert.equal((await call(open, "HEAD", `/api/v3.0/shells/${b64(SHELL_1)}`)).status, 200);
    } finally {
      await fresh.close();
    }
  });

  it("responses carry no server software or version headers", async () => {
    const answer = await call(app(), "GET", `/api/v3.0/shells/${b64(SHELL_1)}`);
    assert.deepEqual([...answer.headers.keys()].sort(), ["content-type", "etag", "x-correlation-id"]);
  });
});
