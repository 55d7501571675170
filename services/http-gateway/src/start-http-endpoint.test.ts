import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import {
  opensslCertificate,
  opensslIssuedCertificate,
  opensslPkcs12,
} from "../../../tests/test-support/openssl-keystores.ts";
import { type HttpEndpointSettings, httpEndpointSettings } from "./http-endpoint-settings.ts";
import { listenError, type RunningHttpEndpoint, startHttpEndpoint } from "./start-http-endpoint.ts";
import { b64, type ExampleStore, exampleStore, SUBMODEL_1 } from "./test-support/example-store.ts";
import { socketRequest } from "./test-support/socket-request.ts";
import { SELF_SIGNED_CERT_FILE } from "./tls/self-signed-certificate.ts";

// Header names a response may carry; anything else (Server, X-Powered-By, ...) would leak software.
const ALLOWED_HEADERS = new Set([
  "content-type",
  "content-length",
  "transfer-encoding",
  "etag",
  "location",
  "x-correlation-id",
  "date",
  "connection",
  "keep-alive",
  "allow",
]);

describe("startHttpEndpoint over real sockets", () => {
  let example: ExampleStore;
  let dir: string;
  const running: RunningHttpEndpoint[] = [];
  const start = async (
    overrides: Partial<HttpEndpointSettings> = {},
    stateDir = join(dir, "state"),
    gatherTurns = false,
  ) => {
    const endpoint = await startHttpEndpoint({
      store: example.store,
      settings: httpEndpointSettings({ host: "127.0.0.1", port: 0, ...overrides }),
      stateDir,
      gatherTurns,
    });
    running.push(endpoint);
    return endpoint;
  };
  const stop = async (endpoint: RunningHttpEndpoint) => {
    running.splice(running.indexOf(endpoint), 1);
    await endpoint.close();
  };
  const caOf = (stateDir = join(dir, "state")) => readFileSync(join(stateDir, SELF_SIGNED_CERT_FILE), "utf8");

  before(async () => {
    example = await exampleStore();
    dir = mkdtempSync(join(tmpdir(), "twinport-http-"));
  });
  after(async () => {
    for (const endpoint of running.splice(0)) await endpoint.close();
    await example.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves HTTPS by default with a persisted self-signed certificate, and no software headers", async () => {
    const endpoint = await start();
    assert.equal(endpoint.url, `https://127.0.0.1:${endpoint.port}`);
    assert.ok(endpoint.port > 0);
    const answer = await socketRequest({ url: endpoint.url, path: "/api/v3.0/shells", ca: caOf() });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).result.length, 3);
    assert.equal(answer.headers.server, undefined);
    assert.equal(answer.headers["x-powered-by"], undefined);
    for (const name of answer.rawHeaderNames)
      assert.ok(ALLOWED_HEADERS.has(name), `unexpected response header ${name}`);
    const error = await socketRequest({ url: endpoint.url, path: "/nothing", ca: caOf() });
    assert.equal(error.status, 404);
    for (const name of error.rawHeaderNames) assert.ok(ALLOWED_HEADERS.has(name), `unexpected response header ${name}`);
    await stop(endpoint);
  });

  it("runs the slice end to end over HTTPS: POST, GET, PATCH $value, PUT, DELETE", async () => {
    const endpoint = await start();
    const ca = caOf();
    const elements = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements`;
    const body = JSON.stringify({ modelType: "Property", idShort: "OverTls", valueType: "xs:int", value: "1" });
    const posted = await socketRequest({
      url: endpoint.url,
      method: "POST",
      path: elements,
      body,
      headers: { "Content-Type": "application/json" },
      ca,
    });
    assert.equal(posted.status, 201, posted.body);
    assert.equal(posted.headers.location, `${elements}/OverTls`);
    const read = await socketRequest({ url: endpoint.url, path: posted.headers.location!, ca });
    assert.equal(read.status, 200);
    assert.match(read.headers.etag ?? "", /^"\d+"$/);
    const patched = await socketRequest({
      url: endpoint.url,
      method: "PATCH",
      path: `${elements}/OverTls/$value`,
      body: "42",
      headers: { "If-Match": read.headers.etag!, "Content-Type": "application/json" },
      ca,
    });
    assert.equal(patched.status, 204, patched.body);
    assert.equal(
      (await socketRequest({ url: endpoint.url, path: `${elements}/OverTls/$value`, ca })).body,
      '{"OverTls":42}',
    );
    const put = await socketRequest({
      url: endpoint.url,
      method: "PUT",
      path: `${elements}/OverTls`,
      body: body.replace('"1"', '"7"'),
      headers: { "Content-Type": "application/json" },
      ca,
    });
    assert.equal(put.status, 204, put.body);
    assert.equal(
      (await socketRequest({ url: endpoint.url, method: "DELETE", path: `${elements}/OverTls`, ca })).status,
      204,
    );
    assert.equal((await socketRequest({ url: endpoint.url, path: `${elements}/OverTls`, ca })).status, 404);
    await stop(endpoint);
  });

  it("reuses the certificate on the next start", async () => {
    const stateDir = join(dir, "reuse");
    const first = await start({}, stateDir);
    const firstPrint = (await socketRequest({ url: first.url, path: "/api/v3.0/shells", ca: caOf(stateDir) }))
      .certificateFingerprint;
    await stop(first);
    const second = await start({}, stateDir);
    const secondPrint = (await socketRequest({ url: second.url, path: "/api/v3.0/shells", ca: caOf(stateDir) }))
      .certificateFingerprint;
    assert.ok(firstPrint);
    assert.equal(secondPrint, firstPrint);
    await stop(second);
  });

  it("413 at once for a declared Content-Length over the limit, without waiting for the body", async () => {
    const endpoint = await start({ maxRequestBodySize: 1024 });
    const answer = await socketRequest({
      url: endpoint.url,
      method: "POST",
      path: "/api/v3.0/shells",
      headers: { "Content-Type": "application/json", "Content-Length": 50 * 1024 * 1024 },
      headersOnly: true,
      ca: caOf(),
    });
    assert.equal(answer.status, 413);
    assert.equal(JSON.parse(answer.body).messages[0].code, "413");
    await stop(endpoint);
  });

  it("Expect: 100-continue: no 100 for a declared body over the limit, only the 413; within it the 100, then the answer", async () => {
    const endpoint = await start({ sslEnabled: false, maxRequestBodySize: 1024 });
    const head = (length: number) =>
      `POST /api/v3.0/shells HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`;
    const over = await exchange(endpoint.port, head(50 * 1024 * 1024));
    assert.match(over, /^HTTP\/1\.1 413 /, over);
    assert.doesNotMatch(over, /100 Continue/);
    // Within the limit: the 100 first, then (the body sent) the route's answer.
    const body = "{}";
    const within = await new Promise<string>((resolve, reject) => {
      const socket = connect(endpoint.port, "127.0.0.1");
      let received = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
        if (
          received.startsWith("HTTP/1.1 100") &&
          !received.includes("\r\n\r\nHTTP/1.1 ") &&
          received.endsWith("\r\n\r\n")
        )
          socket.write(body);
        if (/\r\n\r\nHTTP\/1\.1 \d{3} [\s\S]*\r\n\r\n/.test(received)) setTimeout(() => socket.destroy(), 50);
      });
      socket.on("close", () => resolve(received));
      socket.on("error", reject);
      socket.write(`${head(body.length).replace("Expect", "Connection: close\r\nExpect")}`);
    });
    assert.match(within, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /, within);
    await stop(endpoint);
  });

  it("413 for a chunked body that grows past the limit", async () => {
    const endpoint = await start({ maxRequestBodySize: 1024 });
    const answer = await socketRequest({
      url: endpoint.url,
      method: "POST",
      path: "/api/v3.0/shells",
      body: Array.from({ length: 8 }, () => "x".repeat(512)),
      ca: caOf(),
    });
    assert.equal(answer.status, 413);
    assert.equal(JSON.parse(answer.body).messages[0].code, "413");
    await stop(endpoint);
  });

  it("sniEnabled on the hot route of $value (ADR 0045): the same 400 for a foreign Host, the same value for the right one", async () => {
    const hot = await start();
    const general = await startHttpEndpoint({
      store: example.store,
      settings: httpEndpointSettings({ host: "127.0.0.1", port: 0 }),
      stateDir: join(dir, "state"),
      hotRoutes: false,
    });
    running.push(general);
    const ca = caOf();
    const path = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    const ask = async (endpoint: RunningHttpEndpoint, host: string) => {
      const answer = await socketRequest({
        url: endpoint.url,
        path,
        servername: "localhost",
        headers: { Host: host, "X-Correlation-Id": "sni-hot" },
        ca,
      });
      const { date: _date, ...headers } = answer.headers;
      return {
        status: answer.status,
        headers,
        names: answer.rawHeaderNames,
        body: answer.body.replace(/"timestamp":"[^"]*"/, '"timestamp":"*"'),
      };
    };
    for (const host of ["localhost", "elsewhere.example"]) {
      const fromHot = await ask(hot, `${host}:${hot.port}`);
      const fromGeneral = await ask(general, `${host}:${general.port}`);
      assert.deepEqual(fromHot, fromGeneral);
      if (host === "localhost") assert.equal(fromHot.body, '{"MaxRotationSpeed":5000}');
      else assert.match(JSON.parse(fromHot.body).messages[0].text, /sniEnabled/);
    }
    await stop(general);
    await stop(hot);
  });

  it("sniEnabled: a Host that differs from the TLS server name is refused; off, it is served", async () => {
    const endpoint = await start();
    const ca = caOf();
    const matching = await socketRequest({
      url: endpoint.url,
      path: "/api/v3.0/shells",
      servername: "localhost",
      headers: { Host: `localhost:${endpoint.port}` },
      ca,
    });
    assert.equal(matching.status, 200);
    const fronted = await socketRequest({
      url: endpoint.url,
      path: "/api/v3.0/shells",
      servername: "localhost",
      headers: { Host: "elsewhere.example" },
      ca,
    });
    assert.equal(fronted.status, 400);
    assert.match(JSON.parse(fronted.body).messages[0].text, /sniEnabled/);
    // A fully qualified name with its trailing dot is the same host (SNI never carries the dot).
    const qualified = await socketRequest({
      url: endpoint.url,
      path: "/api/v3.0/shells",
      servername: "localhost",
      headers: { Host: `localhost.:${endpoint.port}` },
      ca,
    });
    assert.equal(qualified.status, 200, qualified.body);
    // An absolute-form target names the host the request is for; Host is ignored (RFC 9112 §3.2.2).
    const absolute = (authority: string, host: string) =>
      socketRequest({
        url: endpoint.url,
        path: `https://${authority}/api/v3.0/shells`,
        servername: "localhost",
        headers: { Host: host },
        ca,
      });
    assert.equal((await absolute("elsewhere.example", `localhost:${endpoint.port}`)).status, 400);
    assert.equal((await absolute(`localhost:${endpoint.port}`, "elsewhere.example")).status, 200);
    await stop(endpoint);
    const lenient = await start({ sniEnabled: false });
    assert.equal(
      (
        await socketRequest({
          url: lenient.url,
          path: "/api/v3.0/shells",
          servername: "localhost",
          headers: { Host: "elsewhere.example" },
          ca,
        })
      ).status,
      200,
    );
    await stop(lenient);
  });

  it("sslEnabled false serves plain HTTP", async () => {
    const endpoint = await start({ sslEnabled: false });
    assert.equal(endpoint.url, `http://127.0.0.1:${endpoint.port}`);
    const answer = await socketRequest({ url: endpoint.url, path: `/api/v3.0/submodels/${b64(SUBMODEL_1)}` });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.server, undefined);
    await stop(endpoint);
  });

  it("maxConnections: a connection past the limit is closed at once; once one goes, the next is served", async () => {
    const endpoint = await start({ sslEnabled: false, maxConnections: 3 });
    const open = (): Promise<import("node:net").Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect(endpoint.port, "127.0.0.1", () => resolve(socket));
        socket.once("error", reject);
      });
    // A request over the connection: its status, or "closed" when the server closed it unanswered.
    const ask = (socket: import("node:net").Socket): Promise<string> =>
      new Promise((resolve) => {
        let text = "";
        socket.on("data", (chunk) => {
          text += chunk;
          const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
          if (status) resolve(status[1]!);
        });
        socket.once("close", () => resolve("closed"));
        socket.once("error", () => resolve("closed"));
        socket.write(`GET /api/v3.0/submodels/${b64(SUBMODEL_1)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
    const held = [await open(), await open(), await open()];
    assert.equal(await ask(held[0]!), "200");
    assert.equal(await ask(await open()), "closed", "the fourth connection is closed unanswered");
    held.pop()!.destroy();
    // The server learns of the close on its next turn; a connection after that is served.
    let answer = "closed";
    for (let attempt = 0; attempt < 50 && answer === "closed"; attempt++) {
      answer = await ask(await open());
      if (answer === "closed") await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(answer, "200");
    for (const socket of held) socket.destroy();
    await stop(endpoint);
  });

  it("maxBufferedRequestBodySize: a body that would pass the bodies held at once answers 503 unread; once they are answered, it is taken", async () => {
    const endpoint = await start({ sslEnabled: false, maxRequestBodySize: 4096, maxBufferedRequestBodySize: 6000 });
    const path = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements`;
    const element = (idShort: string) => {
      const text = JSON.stringify({ modelType: "Property", idShort, valueType: "xs:string", value: "" });
      return JSON.stringify({
        modelType: "Property",
        idShort,
        valueType: "xs:string",
        value: "v".repeat(4000 - text.length),
      });
    };
    // A slow client: its headers and half of its 4,000 bytes, the rest held back.
    const slow = connect(endpoint.port, "127.0.0.1");
    await new Promise((resolve) => slow.once("connect", resolve));
    const slowBody = element("Slow");
    let slowAnswer = "";
    slow.on("data", (chunk) => {
      slowAnswer += chunk;
    });
    slow.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${slowBody.length}\r\n\r\n${slowBody.slice(0, 2000)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));

    const post = (idShort: string) =>
      socketRequest({
        url: endpoint.url,
        method: "POST",
        path,
        headers: { "Content-Type": "application/json" },
        body: element(idShort),
      });
    const refused = await post("Second");
    assert.equal(refused.status, 503, refused.body);
    assert.equal(refused.headers["retry-after"], "1");
    assert.match(JSON.parse(refused.body).messages[0].text, /maxBufferedRequestBodySize/);
    // Asking first (Expect: 100-continue), the client is not invited to send a body that would be refused.
    const asked = await exchange(
      endpoint.port,
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 4000\r\n\r\n`,
    );
    assert.match(asked, /^HTTP\/1\.1 503 /, asked);
    assert.doesNotMatch(asked, /100 Continue/);

    // The slow body ends and is answered; then a body of the same size is taken.
    slow.write(slowBody.slice(2000));
    for (let i = 0; i < 100 && !/\r\n\r\n/.test(slowAnswer); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.match(slowAnswer, /^HTTP\/1\.1 201/);
    slow.destroy();
    const taken = await post("Third");
    assert.equal(taken.status, 201, taken.body);
    await stop(endpoint);
  });

  it("serves the certificate of a configured PKCS12 keystore (openssl, RSA and EC, legacy and current ciphers); a wrong password fails the start", async () => {
    const keySource = mkdtempSync(join(dir, "keystore-"));
    const rsa = opensslCertificate(keySource, "rsa.example", "rsa");
    const legacy = opensslPkcs12(join(keySource, "legacy.p12"), rsa, {
      storePassword: "secret",
      keyPassword: "key-secret",
      alias: "twinport",
      legacy: true,
    });
    const ca = opensslCertificate(keySource, "test-ca", "rsa", { ca: true });
    const ec = opensslIssuedCertificate(keySource, "ec.example", ca, "ec");
    const current = opensslPkcs12(join(keySource, "current.p12"), ec, {
      storePassword: "secret",
      alias: "twinport",
      extraCertificates: [ca],
    });
    const cases = [
      {
        certificate: {
          keyStoreType: "PKCS12",
          keyStorePath: legacy,
          keyStorePassword: "secret",
          keyPassword: "key-secret",
          keyAlias: "twinport",
        },
        trust: rsa.cert,
        leaf: rsa,
      },
      // Trusting only the CA: the handshake succeeds on the chain the keystore holds.
      { certificate: { keyStorePath: current, keyStorePassword: "secret" }, trust: ca.cert, leaf: ec },
    ];
    for (const { certificate, trust, leaf } of cases) {
      const endpoint = await start({ certificate }, join(dir, "unused"));
      const answer = await socketRequest({ url: endpoint.url, path: "/api/v3.0/shells", ca: trust });
      assert.equal(answer.status, 200);
      assert.equal(answer.certificateFingerprint, leaf.fingerprint);
      await stop(endpoint);
    }
    await assert.rejects(
      start({ certificate: { keyStorePath: current, keyStorePassword: "wrong" } }),
      /wrong keystore password \(certificate\.keyStorePassword\)/,
    );
    await assert.rejects(
      start({ certificate: { keyStorePath: legacy, keyStorePassword: "secret" } }),
      /set certificate\.keyPassword/,
    );
  });

  it("a port in use is an error that names the port setting", async () => {
    const endpoint = await start({ sslEnabled: false });
    await assert.rejects(start({ sslEnabled: false, port: endpoint.port }), (error: Error) => {
      assert.match(error.message, /127\.0\.0\.1:\d+/);
      assert.match(error.message, /already in use/);
      assert.match(error.message, /Change the HTTP endpoint's "port" setting/);
      return true;
    });
    await stop(endpoint);
  });

  it("bind errors name the setting to change", () => {
    const settings = httpEndpointSettings({ port: 443 });
    const denied = listenError(Object.assign(new Error("listen EACCES"), { code: "EACCES" }), settings, "endpoints[2]");
    assert.match(denied.message, /0\.0\.0\.0:443/);
    assert.match(denied.message, /Change endpoints\[2\]\.port \(e\.g\. to 8443\)/);
    assert.equal((denied as NodeJS.ErrnoException).code, "EACCES");
    const address = listenError(
      Object.assign(new Error("listen EADDRNOTAVAIL"), { code: "EADDRNOTAVAIL" }),
      settings,
      "endpoints[2]",
    );
    assert.match(address.message, /Change endpoints\[2\]\.host\.$/);
    const unresolved = listenError(
      Object.assign(new Error("getaddrinfo ENOTFOUND notahost"), { code: "ENOTFOUND" }),
      httpEndpointSettings({ host: "notahost", port: 8443 }),
      "endpoints[0]",
    );
    assert.equal(
      unresolved.message,
      "HTTP endpoint cannot listen on notahost:8443: the host name 'notahost' does not resolve (getaddrinfo ENOTFOUND notahost). Change endpoints[0].host to an address of this machine (0.0.0.0: every interface).",
    );
    // A caller that does not say where the endpoint is configured gets the setting's name alone.
    assert.match(
      listenError(Object.assign(new Error("x"), { code: "EACCES" }), settings).message,
      /the HTTP endpoint's "port" setting/,
    );
  });

  it("an HTTP/1.1 request without Host is a 400 with the Result body (Node's own answer had an empty body)", async () => {
    const endpoint = await start({ sslEnabled: false });
    const missing = await exchange(endpoint.port, "GET /api/v3.0/shells HTTP/1.1\r\n\r\n");
    assert.match(missing, /^HTTP\/1\.1 400 /, missing);
    assert.match(missing, /\r\nConnection: close/i);
    const body = JSON.parse(missing.slice(missing.indexOf("\r\n\r\n") + 4));
    assert.match(body.messages[0].text, /Host header/);
    assert.equal(body.messages[0].code, "400");
    await stop(endpoint);
  });

  it("an empty Host is no Host (HTTP/1.1: the 400 and close; HTTP/1.0: served); Transfer-Encoding in HTTP/1.0 is a 400 and close", async () => {
    const endpoint = await start({ sslEnabled: false });
    const empty11 = await exchange(endpoint.port, "GET /api/v3.0/shells HTTP/1.1\r\nHost:\r\n\r\n");
    assert.match(empty11, /^HTTP\/1\.1 400 [^]*\r\nConnection: close\r\n/, empty11);
    assert.match(empty11, /must carry a Host header/);
    const empty10 = await exchange(endpoint.port, "GET /api/v3.0/shells HTTP/1.0\r\nHost: \r\n\r\n");
    assert.match(empty10, /^HTTP\/1\.1 200 OK\r\n/, empty10);
    // Smuggling hardening: the chunked body is not decoded, the connection does not stay for the next request.
    const chunked = await exchange(
      endpoint.port,
      "PATCH /api/v3.0/shells HTTP/1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n1\r\n7\r\n0\r\n\r\nGET /api/v3.0/description HTTP/1.0\r\n\r\n",
    );
    assert.match(chunked, /^HTTP\/1\.1 400 [^]*\r\nConnection: close\r\n/, chunked);
    assert.match(chunked, /Transfer-Encoding/);
    assert.equal(chunked.match(/HTTP\/1\.1 /g)?.length, 1, "the pipelined request went unanswered");
    // An empty Host beside another is two Host lines, not one: the 400, not the second one's answer.
    const hidden = await exchange(
      endpoint.port,
      "GET /api/v3.0/shells HTTP/1.0\r\nHost: \r\nHost: evil.example\r\n\r\n",
    );
    assert.match(hidden, /^HTTP\/1\.1 400 [^]*one Host header/, hidden);
    // Versions other than HTTP/1.0 and 1.1 on an HTTP/1.x connection: 505, whatever else they carry.
    for (const version of ["2.0", "0.9"]) {
      const answer = await exchange(
        endpoint.port,
        `PATCH /api/v3.0/shells HTTP/${version}\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 505 [^]*\r\nConnection: close\r\n/, `${version}: ${answer}`);
    }
    await stop(endpoint);
  });

  it("a Host with an empty port (`localhost:`) names the default port: served on every route, and sniEnabled compares its name", async () => {
    const plain = await start({ sslEnabled: false });
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    for (const [what, request, expected] of [
      [
        "hot route",
        `GET ${value} HTTP/1.1\r\nHost: localhost:\r\nConnection: close\r\n\r\n`,
        /\{"MaxRotationSpeed":\d+\}$/,
      ],
      [
        "general path",
        "GET /api/v3.0/shells HTTP/1.1\r\nHost: 127.0.0.1:\r\nConnection: close\r\n\r\n",
        /\{"paging_metadata"/,
      ],
      [
        "an IPv6 literal",
        "GET /api/v3.0/shells HTTP/1.1\r\nHost: [::1]:\r\nConnection: close\r\n\r\n",
        /\{"paging_metadata"/,
      ],
      ["HTTP/1.0", "GET /api/v3.0/shells HTTP/1.0\r\nHost: localhost:\r\n\r\n", /\{"paging_metadata"/],
    ] as const) {
      const answer = await exchange(plain.port, request);
      assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/, `${what}: ${answer.slice(0, 300)}`);
      assert.match(answer, expected, what);
    }
    await stop(plain);
    const endpoint = await start({ sniEnabled: true });
    const ca = caOf();
    const ask = (path: string, host: string) =>
      socketRequest({ url: endpoint.url, path, servername: "localhost", headers: { Host: host }, ca });
    for (const path of ["/api/v3.0/shells", value]) {
      const served = await ask(path, "localhost:");
      assert.equal(served.status, 200, `${path}: ${served.body}`);
      const foreign = await ask(path, "elsewhere.example:");
      assert.equal(foreign.status, 400, foreign.body);
      assert.match(JSON.parse(foreign.body).messages[0].text, /sniEnabled/);
    }
    await stop(endpoint);
  });

  it("a request with two Host headers is a 400 with the Result body, on the hot route's URL too", async () => {
    const endpoint = await start({ sslEnabled: false });
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    for (const target of [value, "/api/v3.0/shells"]) {
      const answer = await exchange(endpoint.port, `GET ${target} HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 400 /, answer);
      assert.match(answer, /\r\nConnection: close/i);
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      assert.match(body.messages[0].text, /one Host header/);
    }
    await stop(endpoint);
  });

  it("a path with a '.' or '..' segment (also percent-encoded, or after a backslash) is a 400 and changes nothing; it was resolved to another resource", async () => {
    const endpoint = await start({ sslEnabled: false });
    const submodel = `/api/v3.0/submodels/${b64(SUBMODEL_1)}`;
    const targets = [
      ["DELETE", `${submodel}/submodel-elements/..`],
      ["DELETE", `${submodel}/submodel-elements/%2e%2E`],
      ["DELETE", `${submodel}/submodel-elements/MaxRotationSpeed/.`],
      ["GET", `${submodel}/submodel-elements/%2e%2e/%2e%2e/%2e%2e/reset`],
      ["DELETE", `${submodel}/submodel-elements\\..`],
      ["GET", "/console/../api/v3.0/reset"],
      ["GET", `${submodel}/submodel-elements/MaxRotationSpeed/../MaxRotationSpeed/$value`],
    ];
    for (const [method, target] of targets) {
      const answer = await exchange(endpoint.port, `${method} ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 400 /, `${method} ${target}: ${answer}`);
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      assert.match(body.messages[0].text, /'\.' or '\.\.' segments/);
    }
    // Nothing was deleted or reset; names with dots inside a segment are no dot segments.
    const still = await exchange(
      endpoint.port,
      `GET ${submodel} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    assert.match(still, /^HTTP\/1\.1 200 /, still);
    const dotted = await exchange(
      endpoint.port,
      `GET ${submodel}/submodel-elements/a..b HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    assert.match(dotted, /^HTTP\/1\.1 (400|404) /, dotted);
    assert.doesNotMatch(dotted, /segments/);
    await stop(endpoint);
  });

  it("a transfer coding before the chunked one (gzip, chunked) is a 501; it was read as plain chunked. One not ending in chunked is a 400", async () => {
    const endpoint = await start({ sslEnabled: false });
    // One answer only, also where Node's parser then fails on the body (gzip without chunked).
    const only = await exchange(
      endpoint.port,
      "GET /api/v3.0/submodels HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\n",
    );
    assert.equal(only.match(/HTTP\/1\.1 \d{3}/g)?.length, 1, only);
    assert.match(only, /^HTTP\/1\.1 400 /, "no chunked at the end: no length, a 400 (RFC 9112 §6.3)");
    for (const coding of ["gzip, chunked", "foo, chunked", "deflate , Chunked"]) {
      const answer = await exchange(
        endpoint.port,
        `POST /api/v3.0/shells HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 501 /, `${coding}: ${answer}`);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(answer)?.[1]);
      const start = answer.indexOf("\r\n\r\n") + 4;
      assert.match(JSON.parse(answer.slice(start, start + length)).messages[0].text, /Transfer-Encoding/);
    }
    await stop(endpoint);
  });

  it("an HTTP/1.0 request without Host is served as if it named the endpoint, then the connection closed", async () => {
    const endpoint = await start({ sslEnabled: false });
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    // The hot route's plain GET, the general path's (an If-None-Match it leaves to that), a list.
    for (const [what, request, expected] of [
      ["hot route", `GET ${value} HTTP/1.0\r\n\r\n`, /\r\n\r\n\{"MaxRotationSpeed":\d+\}$/],
      ["general path", `GET ${value} HTTP/1.0\r\nIf-None-Match: "0"\r\n\r\n`, /\r\n\r\n\{"MaxRotationSpeed":\d+\}$/],
      ["a list", "GET /api/v3.0/shells HTTP/1.0\r\n\r\n", /\r\n\r\n\{"paging_metadata"/],
    ] as const) {
      // exchange() resolves once the server has ended the connection: no keep-alive unasked.
      const answer = await exchange(endpoint.port, request);
      const head = answer.slice(0, answer.indexOf("\r\n\r\n"));
      assert.match(head, /^HTTP\/1\.1 200 OK\r\n/, `${what}: ${answer.slice(0, 300)}`);
      assert.match(head, /\r\nConnection: close(\r\n|$)/, what);
      assert.doesNotMatch(head, /keep-alive/i, what);
      assert.match(answer, expected, what);
    }
    // A PATCH of the hot route, and its value read back: the write was made.
    const patched = await exchange(
      endpoint.port,
      `PATCH ${value} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n4711`,
    );
    assert.match(patched, /^HTTP\/1\.1 204 No Content\r\n/, patched);
    assert.match(patched, /\r\nConnection: close\r\n/);
    assert.match(await exchange(endpoint.port, `GET ${value} HTTP/1.0\r\n\r\n`), /\{"MaxRotationSpeed":4711\}$/);
    // Asked for keep-alive, an answer of known length keeps the connection for the next request.
    const kept = await exchange(
      endpoint.port,
      `GET /api/v3.0/shells HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET ${value} HTTP/1.0\r\n\r\n`,
    );
    assert.match(kept, /^HTTP\/1\.1 200 OK\r\n[^]*?\r\nConnection: keep-alive\r\n[^]*?HTTP\/1\.1 200 OK\r\n/, kept);
    assert.match(kept, /\{"MaxRotationSpeed":4711\}$/);
    // The same for the $value URL itself (the hot route leaves HTTP/1.0 to the general path, which
    // frames the answer by its length): before, it closed the connection and the second went unanswered.
    const keptValue = await exchange(
      endpoint.port,
      `GET ${value} HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /api/v3.0/shells HTTP/1.0\r\n\r\n`,
    );
    const first = keptValue.slice(0, keptValue.indexOf("\r\n\r\n"));
    assert.match(first, /\r\nConnection: keep-alive\r\n/i, keptValue);
    assert.match(first, /\r\nContent-Length: 25(\r\n|$)/i, keptValue);
    assert.match(keptValue, /\{"MaxRotationSpeed":4711\}HTTP\/1\.1 200 OK\r\n[^]*\{"paging_metadata"/, keptValue);
    await stop(endpoint);
  });

  it("an HTTP/1.0 request without Host over TLS is served under the name the handshake gave (sniEnabled)", async () => {
    const endpoint = await start({ sniEnabled: true });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({ host: "127.0.0.1", port: endpoint.port, ca: caOf(), servername: "localhost" }, () =>
        socket.write("GET /api/v3.0/shells HTTP/1.0\r\n\r\n"),
      );
      let received = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
      });
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/, answer.slice(0, 300));
    assert.match(answer, /\r\nConnection: close\r\n/);
    await stop(endpoint);
  });

  it("an answer without a body says Content-Length: 0, not chunked; 204, 304 and HEAD answers carry neither", async () => {
    const endpoint = await start({ sslEnabled: false });
    const headOf = async (request: string) => {
      const answer = await exchange(endpoint.port, request);
      return answer.replace(/\r\nDate: [^\r]+/, "\r\nDate: -");
    };
    // The redirect of / to the console: a Response with a null body, on the general path.
    assert.equal(
      await headOf("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Correlation-Id: c1\r\nConnection: close\r\n\r\n"),
      "HTTP/1.1 302 Found\r\nX-Correlation-Id: c1\r\nlocation: /console/\r\nContent-Length: 0\r\nDate: -\r\nConnection: close\r\n\r\n",
    );
    assert.equal(
      await headOf("HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Correlation-Id: c2\r\nConnection: close\r\n\r\n"),
      "HTTP/1.1 302 Found\r\nX-Correlation-Id: c2\r\nlocation: /console/\r\nDate: -\r\nConnection: close\r\n\r\n",
    );
    // An HTTP/1.0 client knows no chunked coding: with the length, its connection can stay.
    const old = await exchange(
      endpoint.port,
      "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /api/v3.0/shells HTTP/1.0\r\n\r\n",
    );
    assert.match(
      old,
      /^HTTP\/1\.1 302 Found\r\n[^]*?\r\nContent-Length: 0\r\n[^]*?\r\nConnection: keep-alive\r\n/,
      old,
    );
    assert.match(old, /\r\n\r\nHTTP\/1\.1 200 OK\r\n/, "the next request was served on the same connection");
    // A general-path PATCH (an Idempotency-Key takes it there), and a read answered 304: neither header.
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    const noContent = await headOf(
      `PATCH ${value} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nIdempotency-Key: empty-body-framing\r\nContent-Length: 4\r\nConnection: close\r\n\r\n5000`,
    );
    assert.match(noContent, /^HTTP\/1\.1 204 No Content\r\n/, noContent);
    assert.doesNotMatch(noContent, /content-length|transfer-encoding/i);
    const read = await exchange(endpoint.port, `GET ${value} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    const etag = /\r\nETag: ("[^"]*")/i.exec(read)?.[1];
    assert.ok(etag, read);
    const notModified = await headOf(
      `GET ${value} HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`,
    );
    assert.match(notModified, /^HTTP\/1\.1 304 Not Modified\r\n/, notModified);
    assert.doesNotMatch(notModified, /content-length|transfer-encoding/i);
    await stop(endpoint);
  });

  it("HTTP/1.0 keep-alive persists after a 304, a HEAD answer and a 204, which still carry no length (Node closed the connection)", async () => {
    const endpoint = await start({ sslEnabled: false });
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    const read = await exchange(endpoint.port, `GET ${value} HTTP/1.0\r\n\r\n`);
    const etag = /\r\nETag: ("[^"]*")/i.exec(read)?.[1];
    assert.ok(etag, read);
    const keep = "Connection: keep-alive\r\n";
    const answer = await exchange(
      endpoint.port,
      `GET ${value} HTTP/1.0\r\nIf-None-Match: ${etag}\r\n${keep}\r\n` +
        `HEAD /api/v3.0/shells HTTP/1.0\r\n${keep}\r\n` +
        `PATCH ${value} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 4\r\n${keep}\r\n4712` +
        `GET ${value} HTTP/1.0\r\n\r\n`,
    );
    const heads = answer.split(/(?=HTTP\/1\.1 )/);
    assert.deepEqual(
      heads.map((head) => head.slice(9, 12)),
      ["304", "200", "204", "200"],
      answer,
    );
    for (const head of heads.slice(0, 3)) {
      assert.match(head, /\r\nConnection: keep-alive\r\n/, head);
      assert.doesNotMatch(head, /content-length|transfer-encoding/i, head);
      assert.ok(head.endsWith("\r\n\r\n"), `no body: ${head}`);
    }
    assert.match(heads[3]!, /\r\nConnection: close\r\n[^]*\{"MaxRotationSpeed":4712\}$/);
    // Not asked for keep-alive, the connection closes after them as before.
    const closing = await exchange(
      endpoint.port,
      "HEAD /api/v3.0/shells HTTP/1.0\r\n\r\nGET /api/v3.0/shells HTTP/1.0\r\n\r\n",
    );
    assert.match(closing, /^HTTP\/1\.1 200 OK\r\n[^]*\r\nConnection: close\r\n\r\n$/, closing);
    await stop(endpoint);
  });

  it("CONNECT is answered like a method the path does not serve, then the connection closed (Node dropped it unanswered)", async () => {
    const endpoint = await start({ sslEnabled: false });
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    for (const [what, request, status, allow] of [
      ["a list", "CONNECT /api/v3.0/shells HTTP/1.1\r\nHost: localhost\r\n\r\n", 405, "GET, POST, HEAD"],
      ["the hot route's URL", `CONNECT ${value} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 405, "GET, PATCH, HEAD"],
      ["HTTP/1.0 without Host", "CONNECT /api/v3.0/shells HTTP/1.0\r\n\r\n", 405, "GET, POST, HEAD"],
      ["no AAS path", "CONNECT /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n", 404, undefined],
      [
        "an authority (a proxy's target)",
        "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n",
        400,
        undefined,
      ],
    ] as const) {
      // A request behind it on the same connection: Node gave the connection up, it is not read.
      const answer = await exchange(
        endpoint.port,
        `${request}GET /api/v3.0/shells HTTP/1.1\r\nHost: localhost\r\n\r\n`,
      );
      const head = answer.slice(0, answer.indexOf("\r\n\r\n"));
      assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), `${what}: ${answer}`);
      assert.match(head, /\r\nConnection: close(\r\n|$)/, what);
      if (allow !== undefined) assert.match(head, new RegExp(`\r\nallow: ${allow}\r\n`, "i"), what);
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      assert.equal(body.messages[0].code, String(status), what);
      assert.equal(answer.match(/HTTP\/1\.1 /g)?.length, 1, what);
    }
    await stop(endpoint);
  });

  it("a CONNECT pipelined behind other requests is answered after them, and the server stays up (it ended the process)", async () => {
    // Gathering turns, as embedded mode does (ADR 0056): the earlier answers finish one after another.
    const endpoint = await start({ sslEnabled: false }, join(dir, "state"), true);
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    for (const before of [
      "GET /api/v3.0/description HTTP/1.1\r\nHost: localhost\r\n\r\n",
      `GET ${value} HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/v3.0/shells HTTP/1.1\r\nHost: localhost\r\n\r\n`,
      "GET /api/v3.0/description HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
      // Answers that finish one after another: the socket passes from each to the next.
      `GET ${value} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(3),
      `PATCH ${value} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n6001`.repeat(
        2,
      ),
    ]) {
      for (const connect of [
        "CONNECT /api/v3.0/submodels HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n",
      ]) {
        const answer = await exchange(endpoint.port, `${before}${connect}`);
        // Request lines (a PATCH's body runs into the next one: no line start to anchor to).
        const served = before.match(/(GET|PATCH) \//g)!.length;
        // Each answer's status line (a body without a line end runs into the next one).
        const heads = answer.match(/HTTP\/1\.1 \d{3}/g) ?? [];
        // The requests before it are answered in order; the CONNECT after them, unless one of them closed.
        const closing = before.includes("Connection: close");
        assert.equal(heads.length, closing ? served : served + 1, answer);
        for (const head of heads.slice(0, served)) assert.match(head, /^HTTP\/1\.1 20[04]$/);
        if (!closing) assert.match(heads[served]!, /^HTTP\/1\.1 (405|400)$/);
      }
    }
    // Still serving.
    const after = await exchange(
      endpoint.port,
      "GET /api/v3.0/description HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert.match(after, /^HTTP\/1\.1 200 /);
    await stop(endpoint);
  });

  it("a CONNECT whose client resets the connection, alone or behind other requests, leaves the server up (it ended the process)", async () => {
    const endpoint = await start({ sslEnabled: false }, join(dir, "state"), true);
    const connectLine = "CONNECT /api/v3.0/shells HTTP/1.1\r\nHost: localhost\r\n\r\n";
    const serialization = "GET /api/v3.0/serialization HTTP/1.1\r\nHost: localhost\r\n\r\n";
    for (const before of ["", "GET /api/v3.0/shells HTTP/1.1\r\nHost: localhost\r\n\r\n", serialization.repeat(2)]) {
      for (const wait of [0, 2, 5, 10]) {
        await new Promise<void>((resolve) => {
          const socket = connect(endpoint.port, "127.0.0.1", () => {
            socket.write(`${before}${connectLine}`);
            setTimeout(() => {
              socket.resetAndDestroy();
              resolve();
            }, wait);
          });
          socket.on("error", () => resolve());
        });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await exchange(
      endpoint.port,
      "GET /api/v3.0/description HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert.match(after, /^HTTP\/1\.1 200 /);
    await stop(endpoint);
  });

  it("a request asking for an Upgrade (WebSocket, h2c) is served as an ordinary request and the connection kept, on the hot route too", async () => {
    const endpoint = await start({ sslEnabled: false });
    const value = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    for (const [upgrade, target, expected] of [
      [
        "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
        "/api/v3.0/shells",
        /\r\n\r\n\{"paging_metadata"/,
      ],
      [
        "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n",
        value,
        /\{"MaxRotationSpeed":\d+\}/,
      ],
    ] as const) {
      // The next request once the answer is in, as a client that got no 101 sends it (curl after h2c).
      const answers = await oneAfterAnother(endpoint.port, [
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${upgrade}\r\n`,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      ]);
      assert.match(answers, /^HTTP\/1\.1 200 OK\r\n/, answers.slice(0, 300));
      assert.doesNotMatch(answers, /^HTTP\/1\.1 101 /m);
      assert.equal(answers.match(/HTTP\/1\.1 200 OK/g)?.length, 2, "the connection served the request after it");
      assert.match(answers, expected);
    }
    await stop(endpoint);
  });

  it("requests pipelined on one connection are served in order: a write behind a write, a read behind a write", async () => {
    // With and without the hot route's gathering (embedded mode gathers, ADR 0056).
    for (const gather of [true, false]) {
      const endpoint = await start({ sslEnabled: false }, join(dir, "state"), gather);
      const element = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed`;
      const patch = (path: string, body: string) =>
        `PATCH ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const get = (close: boolean) =>
        `GET ${element}/$value HTTP/1.1\r\nHost: 127.0.0.1\r\n${close ? "Connection: close\r\n" : ""}\r\n`;
      const full = (value: number) =>
        JSON.stringify({
          idShort: "MaxRotationSpeed",
          modelType: "Property",
          valueType: "xs:int",
          value: String(value),
        });
      // The hot route's PATCH, the general path's PATCH, a hot GET, a hot PATCH, a hot GET: in one write.
      const answers = await pipelined(
        endpoint.port,
        patch(`${element}/$value`, "601") +
          patch(element, full(602)) +
          get(false) +
          patch(`${element}/$value`, "603") +
          get(true),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [204, 204, 200, 204, 200],
      );
      assert.equal(answers[2]!.body, '{"MaxRotationSpeed":602}', `gather ${gather}: the read sees the write before it`);
      assert.equal(answers[4]!.body, '{"MaxRotationSpeed":603}');
      await stop(endpoint);
    }
  });

  it("bytes that are no request after pipelined writes: every write's answer first, then the 400", async () => {
    const endpoint = await start({ sslEnabled: false }, join(dir, "state"), true);
    const path = `/api/v3.0/submodels/${b64(SUBMODEL_1)}/submodel-elements/MaxRotationSpeed/$value`;
    const patch = (body: string) =>
      `PATCH ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    assert.deepEqual(
      (
        await pipelined(
          endpoint.port,
          `PATCH ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n7045`,
        )
      ).map((answer) => answer.status),
      [204, 400],
      "one write, then the byte after its body",
    );
    const answers = await pipelined(endpoint.port, `${patch("1111")}${patch("2222")}GARBAGE GARBAGE\r\n\r\n`);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [204, 204, 400],
    );
    await stop(endpoint);
  });

  it("close() marks the answer of a request in flight Connection: close, so the client sends no next one on it", async () => {
    const endpoint = await start({ sslEnabled: false });
    const body = JSON.stringify({
      modelType: "AssetAdministrationShell",
      id: "urn:test:closing",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset:closing" },
    });
    const socket = connect(endpoint.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    // The request is in flight (half its body sent) when the endpoint starts to close.
    socket.write(
      `POST /api/v3.0/shells HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    running.splice(running.indexOf(endpoint), 1);
    const closed = endpoint.close();
    socket.write(body.slice(10));
    await closed;
    await new Promise((resolve) => socket.once("close", resolve));
    const head = received.slice(0, received.indexOf("\r\n\r\n"));
    assert.match(head, /^HTTP\/1\.1 201 /, received);
    assert.match(head, /\r\nConnection: close/i);
    assert.doesNotMatch(head, /keep-alive/i);
  });

  it("close() ends idle keep-alive connections and stops accepting", async () => {
    const endpoint = await start();
    const agent = new Agent({ keepAlive: true, ca: caOf() });
    const answer = await socketRequest({ url: endpoint.url, path: "/api/v3.0/shells", agent, ca: caOf() });
    assert.equal(answer.status, 200);
    const started = Date.now();
    await stop(endpoint);
    assert.ok(Date.now() - started < 2000, "close() does not wait for the keep-alive timeout");
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(endpoint.port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    assert.ok(refused);
    agent.destroy();
  });
});

/** Writes `request` on a connection and reads everything until the server ends it. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
    socket.write(request);
  });
}

/** Writes `requests` in one go on one connection; the answers (status, body) until the server closes it. */
function pipelined(port: number, requests: string): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const answers: { status: number; body: string }[] = [];
      let text = received.toString("latin1");
      while (text.startsWith("HTTP/1.1 ")) {
        const end = text.indexOf("\r\n\r\n");
        const head = text.slice(0, end);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        answers.push({ status: Number(head.slice(9, 12)), body: text.slice(end + 4, end + 4 + length) });
        text = text.slice(end + 4 + length);
      }
      resolve(answers);
    });
    socket.write(requests);
  });
}

/**
 * Writes each of `requests` once the answer to the one before is in (its head and its
 * Content-Length body) on one connection; everything received until the server ends it.
 */
function oneAfterAnother(port: number, requests: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let sent = 0;
    const answered = () => {
      let at = 0;
      let count = 0;
      for (;;) {
        const end = received.indexOf("\r\n\r\n", at);
        if (end === -1) return count;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(received.slice(at, end))?.[1] ?? 0);
        if (received.length < end + 4 + length) return count;
        at = end + 4 + length;
        count++;
      }
    };
    const next = () => {
      if (sent < requests.length && answered() === sent) socket.write(requests[sent++]!);
    };
    socket.on("connect", next);
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      next();
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
}
