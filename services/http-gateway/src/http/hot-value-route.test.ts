import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { getRequestListener } from "@hono/node-server";
import {
  compileAccessPolicy,
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createMemoryRepository,
  createProcessMetrics,
  type ProcessMetrics,
} from "@twinport/shared";
import { createHttpServing } from "../create-http-app.ts";
import { DEFAULT_HTTP_ENDPOINT_SETTINGS, type HttpEndpointSettings } from "../http-endpoint-settings.ts";
import { b64, EXAMPLE_MODEL_TEXT, type ExampleStore, exampleStore } from "../test-support/example-store.ts";

// The hot route (docs/adr/0045) must answer exactly what the general path answers: the same bytes
// on the wire (status line, headers in order, body), only the Date header and the Result
// timestamps told apart. Two servers share one engine: one tries the hot route first, one never.
// The hot one gathers each turn's store calls (gatherTurns), as embedded mode's endpoint does
// (docs/adr/0056); the distributed gateway's hot route runs them at once.

const SM = b64("https://example.org/submodels/technical-data-1");
const value = (path: string, sm = SM) => `/api/v3.0/submodels/${sm}/submodel-elements/${path}/$value`;

let example: ExampleStore;
let hotPort: number;
let generalPort: number;
let hotMetrics: ProcessMetrics;
let generalMetrics: ProcessMetrics;
const servers: Server[] = [];
/** How many requests the hot route took: a case meant for it that it hands on fails the test. */
let taken = 0;

async function listen(
  settings: HttpEndpointSettings,
  hot: boolean,
  metrics: ProcessMetrics,
  store = example.store,
): Promise<number> {
  const { app, hotRoute } = createHttpServing({ store, settings, metrics, hotRoutes: hot, gatherTurns: hot });
  if (hot) assert.ok(hotRoute, "this endpoint uses the hot route");
  else assert.equal(hotRoute, undefined);
  const general = getRequestListener(app.fetch);
  const server = createServer((incoming, outgoing) => {
    if (hotRoute?.(incoming, outgoing)) taken++;
    else general(incoming, outgoing);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

before(async () => {
  example = await exampleStore();
  const settings: HttpEndpointSettings = {
    ...DEFAULT_HTTP_ENDPOINT_SETTINGS,
    sslEnabled: false,
    maxRequestBodySize: 64,
  };
  hotMetrics = createProcessMetrics("http-gateway");
  generalMetrics = createProcessMetrics("http-gateway");
  hotPort = await listen(settings, true, hotMetrics);
  generalPort = await listen(settings, false, generalMetrics);
});

after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await example.close();
});

/** One raw request on a fresh connection; the raw answer once its declared length has arrived. */
function raw(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    const done = () => {
      socket.destroy();
      resolve(received.toString("latin1"));
    };
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2));
      if (received.length >= end + 4 + (length ? Number(length[1]) : 0)) done();
    });
    socket.on("end", done);
    socket.on("error", reject);
    socket.write(request);
  });
}

interface Ask {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

function requestBytes(port: number, ask: Ask): Buffer {
  const body = ask.body === undefined ? undefined : Buffer.from(ask.body);
  const headers: Record<string, string> = { Host: `127.0.0.1:${port}`, ...ask.headers };
  if (body !== undefined && !Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name)))
    headers["Content-Length"] = String(body.length);
  const head = `${ask.method} ${ask.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, text]) => `${name}: ${text}\r\n`)
    .join("")}\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), body ?? Buffer.alloc(0)]);
}

/** The answer with what legitimately differs between two requests masked. */
function comparable(answer: string, generatedId: boolean): string {
  let text = answer
    .replace(/\r\nDate: [^\r]*/, "\r\nDate: *")
    .replace(/"timestamp":"[^"]*"/g, '"timestamp":"*"')
    .replace(/"\d+"/g, (tag) => (answer.includes(`ETag: ${tag}`) ? '"etag"' : tag));
  if (generatedId) text = text.replace(/X-Correlation-Id: [0-9a-f-]{36}/, "X-Correlation-Id: *");
  return text;
}

/** The same request to both servers (general first, so a write lands on the same state twice). */
async function both(ask: Ask, expectHot: boolean): Promise<{ hot: string; general: string }> {
  const generalAnswer = await raw(generalPort, requestBytes(generalPort, ask));
  const before = taken;
  const hotAnswer = await raw(hotPort, requestBytes(hotPort, ask));
  assert.equal(
    taken - before,
    expectHot ? 1 : 0,
    `hot route ${expectHot ? "not " : ""}taken for ${ask.method} ${ask.path}`,
  );
  // Without a plain token of the client's, each server makes up its own correlation id.
  const given = Object.entries(ask.headers ?? {}).find(([name]) => name.toLowerCase() === "x-correlation-id")?.[1];
  const generatedId = given === undefined || !/^[\x21-\x7e]{1,128}$/.test(given);
  const hot = comparable(hotAnswer, generatedId);
  const general = comparable(generalAnswer, generatedId);
  assert.equal(hot, general, `${ask.method} ${ask.path} ${JSON.stringify(ask.headers ?? {})}`);
  return { hot, general };
}

const id = (n: number) => ({ "X-Correlation-Id": `hot-test-${n}` });

test("GET $value: Properties, other element kinds, nested paths and list items answer the same", async () => {
  const paths = [
    "MaxRotationSpeed",
    "Dimensions.Width",
    "Dimensions.Nested.Depth",
    "Dimensions",
    "Tags",
    "Tags[0]",
    "Tags[7]",
    "ProductName",
    "TemperatureRange",
    "Firmware",
    "Manual",
    "Motor",
    "Links.ManufacturerLink",
    "Links.SpeedToRange",
    "Links.AnnotatedLink",
    "Links.SpeedChanged",
    "Functions.Pumping",
    "Functions.Reset",
    "NoSuchElement",
    "Dimensions.NoSuch",
    "Dimensions..Width",
    "[0]",
    "Dimensions[0]",
    "a'b(c)*+,;=:@~!",
  ];
  for (const [n, path] of paths.entries()) {
    const { hot } = await both({ method: "GET", path: value(path), headers: id(n) }, true);
    if (path === "MaxRotationSpeed") assert.match(hot, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n{"MaxRotationSpeed":5000}$/);
  }
  // A generated correlation id, and one the client gave that is not a plain token.
  await both({ method: "GET", path: value("MaxRotationSpeed") }, true);
  await both({ method: "GET", path: value("MaxRotationSpeed"), headers: { "X-Correlation-Id": "a b" } }, true);
});

test("GET $value: unknown submodels and identifiers that are not base64url answer the same", async () => {
  await both({ method: "GET", path: value("MaxRotationSpeed", b64("urn:nowhere")), headers: id(1) }, true);
  // Not valid base64url (length 4n+1): the general path's 400, handed on.
  await both({ method: "GET", path: value("MaxRotationSpeed", "YWJjZ"), headers: id(2) }, false);
  await both({ method: "GET", path: value("MaxRotationSpeed", "YQ=="), headers: id(3) }, false);
});

test("GET $value: Accept, If-None-Match, queries and other spellings of the path answer the same", async () => {
  const p = value("MaxRotationSpeed");
  await both({ method: "GET", path: p, headers: { ...id(1), Accept: "*/*" } }, true);
  await both({ method: "GET", path: p, headers: { ...id(2), Accept: "application/json" } }, true);
  await both({ method: "GET", path: p, headers: { ...id(3), Accept: "text/html, application/*;q=0.5" } }, true);
  await both({ method: "GET", path: p, headers: { ...id(4), Accept: "" } }, true);
  await both({ method: "GET", path: p, headers: { ...id(5), Accept: "text/html" } }, false);
  await both({ method: "GET", path: p, headers: { ...id(6), "If-None-Match": "*" } }, false);
  await both({ method: "GET", path: p, headers: { ...id(7), "If-None-Match": '"1"' } }, false);
  await both({ method: "HEAD", path: p, headers: id(8) }, false);
  for (const [n, path] of [
    `${p}?level=core`,
    `${p}?extent=withBlobValue`,
    `${p}?level=deep&level=core`,
    `${p}/`,
    p.replace("$value", "%24value"),
    value("Dimensions%2EWidth"),
    value("$metadata"),
    value("."),
    value(".."),
    value("Dimensions.Width").replace("/api/v3.0", "/api/v3.0/"),
  ].entries())
    await both({ method: "GET", path, headers: id(10 + n) }, false);
  await both({ method: "GET", path: p, headers: { ...id(30), Host: "LOCALHOST" } }, false);
  await both({ method: "DELETE", path: p, headers: id(31) }, false);
});

test("PATCH $value: values, refused values, other element kinds and unknown paths answer the same", async () => {
  const json = { "Content-Type": "application/json" };
  const cases: [string, string][] = [
    ["MaxRotationSpeed", "4200"],
    ["MaxRotationSpeed", '"4300"'],
    ["MaxRotationSpeed", "1.5"],
    ["MaxRotationSpeed", '"not a number"'],
    ["MaxRotationSpeed", "{"],
    ["MaxRotationSpeed", "null"],
    ["Dimensions.Width", "0.5"],
    ["Dimensions.Nested.Depth", '"0.7"'],
    ["Tags[0]", '"pump"'],
    ["ProductName", '[{"en":"Pump"}]'],
    ["TemperatureRange", '{"min":1,"max":2}'],
    ["Dimensions", '{"Width":0.3}'],
    ["Functions.Reset", "1"],
    ["NoSuchElement", "1"],
    ["Tags[9]", '"x"'],
  ];
  for (const [n, [path, body]] of cases.entries()) {
    await both({ method: "PATCH", path: value(path), headers: { ...id(n), ...json }, body }, true);
    // The state both left behind reads the same.
    await both({ method: "GET", path: value(path), headers: id(100 + n) }, true);
  }
  await both({ method: "PATCH", path: value("MaxRotationSpeed", b64("urn:nowhere")), headers: json, body: "1" }, true);
  await both(
    {
      method: "PATCH",
      path: value("MaxRotationSpeed"),
      headers: { ...json, "Content-Type": "application/json; charset=utf-8" },
      body: "7",
    },
    true,
  );
  await both({ method: "PATCH", path: value("MaxRotationSpeed"), headers: { ...id(50), ...json }, body: "  " }, true);
  await both(
    {
      method: "PATCH",
      path: value("MaxRotationSpeed"),
      headers: { ...id(51), ...json },
      body: Buffer.from([0x22, 0xff, 0x22]),
    },
    true,
  );
});

test("PATCH $value: bodies and headers the general path decides on answer the same", async () => {
  const p = value("MaxRotationSpeed");
  const json = { "Content-Type": "application/json" };
  await both({ method: "PATCH", path: p, headers: { ...id(1), "Content-Type": "text/plain" }, body: "1" }, false);
  await both({ method: "PATCH", path: p, headers: id(2), body: "1" }, false);
  await both({ method: "PATCH", path: p, headers: { ...id(3), ...json }, body: "" }, false);
  await both({ method: "PATCH", path: p, headers: { ...id(4), ...json }, body: "1".repeat(65) }, false);
  await both(
    {
      method: "PATCH",
      path: p,
      headers: { ...id(5), ...json, "Transfer-Encoding": "chunked" },
      body: "1\r\n9\r\n0\r\n\r\n",
    },
    false,
  );
  await both({ method: "PATCH", path: p, headers: { ...id(6), ...json, "Idempotency-Key": "k-1" }, body: "11" }, false);
  await both({ method: "PATCH", path: `${p}?level=core`, headers: { ...id(7), ...json }, body: "12" }, false);
  await both({ method: "PATCH", path: `${p}?level=deep`, headers: { ...id(8), ...json }, body: "13" }, false);
  await both({ method: "PATCH", path: value("$path"), headers: { ...id(9), ...json }, body: "13" }, false);
  // Two Content-Lengths: Node keeps the first, the general path reads both joined. (Two Hosts never
  // reach the hot route: the endpoint refuses them before dispatch, request-line-checks.ts, tested
  // in start-http-endpoint.test.ts.)
  for (const [n, extra] of ["Content-Length: 2\r\nContent-Length: 2\r\n"].entries()) {
    const request = (port: number) =>
      Buffer.from(
        `PATCH ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Correlation-Id: twice-${n}\r\nContent-Type: application/json\r\n${extra}\r\n15`,
      );
    const before = taken;
    const hot = await raw(hotPort, request(hotPort));
    assert.equal(taken, before, `handed on: ${extra}`);
    assert.equal(comparable(hot, false), comparable(await raw(generalPort, request(generalPort)), false));
  }
  // Two Content-Types: Node keeps the first, the general path reads both joined (415).
  const twice = (port: number) =>
    Buffer.from(
      `PATCH ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Correlation-Id: twice\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n14`,
    );
  const before = taken;
  const hot = await raw(hotPort, twice(hotPort));
  assert.equal(taken, before, "two Content-Types are handed on");
  assert.equal(comparable(hot, false), comparable(await raw(generalPort, twice(generalPort)), false));
});

test("the hot route counts requests and logs them as the general path does", async () => {
  const series = async (metrics: ProcessMetrics) =>
    (await metrics.render()).body
      .split("\n")
      .filter((line) => line.startsWith("twinport_http_requests_total") && line.includes("$value"))
      .sort()
      .join("\n");
  const hot = await series(hotMetrics);
  assert.match(hot, /route="\/api\/v3\.0\/submodels\/:submodelIdentifier\/submodel-elements\/:idShortPath\/\$value"/);
  assert.equal(hot, await series(generalMetrics));
});

test("an endpoint with CORS, client certificates or no Submodel Repository profile has no hot route; one with SNI checks or rules has", () => {
  const settings: HttpEndpointSettings = { ...DEFAULT_HTTP_ENDPOINT_SETTINGS, sslEnabled: false };
  const store = example.store;
  assert.ok(createHttpServing({ store, settings }).hotRoute);
  assert.equal(createHttpServing({ store, settings: { ...settings, corsEnabled: true } }).hotRoute, undefined);
  // The SNI check it makes itself (start-http-endpoint.test.ts compares both paths over TLS).
  assert.ok(createHttpServing({ store, settings: { ...settings, sslEnabled: true, sniEnabled: true } }).hotRoute);
  assert.equal(
    createHttpServing({ store, settings: { ...settings, profiles: ["AAS_REPOSITORY_FULL"] } }).hotRoute,
    undefined,
  );
  // With a security section: for anonymous requests; not with client certificates (checked per TLS socket).
  assert.ok(createHttpServing({ store, settings, security: { authentication: {}, rules: [] } as never }).hotRoute);
  assert.equal(
    createHttpServing({
      store,
      settings,
      security: { authentication: { clientCertificates: { trustedCaFiles: [] } }, rules: [] } as never,
    }).hotRoute,
    undefined,
  );
});

test("PATCH $value: If-Match and If-None-Match answer the same, checked in the commit", async () => {
  const p = value("Dimensions.Height");
  const json = { "Content-Type": "application/json" };
  const etag = async (port: number) =>
    /\r\nETag: ("\d+")/.exec(await raw(port, requestBytes(port, { method: "GET", path: p })))![1]!;
  await both({ method: "PATCH", path: p, headers: { ...id(1), ...json, "If-Match": '"1"' }, body: "0.1" }, true);
  await both({ method: "PATCH", path: p, headers: { ...id(2), ...json, "If-Match": 'W/"1", "2"' }, body: "0.1" }, true);
  await both({ method: "PATCH", path: p, headers: { ...id(3), ...json, "If-None-Match": "*" }, body: "0.1" }, true);
  await both({ method: "PATCH", path: p, headers: { ...id(4), ...json, "If-Match": "*" }, body: "0.2" }, true);
  // The current ETag passes on either server; the one before the other server's write no longer does.
  const current = await etag(generalPort);
  const general = await raw(
    generalPort,
    requestBytes(generalPort, {
      method: "PATCH",
      path: p,
      headers: { ...id(5), ...json, "If-Match": current },
      body: "0.3",
    }),
  );
  assert.match(general, /^HTTP\/1\.1 204 /);
  const hot = await raw(
    hotPort,
    requestBytes(hotPort, {
      method: "PATCH",
      path: p,
      headers: { ...id(5), ...json, "If-Match": current },
      body: "0.3",
    }),
  );
  assert.match(hot, /^HTTP\/1\.1 412 /);
  const fresh = await raw(
    hotPort,
    requestBytes(hotPort, {
      method: "PATCH",
      path: p,
      headers: { ...json, "If-Match": await etag(hotPort) },
      body: "0.4",
    }),
  );
  assert.match(fresh, /^HTTP\/1\.1 204 /);
});

test("PATCH $value: a body that arrived whole before the client went is written; a cut one is not", async () => {
  const p = value("Dimensions.Width");
  const read = async (port: number) =>
    (await raw(port, requestBytes(port, { method: "GET", path: p }))).split("\r\n\r\n")[1];
  /** Sends the request and closes the connection at once, without waiting for an answer. */
  const sendAndGo = (port: number, request: Buffer) =>
    new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => socket.end(request));
      socket.on("close", () => resolve());
      socket.on("error", () => resolve());
      socket.resume();
    });
  const whole = (port: number) =>
    Buffer.from(
      `PATCH ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n0.75`,
    );
  const before = taken;
  await sendAndGo(generalPort, whole(generalPort));
  await sendAndGo(hotPort, whole(hotPort));
  assert.equal(taken, before + 1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await read(generalPort), '{"Width":0.75}');
  assert.equal(await read(hotPort), '{"Width":0.75}');
  const cut = (port: number) =>
    Buffer.from(
      `PATCH ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n0.12`,
    );
  await sendAndGo(generalPort, cut(generalPort));
  await sendAndGo(hotPort, cut(hotPort));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await read(generalPort), '{"Width":0.75}');
  assert.equal(await read(hotPort), '{"Width":0.75}');
});

test("with a security section: anonymous requests answer the same (granted, refused with 401), credentials go the general path", async () => {
  // The engine checks the rules (docs/adr/0024): anonymous may read technical-data-1 and write one Property of it.
  const rules = [
    {
      subjects: [{ anonymous: true }],
      rights: ["READ"],
      objects: [{ submodels: "https://example.org/submodels/technical-data-1" }],
    },
    {
      subjects: [{ anonymous: true }],
      rights: ["UPDATE"],
      objects: [{ submodels: "https://example.org/submodels/technical-data-1", idShortPath: "MaxRotationSpeed" }],
    },
  ];
  const repository = createMemoryRepository();
  const bus = createInProcessEventBus();
  const engine = createEngine({ repository, bus, access: compileAccessPolicy(rules as never) });
  const store = createDirectStoreClient(engine);
  const loaded = await store.execute({ type: "LoadEnvironment", params: { body: EXAMPLE_MODEL_TEXT } });
  assert.ok(loaded.ok);
  const security = { authentication: {}, roleAssignments: [], rules } as never;
  const settings: HttpEndpointSettings = { ...DEFAULT_HTTP_ENDPOINT_SETTINGS, sslEnabled: false };
  const metrics = createProcessMetrics("http-gateway");
  const serve = async (hot: boolean) => {
    const { app, hotRoute } = createHttpServing({ store, settings, metrics, security, hotRoutes: hot });
    assert.equal(hotRoute !== undefined, hot);
    const general = getRequestListener(app.fetch);
    const server = createServer((incoming, outgoing) => {
      if (hotRoute?.(incoming, outgoing)) taken++;
      else general(incoming, outgoing);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  };
  const [savedHot, savedGeneral] = [hotPort, generalPort];
  try {
    hotPort = await serve(true);
    generalPort = await serve(false);
    const json = { "Content-Type": "application/json" };
    const other = b64("https://example.org/submodels/technical-data-2");
    await both({ method: "GET", path: value("MaxRotationSpeed"), headers: id(1) }, true);
    await both({ method: "GET", path: value("MaxRotationSpeed", other), headers: id(2) }, true);
    await both({ method: "GET", path: value("NoSuchElement"), headers: id(3) }, true);
    await both(
      { method: "PATCH", path: value("MaxRotationSpeed"), headers: { ...id(4), ...json }, body: "4100" },
      true,
    );
    await both({ method: "PATCH", path: value("Dimensions.Width"), headers: { ...id(5), ...json }, body: "0.6" }, true);
    await both(
      { method: "PATCH", path: value("MaxRotationSpeed", other), headers: { ...id(6), ...json }, body: "1" },
      true,
    );
    const { hot } = await both({ method: "GET", path: value("MaxRotationSpeed", other), headers: id(7) }, true);
    assert.match(hot, /^HTTP\/1\.1 401 [^]*\r\nwww-authenticate: Bearer realm="twinport"\r\n/);
    await both(
      { method: "GET", path: value("MaxRotationSpeed"), headers: { ...id(8), Authorization: "Bearer x.y.z" } },
      false,
    );
    await both(
      { method: "GET", path: value("MaxRotationSpeed"), headers: { ...id(9), Authorization: "Basic eDp5" } },
      false,
    );
  } finally {
    [hotPort, generalPort] = [savedHot, savedGeneral];
    await engine.close();
  }
});

test("requests arriving together on many connections are each answered, a refused one among them", async () => {
  const path = value("MaxRotationSpeed");
  const patch = (body: string) =>
    requestBytes(hotPort, { method: "PATCH", path, headers: { "Content-Type": "application/json" }, body });
  const get = () => requestBytes(hotPort, { method: "GET", path });
  const before = taken;
  const answers = await Promise.all([
    ...Array.from({ length: 8 }, (_, i) => raw(hotPort, patch(String(7000 + i)))),
    raw(hotPort, patch('"not a number"')),
    ...Array.from({ length: 7 }, () => raw(hotPort, get())),
  ]);
  assert.equal(taken - before, 16, "every request went the hot route");
  const statuses = answers.map((answer) => answer.slice(9, 12));
  assert.deepEqual(statuses.slice(0, 8), Array(8).fill("204"));
  assert.equal(statuses[8], "400");
  for (const answer of answers.slice(9)) {
    assert.equal(answer.slice(9, 12), "200");
    assert.match(answer, /\r\n\r\n\{"MaxRotationSpeed":(5000|\d{4})\}$/);
  }
  const final = await raw(hotPort, get());
  const written = Number(/"MaxRotationSpeed":(\d+)/.exec(final)![1]);
  assert.ok(written >= 7000 && written < 7008, `the last write's value is kept, got ${written}`);
});
