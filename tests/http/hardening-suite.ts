/**
 * Black-box suite of issue 13 part 2 (hostile inputs) over real HTTPS and raw sockets, run against
 * embedded mode and the distributed mode (model-store + http-gateway + Redis + NATS as processes).
 * Every hostile request gets a 4xx with the AAS Result body, and a normal request right after it
 * still succeeds: the server neither crashed nor froze.
 */

import assert from "node:assert/strict";
import { randomFillSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { after, before, describe, test } from "node:test";
import { crc32, deflateRawSync } from "node:zlib";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { rawZip } from "../test-support/raw-zip.ts";
import { findCertificate, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import {
  assertResult,
  assertServing,
  connectResult,
  httpCounts,
  keptAliveExchange,
  metricsOf,
  postRaw,
  rawExchange,
  replaceSpecPart,
  SUBMODEL,
  SUBMODEL_ID,
} from "./hardening-support.ts";

const json = (body: unknown) => ({
  body: typeof body === "string" ? body : JSON.stringify(body),
  headers: { "content-type": "application/json" },
});

export function hardeningSuite(mode: Mode): void {
  describe(`hostile inputs (issue 13 part 2), ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let client: HttpClient;
    let ca: string | undefined;

    before(async () => {
      // managementPort 0: each process picks a free port and names it in its ready line.
      sut = await startSystem(mode, { gateways: 1, config: { core: { managementPort: 0 } } });
      client = sut.clients[0]!;
      const gateway = sut.processes.find((proc) => proc.role !== "model-store")!;
      ca = findCertificate(dirname(gateway.logFile));
    });
    after(async () => {
      await sut?.stop();
    });

    describe("no input sets an object's prototype", () => {
      test("merge patches, $metadata and $value patches with __proto__ are refused and change nothing", async () => {
        const cases: [string, string, unknown][] = [
          ["PATCH submodel", SUBMODEL, JSON.parse('{"__proto__":{"idShort":"Hacked"}}')],
          ["PATCH $metadata", `${SUBMODEL}/$metadata`, JSON.parse('{"__proto__":{"idShort":"Hacked"}}')],
          [
            "PATCH element",
            `${SUBMODEL}/submodel-elements/Dimensions`,
            JSON.parse('{"__proto__":{"idShort":"Hacked"}}'),
          ],
          ["PATCH $value", `${SUBMODEL}/$value`, JSON.parse('{"__proto__":{"Dimensions":{"Width":9}}}')],
          [
            "PATCH element $value",
            `${SUBMODEL}/submodel-elements/Dimensions/$value`,
            JSON.parse('{"Dimensions":{"__proto__":{"Width":9}}}'),
          ],
        ];
        for (const [what, path, body] of cases) {
          const response = await client.request("PATCH", path, json(body));
          assertResult(response, 400, /__proto__/);
          await assertServing(client, what);
        }
        // Escaped in the JSON text, the key is the same member name.
        const escaped = await client.request("PATCH", SUBMODEL, json('{"\\u005f_proto__":{"idShort":"Hacked"}}'));
        assertResult(escaped, 400, /__proto__/);
        const submodel = (await client.get(SUBMODEL)).json();
        assert.equal(submodel.idShort, "TechnicalData");
        const width = (await client.get(`${SUBMODEL}/submodel-elements/Dimensions.Width/$value`)).json();
        assert.deepEqual(width, { Width: 0.25 });
      });

      test("constructor and prototype are unknown properties of AAS objects", async () => {
        const patch = await client.request(
          "PATCH",
          SUBMODEL,
          json({ constructor: { prototype: { idShort: "Hacked" } } }),
        );
        assertResult(patch, 400, /constructor/);
        const posted = await client.request(
          "POST",
          `${SUBMODEL}/submodel-elements`,
          json({ modelType: "Property", idShort: "P", valueType: "xs:string", prototype: { x: 1 } }),
        );
        assertResult(posted, 400, /prototype/);
        const modelType = await client.request(
          "POST",
          `${SUBMODEL}/submodel-elements`,
          json({ modelType: "constructor", idShort: "P" }),
        );
        assert.equal(modelType.status, 400, modelType.text);
        const created = await client.request(
          "POST",
          "/shells",
          json(
            '{"modelType":"AssetAdministrationShell","id":"urn:x:proto","__proto__":{},"assetInformation":{"assetKind":"Instance","globalAssetId":"urn:a"}}',
          ),
        );
        assertResult(created, 400, /__proto__/);
        await assertServing(client, "constructor/prototype members");
      });

      test("elements called constructor and prototype are plain data", async () => {
        const collection = {
          modelType: "SubmodelElementCollection",
          idShort: "prototype",
          value: [{ modelType: "Property", idShort: "constructor", valueType: "xs:string", value: "a" }],
        };
        const posted = await client.request("POST", `${SUBMODEL}/submodel-elements`, json(collection));
        assert.equal(posted.status, 201, posted.text);
        const patched = await client.request(
          "PATCH",
          `${SUBMODEL}/submodel-elements/prototype/$value`,
          json({ prototype: { constructor: "b" } }),
        );
        assert.equal(patched.status, 204, patched.text);
        const value = (await client.get(`${SUBMODEL}/submodel-elements/prototype/$value`)).json();
        assert.deepEqual(value, { prototype: { constructor: "b" } });
        const submodelValue = await client.request(
          "PATCH",
          `${SUBMODEL}/$value`,
          json({ prototype: { constructor: "c" } }),
        );
        assert.equal(submodelValue.status, 204, submodelValue.text);
        assert.deepEqual((await client.get(`${SUBMODEL}/submodel-elements/prototype.constructor/$value`)).json(), {
          constructor: "c",
        });
        assert.equal((await client.request("DELETE", `${SUBMODEL}/submodel-elements/prototype`)).status, 204);
      });

      test("query parameters named __proto__, constructor, prototype are ignored as data", async () => {
        const response = await client.get(`/submodels?__proto__[idShort]=Hacked&constructor=x&prototype=y&__proto__=z`);
        assert.equal(response.status, 200, response.text);
        const listed = response.json().result.find((submodel: { id: string }) => submodel.id === SUBMODEL_ID);
        assert.equal(listed.idShort, "TechnicalData");
      });

      test("XML and AASX documents with a __proto__ member are refused", async () => {
        const xml =
          '<environment xmlns="https://admin-shell.io/aas/3/0"><submodels><submodel><__proto__><idShort>Hacked</idShort></__proto__>' +
          "<id>urn:x:xml-proto</id></submodel></submodels></environment>";
        const imported = await client.request("POST", "/import", {
          body: xml,
          headers: { "content-type": "application/xml" },
        });
        assertResult(imported, 400, /__proto__/);
        const environment =
          '{"submodels":[{"modelType":"Submodel","id":"urn:x:aasx-proto","__proto__":{"idShort":"Hacked"}}]}';
        const { writeAasx } = await import("@twinport/shared");
        const aasx = writeAasx({ environment: JSON.parse(environment), files: [], format: "json" });
        const response = await client.request("POST", "/import", {
          body: Buffer.from(aasx),
          headers: { "content-type": "application/asset-administration-shell-package+xml" },
        });
        assertResult(response, 400, /__proto__/);
        assert.equal((await client.get(`/submodels/${b64("urn:x:aasx-proto")}`)).status, 404);
        await assertServing(client, "hostile documents");
      });
    });

    describe("Blob values that are no padded base64", () => {
      test("/import leaves out the submodel with such a Blob, reports it with its path, and imports the others", async () => {
        const submodel = (n: number, elements: unknown[]) => ({
          modelType: "Submodel",
          id: `urn:x:blob-import:${n}`,
          idShort: `BlobImport${n}`,
          submodelElements: elements,
        });
        const bad = { modelType: "Blob", idShort: "Bad", contentType: "a/b", value: "QQ" };
        const body = JSON.stringify({ submodels: [submodel(1, []), submodel(2, [bad]), submodel(3, [])] });
        const imported = await client.request("POST", "/import", { body });
        assert.equal(imported.status, 200, imported.text);
        const problems = imported.json() as { id: string; code: string; text: string }[];
        assert.equal(problems.length, 1, imported.text);
        assert.equal(problems[0]!.id, "urn:x:blob-import:2");
        assert.match(problems[0]!.text, /submodelElements\[0\]\.value.*xs:base64Binary/);
        for (const n of [1, 3])
          assert.equal((await client.get(`/submodels/${b64(`urn:x:blob-import:${n}`)}`)).status, 200);
        assert.equal((await client.get(`/submodels/${b64("urn:x:blob-import:2")}`)).status, 404);
        // An id defined twice, differently: neither definition is imported (the first won silently).
        const twice = JSON.stringify({
          submodels: [
            { ...submodel(4, []), idShort: "First" },
            { ...submodel(4, []), idShort: "Second" },
          ],
        });
        const duplicated = await client.request("POST", "/import", { body: twice });
        assert.equal(duplicated.status, 200, duplicated.text);
        assert.match(duplicated.text, /defined differently .* neither is imported/);
        assert.equal((await client.get(`/submodels/${b64("urn:x:blob-import:4")}`)).status, 404);
        await assertServing(client, "a Blob without padding");
      });
    });

    describe("XML with more than indentation between tags", () => {
      test("megabytes of whitespace between identifiables are a 400 as they are read, not held", async () => {
        const ns = "https://admin-shell.io/aas/3/0";
        const xml = `<environment xmlns="${ns}"><submodels>${" ".repeat(2 * 1024 * 1024)}<submodel><id>urn:x:ws</id></submodel></submodels></environment>`;
        const imported = await client.request("POST", "/import", {
          body: xml,
          headers: { "content-type": "application/xml" },
        });
        assertResult(imported, 400, /more than 1024 KiB of text between two tags/);
        assert.equal((await client.get(`/submodels/${b64("urn:x:ws")}`)).status, 404);
        await assertServing(client, "whitespace between tags");
      });
    });

    describe("requests another site's page makes a browser send (CSRF)", () => {
      const value = `${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value`;
      test("GET /reset and a PATCH of a value from a foreign page are 403 and change nothing; the server's own pages write", async () => {
        const before = (await client.get(value)).text;
        const foreign = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
        assertResult(await client.get("/reset", foreign), 403, /another site's page/);
        assert.equal((await client.get(SUBMODEL)).status, 200, "the model is still there");
        // The plain $value PATCH (served before Hono where it can be) from a browser too old for Sec-Fetch-Site.
        const patched = await client.request("PATCH", value, {
          body: "4242",
          headers: { "content-type": "application/json", origin: "https://evil.example" },
        });
        assertResult(patched, 403);
        assert.equal((await client.get(value)).text, before, "the value is unchanged");
        const own = await client.request("PATCH", value, {
          body: before,
          headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
        });
        assert.equal(own.status, 204, own.text);
      });
    });

    describe("Content-Type of JSON bodies", () => {
      const property = JSON.stringify({ modelType: "Property", idShort: "Typed", valueType: "xs:int", value: "1" });
      test("a JSON write with a type a web page can send without a preflight is 415", async () => {
        const types = [
          "text/plain",
          "text/plain;charset=UTF-8",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/xml",
          "application/jsonx",
        ];
        for (const type of types) {
          const posted = await client.request("POST", `${SUBMODEL}/submodel-elements`, {
            body: property,
            headers: { "content-type": type },
          });
          assertResult(posted, 415, /application\/json/);
          const patched = await client.request("PATCH", `${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value`, {
            body: "1",
            headers: { "content-type": type },
          });
          assertResult(patched, 415);
          const invoked = await client.request("POST", `${SUBMODEL}/submodel-elements/Functions.Reset/invoke`, {
            body: '{"inputArguments":[]}',
            headers: { "content-type": type },
          });
          assertResult(invoked, 415);
        }
        assert.equal((await client.get(`${SUBMODEL}/submodel-elements/Typed`)).status, 404, "nothing was created");
        await assertServing(client, "wrong content types");
      });

      test("a body without any Content-Type is 415", async () => {
        const response = await rawExchange(
          sut,
          ca,
          `PATCH /api/v3.0${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nConnection: close\r\n\r\n1`,
        );
        assert.equal(response.status, 415, response.text);
        assert.equal(JSON.parse(response.body).messages[0].code, "415");
      });

      test("application/json and application/*+json with parameters are taken", async () => {
        for (const [type, idShort] of [
          ["application/json; charset=utf-8", "Typed1"],
          ["Application/JSON", "Typed2"],
          ["application/merge-patch+json", "Typed3"],
        ]) {
          const posted = await client.request("POST", `${SUBMODEL}/submodel-elements`, {
            body: property.replace("Typed", idShort),
            headers: { "content-type": type },
          });
          assert.equal(posted.status, 201, `${type}: ${posted.text}`);
          assert.equal((await client.request("DELETE", `${SUBMODEL}/submodel-elements/${idShort}`)).status, 204);
        }
      });

      test("a body with a content coding, or JSON declared in another charset than UTF-8, is 415 and changes nothing", async () => {
        const value = `${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value`;
        const before = (await client.get(value)).text;
        const cases: [string, string, string, Record<string, string>][] = [
          ["POST element, gzip", "POST", `${SUBMODEL}/submodel-elements`, { "content-encoding": "gzip" }],
          ["PATCH $value, gzip", "PATCH", value, { "content-encoding": "gzip" }],
          ["PATCH $value, deflate, identity", "PATCH", value, { "content-encoding": "deflate, identity" }],
          [
            "POST element, latin-1",
            "POST",
            `${SUBMODEL}/submodel-elements`,
            { "content-type": "application/json; charset=iso-8859-1" },
          ],
          ["PATCH $value, latin-1", "PATCH", value, { "content-type": 'application/json;charset="ISO-8859-1"' }],
        ];
        for (const [what, method, path, headers] of cases) {
          const body = method === "PATCH" ? "4321" : property.replace("Typed", "Coded");
          const answer = await client.request(method, path, {
            body,
            headers: { "content-type": "application/json", ...headers },
          });
          assertResult(answer, 415);
          assert.match(JSON.parse(answer.text).messages[0].text, /Content-Encoding|charset/, what);
        }
        assert.equal((await client.get(value)).text, before);
        assert.equal((await client.get(`${SUBMODEL}/submodel-elements/Coded`)).status, 404);
        const identity = await client.request("PATCH", value, {
          body: "4321",
          headers: { "content-type": "application/json", "content-encoding": "identity" },
        });
        assert.equal(identity.status, 204, identity.text);
        const restore = JSON.stringify(JSON.parse(before).MaxRotationSpeed);
        assert.equal((await client.request("PATCH", value, { body: restore })).status, 204);
      });
    });

    describe("values too long for the metamodel's pattern checks", () => {
      test("a 4-million-character content type, anyURI or File value is a 400 naming the check, not a 500", async () => {
        const huge = "b".repeat(4_000_000);
        const cases: [string, () => Promise<{ status: number; text: string }>][] = [
          [
            "File contentType",
            () =>
              client.request("POST", "/submodels", {
                ...json({
                  modelType: "Submodel",
                  id: "urn:test:huge-content-type",
                  submodelElements: [{ modelType: "File", idShort: "F", contentType: `a/${huge}`, value: "x" }],
                }),
              }),
          ],
          [
            "xs:anyURI Property",
            () =>
              client.request("POST", `${SUBMODEL}/submodel-elements`, {
                ...json({
                  modelType: "Property",
                  idShort: "HugeUri",
                  valueType: "xs:anyURI",
                  value: `http://x/${huge}`,
                }),
              }),
          ],
          [
            "xs:anyURI $value",
            async () => {
              const created = await client.request("POST", `${SUBMODEL}/submodel-elements`, {
                ...json({ modelType: "Property", idShort: "Uri", valueType: "xs:anyURI", value: "http://x/" }),
              });
              assert.equal(created.status, 201, created.text);
              return client.request(
                "PATCH",
                `${SUBMODEL}/submodel-elements/Uri/$value`,
                json(JSON.stringify(`http://x/${huge}`)),
              );
            },
          ],
        ];
        for (const [what, send] of cases) {
          const answer = await send();
          assert.equal(answer.status, 400, `${what}: ${answer.text.slice(0, 300)}`);
          assert.match(JSON.parse(answer.text).messages[0].text, /too long to be checked/, what);
        }
        assert.equal((await client.get(`/submodels/${b64("urn:test:huge-content-type")}`)).status, 404);
        const uri = await client.get(`${SUBMODEL}/submodel-elements/Uri/$value`);
        assert.deepEqual(uri.json(), { Uri: "http://x/" }, "the stored value is unchanged");
        assert.equal((await client.request("DELETE", `${SUBMODEL}/submodel-elements/Uri`)).status, 204);
      });
    });

    describe("client values quoted in errors", () => {
      test("a 5 MB value or property name, or a 9,000-character content type, comes back cut in a Result of a few KB", async () => {
        const huge = "Z".repeat(5_000_000);
        const value = `${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value`;
        const cases: [string, () => Promise<{ status: number; text: string }>, RegExp][] = [
          ["a string for an xs:int", () => client.request("PATCH", value, json(JSON.stringify(huge))), /ZZ"? .*xs:/],
          [
            "a content type",
            // 9,000 characters: within the request head's limit, which a longer one meets first (431).
            () =>
              client.request("PATCH", value, {
                body: "1",
                headers: { "content-type": `application/${huge.slice(0, 9000)}` },
              }),
            /Content-Type/,
          ],
          [
            "a property name",
            () => client.request("POST", "/submodels", json({ modelType: "Submodel", id: "urn:test:echo", [huge]: 1 })),
            /.+/,
          ],
        ];
        for (const [what, send, reason] of cases) {
          const answer = await send();
          assert.ok(answer.status >= 400 && answer.status < 500, `${what}: ${answer.status}`);
          assert.ok(answer.text.length < 4096, `${what}: ${answer.text.length} characters of Result`);
          assert.match(JSON.parse(answer.text).messages[0].text, reason, what);
        }
      });
    });

    describe("invalid UTF-8 in a JSON body", () => {
      test("is refused with 400, not stored with replacement characters", async () => {
        const broken = Buffer.concat([
          Buffer.from('{"modelType":"Property","idShort":"Broken","valueType":"xs:string","value":"a'),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from('b"}'),
        ]);
        const posted = await client.request("POST", `${SUBMODEL}/submodel-elements`, { body: broken });
        assertResult(posted, 400, /UTF-8/);
        assert.equal((await client.get(`${SUBMODEL}/submodel-elements/Broken`)).status, 404);
        // An overlong encoding of "/" and a lone surrogate (CESU-8) are not UTF-8 either.
        for (const bytes of [
          [0xc0, 0xaf],
          [0xed, 0xa0, 0x80],
        ]) {
          const patched = await client.request("PATCH", `${SUBMODEL}/submodel-elements/Manufacturer/$value`, {
            body: Buffer.concat([Buffer.from('"x'), Buffer.from(bytes), Buffer.from('"')]),
          });
          assertResult(patched, 400, /UTF-8/);
        }
        const ok = await client.request("POST", `${SUBMODEL}/submodel-elements`, {
          body: Buffer.from('{"modelType":"Property","idShort":"Unicode","valueType":"xs:string","value":"Grüße ✓ 𝄞"}'),
        });
        assert.equal(ok.status, 201, ok.text);
        assert.deepEqual((await client.get(`${SUBMODEL}/submodel-elements/Unicode/$value`)).json(), {
          Unicode: "Grüße ✓ 𝄞",
        });
        assert.equal((await client.request("DELETE", `${SUBMODEL}/submodel-elements/Unicode`)).status, 204);
      });
    });

    describe("oversized request heads and malformed framing", () => {
      const patchValue = `PATCH /api/v3.0${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n`;

      test("a 100k-character id, 10,000 query parameters and 3,000 headers get 414/431 with a Result body the client can read", async () => {
        const cases: [string, string, number][] = [
          [
            "100k-character id",
            `GET /api/v3.0/submodels/${"A".repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
            414,
          ],
          [
            "10,000 query parameters",
            `GET /api/v3.0/submodels?${Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join("&")} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
            414,
          ],
          [
            "3,000 headers",
            `GET /api/v3.0/submodels HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: 3000 }, (_, i) => `X-Header-${i}: v`).join("\r\n")}\r\n\r\n`,
            431,
          ],
          [
            "one 20 KB header",
            `GET /api/v3.0/submodels HTTP/1.1\r\nHost: localhost\r\nX-Large: ${"v".repeat(20_000)}\r\n\r\n`,
            431,
          ],
        ];
        for (const [what, request, status] of cases) {
          const answer = await rawExchange(sut, ca, request);
          assert.equal(answer.status, status, `${what}: ${answer.text.slice(0, 300)}`);
          assert.match(answer.head, /\r\nConnection: close/i, what);
          const body = JSON.parse(answer.body);
          assert.equal(body.messages[0].code, String(status), what);
          await assertServing(client, what);
        }
      });

      test("a Host header that names no host is a 400 with a Result body", async () => {
        for (const [what, request] of [
          ["Host: a b", "GET /api/v3.0/shells HTTP/1.1\r\nHost: a b\r\n\r\n"],
          ["Host: x:99999", "GET /api/v3.0/shells HTTP/1.1\r\nHost: x:99999\r\n\r\n"],
        ] as const) {
          const answer = await rawExchange(sut, ca, request);
          assert.equal(answer.status, 400, `${what}: ${answer.text.slice(0, 300)}`);
          const body = JSON.parse(answer.body);
          assert.equal(body.messages[0].code, "400", what);
          assert.match(body.messages[0].text, /could not be read/, what);
          await assertServing(client, what);
        }
      });

      test("HTTP/1.0 without Host is served under the TLS server name (RFC 9112 §3.2 asks Host of HTTP/1.1 only)", async () => {
        const answer = await rawExchange(sut, ca, "GET /api/v3.0/shells HTTP/1.0\r\n\r\n");
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        assert.match(answer.head, /\r\nConnection: close(\r\n|$)/);
        assert.ok(Array.isArray(JSON.parse(answer.body).result));
        const missing = await rawExchange(sut, ca, "GET /api/v3.0/shells HTTP/1.1\r\n\r\n");
        assert.equal(missing.status, 400, missing.text.slice(0, 300));
        assert.match(JSON.parse(missing.body).messages[0].text, /Host header/);
        await assertServing(client, "HTTP/1.0 without Host");
      });

      test("broken chunked framing is a 400 with a Result body, counted and logged as a 400", async () => {
        const before = httpCounts(await metricsOf(sut));
        const cases: [string, string][] = [
          ["a bad chunk size", `${patchValue}Transfer-Encoding: chunked\r\n\r\nzz\r\n1\r\n0\r\n\r\n`],
          ["Transfer-Encoding: xchunked", `${patchValue}Transfer-Encoding: xchunked\r\n\r\n1`],
          ["garbage instead of a request line", "\x01\x02 nonsense\r\n\r\n"],
        ];
        for (const [what, request] of cases) {
          const answer = await rawExchange(sut, ca, request);
          assert.equal(answer.status, 400, `${what}: ${answer.text.slice(0, 300)}`);
          assert.equal(JSON.parse(answer.body).messages[0].code, "400", what);
          await assertServing(client, what);
        }
        const after = httpCounts(await metricsOf(sut));
        assert.equal(after["500"] ?? 0, before["500"] ?? 0, "no 500 counted for the client's broken requests");
        assert.ok(
          (after["400"] ?? 0) - (before["400"] ?? 0) >= cases.length,
          `each counted as a 400: ${JSON.stringify({ before, after })}`,
        );
        const log = readFileSync(sut.processes.find((proc) => proc.role !== "model-store")!.logFile, "utf8");
        assert.doesNotMatch(log, /"status":500/, "no request logged as failed with 500");
      });

      test("garbage after an answered request on the same connection is answered 400 with a Result body, and counted", async () => {
        const before = httpCounts(await metricsOf(sut));
        // The first request is answered in full on a kept-alive connection; then the client sends garbage.
        const text = await keptAliveExchange(sut, ca, [
          `GET /api/v3.0${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value HTTP/1.1\r\nHost: localhost\r\n\r\n`,
          "\x01\x02 nonsense\r\n\r\n",
        ]);
        assert.match(text, /^HTTP\/1\.1 200 /, text.slice(0, 300));
        const second = text.indexOf("HTTP/1.1 400");
        assert.ok(second > 0, `a second answer, a 400: ${text.slice(0, 600)}`);
        const rest = text.slice(second);
        assert.equal(JSON.parse(rest.slice(rest.indexOf("\r\n\r\n") + 4)).messages[0].code, "400");
        const after = httpCounts(await metricsOf(sut));
        assert.equal((after["400"] ?? 0) - (before["400"] ?? 0), 1, "the 400 is counted once");
        await assertServing(client, "after garbage on a kept-alive connection");
      });
    });

    describe("management port address", () => {
      test("with every endpoint on 127.0.0.1, the management port binds 127.0.0.1 too", async () => {
        const gateway = sut.processes.find((proc) => proc.role !== "model-store")!;
        const url = new URL(String(gateway.details.management));
        assert.equal(url.hostname, "127.0.0.1");
        const port = Number(url.port);
        assert.equal(await connectResult("127.0.0.1", port), "connected");
        // Another loopback address reaches a socket bound to 0.0.0.0, never one bound to 127.0.0.1.
        assert.equal(await connectResult("127.0.0.2", port), "ECONNREFUSED");
      });
    });

    describe("canonical lexical values", () => {
      test("-0 written to an xs:int, over $value and as a full element, is stored and read back as 0", async () => {
        const speed = `${SUBMODEL}/submodel-elements/MaxRotationSpeed`;
        for (const body of ["-0", '"-0"', '"+000"']) {
          const patched = await client.request("PATCH", `${speed}/$value`, json(body));
          assert.equal(patched.status, 204, patched.text);
          assert.equal((await client.get(`${speed}/$value`)).text, '{"MaxRotationSpeed":0}', body);
          assert.equal((await client.get(speed)).json().value, "0", body);
        }
        const posted = await client.request(
          "POST",
          `${SUBMODEL}/submodel-elements`,
          json({ modelType: "Property", idShort: "Zero", valueType: "xs:long", value: "-0" }),
        );
        assert.equal(posted.status, 201, posted.text);
        assert.equal((await client.get(`${SUBMODEL}/submodel-elements/Zero`)).json().value, "0");
        assert.equal((await client.get(`${SUBMODEL}/submodel-elements/Zero/$value`)).text, '{"Zero":0}');
        assert.equal((await client.request("PATCH", `${speed}/$value`, json("5000"))).status, 204);
      });

      test("integers lose '+' and leading zeros, booleans are true/false, decimals keep their fraction digits", async () => {
        const elements = [
          { modelType: "Property", idShort: "CInt", valueType: "xs:unsignedShort", value: "+0042" },
          { modelType: "Property", idShort: "CBool", valueType: "xs:boolean", value: "1" },
          { modelType: "Property", idShort: "CDecimal", valueType: "xs:decimal", value: "-000.50" },
          { modelType: "Property", idShort: "CDouble", valueType: "xs:double", value: "-0" },
          { modelType: "Range", idShort: "CRange", valueType: "xs:integer", min: "-0", max: "+010" },
        ];
        const collection = { modelType: "SubmodelElementCollection", idShort: "Canonical", value: elements };
        const posted = await client.request("POST", `${SUBMODEL}/submodel-elements`, json(collection));
        assert.equal(posted.status, 201, posted.text);
        const stored = (await client.get(`${SUBMODEL}/submodel-elements/Canonical`)).json().value;
        assert.deepEqual(
          stored.map((e: Record<string, string>) => e.value ?? [e.min, e.max]),
          ["42", "true", "-0.50", "-0", ["0", "10"]],
          "xs:double keeps its negative zero: IEEE 754 has one",
        );
        const patched = await client.request(
          "PATCH",
          `${SUBMODEL}/submodel-elements/Canonical/$value`,
          json('{"CBool":"0","CDecimal":"+.5","CInt":7}'),
        );
        assert.equal(patched.status, 204, patched.text);
        const value = (await client.get(`${SUBMODEL}/submodel-elements/Canonical/$value`)).text;
        assert.match(value, /"CInt":7,"CBool":false,"CDecimal":0.5,/);
        assert.equal((await client.get(`${SUBMODEL}/submodel-elements/Canonical.CBool`)).json().value, "false");
        assert.equal((await client.request("DELETE", `${SUBMODEL}/submodel-elements/Canonical`)).status, 204);
      });
    });

    describe("nesting depth (core.maxNestingDepth, default 64)", () => {
      const AASX = "application/asset-administration-shell-package+xml";
      /** A submodel whose elements nest `depth` deep: collections "c", the innermost one empty. */
      const nestedSubmodel = (id: string, depth: number) => {
        let element: Record<string, unknown> = { modelType: "SubmodelElementCollection", idShort: "c" };
        for (let level = 1; level < depth; level++)
          element = { modelType: "SubmodelElementCollection", idShort: "c", value: [element] };
        return { modelType: "Submodel", id, submodelElements: [element] };
      };
      // As text: JSON.stringify recurses, and 5,000 levels are too deep for this process too.
      const nestedSubmodelText = (id: string, depth: number) =>
        `{"modelType":"Submodel","id":"${id}","submodelElements":[` +
        '{"modelType":"SubmodelElementCollection","idShort":"c","value":['.repeat(depth - 1) +
        '{"modelType":"SubmodelElementCollection","idShort":"c"}' +
        "]}".repeat(depth - 1) +
        "]}";
      const nestedXml = (id: string, depth: number) =>
        `<environment xmlns="https://admin-shell.io/aas/3/0"><submodels><submodel><id>${id}</id><submodelElements>` +
        "<submodelElementCollection><idShort>c</idShort><value>".repeat(depth) +
        "</value></submodelElementCollection>".repeat(depth) +
        "</submodelElements></submodel></submodels></environment>";

      test("at the limit, JSON, XML and AASX input is taken and JSON, XML and AASX serialization answer 200", async () => {
        const id = "urn:x:nested-64";
        const posted = await client.request("POST", "/submodels", json(nestedSubmodel(id, 64)));
        assert.equal(posted.status, 201, posted.text);
        const query = `?submodelIds=${b64(id)}&includeConceptDescriptions=false`;
        for (const accept of ["application/json", "application/xml", AASX]) {
          const serialized = await client.request("GET", `/serialization${query}`, { headers: { accept } });
          assert.equal(serialized.status, 200, `${accept}: ${serialized.text.slice(0, 300)}`);
        }
        const xml = (await client.request("GET", `/serialization${query}`, { headers: { accept: "application/xml" } }))
          .text;
        assert.equal(xml.split("<submodelElementCollection>").length - 1, 64);
        assert.equal((await client.request("DELETE", `/submodels/${b64(id)}`)).status, 204);
        const imported = await client.request("POST", "/import", {
          body: xml,
          headers: { "content-type": "application/xml" },
        });
        assert.equal(imported.status, 200, imported.text);
        assert.equal((await client.get(`/submodels/${b64(id)}`)).status, 200, "the XML at the limit was imported");
        assert.equal((await client.request("DELETE", `/submodels/${b64(id)}`)).status, 204);
        const { writeAasx } = await import("@twinport/shared");
        const aasx = writeAasx({ environment: { submodels: [nestedSubmodel(id, 64)] }, files: [] });
        const fromPackage = await client.request("POST", "/import", {
          body: Buffer.from(aasx),
          headers: { "content-type": AASX },
        });
        assert.equal(fromPackage.status, 200, fromPackage.text);
        assert.equal((await client.get(`/submodels/${b64(id)}`)).status, 200, "the AASX at the limit was imported");
        assert.equal((await client.request("DELETE", `/submodels/${b64(id)}`)).status, 204);
      });

      test("one level deeper, or 5,000 deep, is a 400 naming the limit, in JSON, ValueOnly, XML and AASX", async () => {
        const { writeAasx } = await import("@twinport/shared");
        for (const depth of [65, 5000]) {
          const id = `urn:x:nested-${depth}`;
          const posted = await client.request("POST", "/submodels", json(nestedSubmodelText(id, depth)));
          assertResult(posted, 400, /maxNestingDepth/);
          // /import takes what it can: a too deep submodel is a problem in its 200 answer, a
          // document too deep to read at all is a 400.
          const refusedImport = (response: HttpResponse, what: string) => {
            if (depth === 5000) return assertResult(response, 400, /maxNestingDepth/);
            assert.equal(response.status, 200, `${what}: ${response.text}`);
            assert.match(response.json()[0].text, /nested 65 deep .*maxNestingDepth/, what);
          };
          refusedImport(
            await client.request("POST", "/import", {
              body: nestedXml(id, depth),
              headers: { "content-type": "application/xml" },
            }),
            "XML",
          );
          const aasx = writeAasx({
            environment: { submodels: [{ modelType: "Submodel", id: "urn:x:placeholder" }] },
            files: [],
          });
          // The package's spec part replaced by the deep JSON: writeAasx itself would recurse over it.
          const deepPackage = await replaceSpecPart(aasx, `{"submodels":[${nestedSubmodelText(id, depth)}]}`);
          const packaged = await client.request("POST", "/import", {
            body: Buffer.from(deepPackage),
            headers: { "content-type": AASX },
          });
          refusedImport(packaged, "AASX");
          const value = await client.request(
            "PATCH",
            `${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value`,
            json("[".repeat(depth) + "]".repeat(depth)),
          );
          assertResult(value, 400, depth > 100 ? /maxNestingDepth/ : undefined);
          assert.equal((await client.get(`/submodels/${b64(id)}`)).status, 404);
          await assertServing(client, `input nested ${depth} deep`);
        }
      });

      test("an element written below a path counts the path's depth", async () => {
        const id = "urn:x:nested-path";
        assert.equal((await client.request("POST", "/submodels", json(nestedSubmodel(id, 64)))).status, 201);
        const deepest = Array.from({ length: 64 }, () => "c").join(".");
        const elements = `/submodels/${b64(id)}/submodel-elements`;
        const property = { modelType: "Property", idShort: "p", valueType: "xs:int", value: "1" };
        assertResult(await client.request("POST", `${elements}/${deepest}`, json(property)), 400, /maxNestingDepth/);
        const sixtyThree = deepest.slice(0, -2);
        assert.equal(
          (await client.request("POST", `${elements}/${sixtyThree}`, json(property))).status,
          201,
          "depth 64 is fine",
        );
        const deeper = {
          modelType: "SubmodelElementCollection",
          idShort: "c",
          value: [{ modelType: "SubmodelElementCollection", idShort: "d" }],
        };
        assertResult(await client.request("PUT", `${elements}/${deepest}`, json(deeper)), 400, /maxNestingDepth/);
        assertResult(
          await client.request(
            "PATCH",
            `${elements}/${deepest}`,
            json({ value: [{ modelType: "Property", idShort: "q", valueType: "xs:int" }] }),
          ),
          400,
          /maxNestingDepth/,
        );
        assert.equal((await client.request("DELETE", `/submodels/${b64(id)}`)).status, 204);
      });
    });

    describe("AASX packages never freeze the server", () => {
      const AASX = "application/asset-administration-shell-package+xml";

      test("9,999 ratio-exempt entries of 100 KiB (~1 GB inflated, 2.3 MB zip) are refused, naming the limit", async () => {
        const zeros = Buffer.alloc(100 * 1024);
        const data = deflateRawSync(zeros);
        const entries = Array.from({ length: 9_999 }, (_, i) => ({
          name: `aasx/files/f${i}.bin`,
          data,
          uncompressedSize: zeros.length,
          crc32: crc32(zeros),
        }));
        const bomb = rawZip(entries);
        assert.ok(bomb.length < 3_000_000, `${bomb.length} bytes`);
        const response = await client.request("POST", "/import", { body: bomb, headers: { "content-type": AASX } });
        assertResult(response, 400, /more than the limit of 1000 \(core\.aasxMaxEntries\)/);
        assert.match(response.text, /core\.aasxMaxTotalSize|core\.aasxMaxEntries/);
        await assertServing(client, "the 9,999-entry package");
      });

      test("while a large package is inflated (in a worker), the server answers other requests", async () => {
        // 200 entries of 1 MiB that pass every directory check (ratio just above 0.01, 200 MiB in
        // total, under the 256 MiB budget); the last one's checksum is wrong, so the package is
        // refused only after all of it was inflated.
        const mib = Buffer.alloc(1024 * 1024);
        randomFillSync(mib, 0, 16 * 1024);
        const data = deflateRawSync(mib);
        assert.ok(data.length / mib.length > 0.01, "passes the ratio check");
        const entries = Array.from({ length: 200 }, (_, i) => ({
          name: `aasx/files/f${i}.bin`,
          data,
          uncompressedSize: mib.length,
          crc32: i === 199 ? crc32(mib) ^ 1 : crc32(mib),
        }));
        const heavy = rawZip(entries);
        // Counted from the moment the whole body was sent: only then is the server checking it.
        let sent = false;
        let answered = false;
        const imported = postRaw(client, ca, "/import", heavy, AASX, () => (sent = true)).finally(
          () => (answered = true),
        );
        let servedMeanwhile = 0;
        while (!answered) {
          const response = await client.get(`${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value`);
          assert.equal(response.status, 200, response.text);
          if (sent && !answered) servedMeanwhile++;
        }
        const response = await imported;
        assertResult(response, 400, /f199\.bin is corrupt \(CRC-32 mismatch\)/);
        assert.ok(
          servedMeanwhile >= 10,
          `other requests were answered while the package was inflated (${servedMeanwhile})`,
        );
      });

      test("a normal AASX with a file still imports", async () => {
        const { writeAasx } = await import("@twinport/shared");
        const id = "urn:x:packaged";
        const environment = {
          submodels: [
            {
              modelType: "Submodel",
              id,
              submodelElements: [
                { modelType: "File", idShort: "Doc", contentType: "application/pdf", value: "/aasx/files/doc.pdf" },
              ],
            },
          ],
        };
        const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), randomFillSync(Buffer.alloc(200_000))]);
        const aasx = writeAasx({
          environment,
          files: [{ path: "/aasx/files/doc.pdf", contentType: "application/pdf", bytes: pdf }],
        });
        const response = await client.request("POST", "/import", {
          body: Buffer.from(aasx),
          headers: { "content-type": AASX },
        });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.json(), []);
        const attachment = await client.get(`/submodels/${b64(id)}/submodel-elements/Doc/attachment`);
        assert.equal(attachment.status, 200);
        assert.equal(
          Number(attachment.headers["content-length"]),
          pdf.length,
          "the file came out of the package whole",
        );
        assert.equal((await client.request("DELETE", `/submodels/${b64(id)}`)).status, 204);
      });
    });

    describe("imports of tiny documents that hold too much", () => {
      const AASX = "application/asset-administration-shell-package+xml";
      /** An AASX (ours) whose spec part is `spec`, deflated (the spec part is exempt from the ratio guard). */
      const packageOf = async (spec: string) => {
        const { writeAasx } = await import("@twinport/shared");
        const { unzipSync, zipSync, strToU8 } = await import("fflate");
        const entries = unzipSync(writeAasx({ environment: {}, files: [] }));
        const name = Object.keys(entries).find((entry) => /^aasx\/aas\//.test(entry))!;
        entries[name] = strToU8(spec);
        return { name, entries, bytes: () => Buffer.from(zipSync(entries, { level: 1 })) };
      };

      test("100,000 empty identifiables: answered with 1,000 problems and a count, other requests served meanwhile", async () => {
        const { bytes } = await packageOf(
          `<environment xmlns="https://admin-shell.io/aas/3/0"><conceptDescriptions>${"<conceptDescription/>".repeat(100_000)}</conceptDescriptions></environment>`,
        );
        const body = bytes();
        assert.ok(body.length < 50_000, `${body.length} bytes`);
        let sent = false;
        let answered = false;
        const imported = postRaw(client, ca, "/import", body, AASX, () => (sent = true)).finally(
          () => (answered = true),
        );
        let servedMeanwhile = 0;
        while (!answered) {
          const response = await client.get(`${SUBMODEL}/submodel-elements/MaxRotationSpeed/$value`);
          assert.equal(response.status, 200, response.text);
          if (sent && !answered) servedMeanwhile++;
        }
        const response = await imported;
        assert.equal(response.status, 200, response.text.slice(0, 500));
        const problems = response.json() as { text: string }[];
        assert.equal(problems.length, 1_001);
        assert.equal(problems.at(-1)!.text, "99000 more problems not listed (only the first 1000 are)");
        assert.ok(servedMeanwhile >= 3, `other requests were answered while it was read (${servedMeanwhile})`);
      });

      test("one identifiable over core.importMaxIdentifiableSize (64 MiB) in a small package is a 413 naming it", async () => {
        const value = "v".repeat(64 * 1024 * 1024);
        const { bytes } = await packageOf(
          `<environment xmlns="https://admin-shell.io/aas/3/0"><submodels><submodel><id>urn:x:huge</id><submodelElements><property><idShort>P</idShort><valueType>xs:string</valueType><value>${value}</value></property></submodelElements></submodel></submodels></environment>`,
        );
        const body = bytes();
        assert.ok(body.length < 2_000_000, `${body.length} bytes`);
        const response = await client.request("POST", "/import", { body, headers: { "content-type": AASX } });
        assertResult(
          response,
          413,
          /submodels\[0\] is longer than 67108864 characters, the most one identifiable may take in an import \(core\.importMaxIdentifiableSize\)/,
        );
        assert.equal((await client.get(`/submodels/${b64("urn:x:huge")}`)).status, 404);
        await assertServing(client, "the package of one huge identifiable");
      });

      test("part names equal once percent-decoded, and a file relationship to the model part, are refused", async () => {
        const { strToU8 } = await import("fflate");
        const { name, entries, bytes } = await packageOf(
          `<environment xmlns="https://admin-shell.io/aas/3/0"><conceptDescriptions><conceptDescription><id>urn:x:cd</id></conceptDescription></conceptDescriptions></environment>`,
        );
        entries[name.replaceAll("/", "%2F")] = strToU8("<environment/>");
        assertResult(
          await client.request("POST", "/import", { body: bytes(), headers: { "content-type": AASX } }),
          400,
          /appears twice/,
        );
        delete entries[name.replaceAll("/", "%2F")];
        const file = name.slice(name.lastIndexOf("/") + 1);
        entries[`${name.slice(0, name.lastIndexOf("/"))}/_rels/${file}.rels`] = strToU8(
          `<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Type="http://admin-shell.io/aasx/relationships/aas-suppl" Target="${file}" Id="S1"/></Relationships>`,
        );
        assertResult(
          await client.request("POST", "/import", { body: bytes(), headers: { "content-type": AASX } }),
          400,
          /the aas-suppl relationship S1 points to .*, which is the model or the package's own structure, not a file/,
        );
        assert.equal((await client.get(`/concept-descriptions/${b64("urn:x:cd")}`)).status, 404);
      });
    });
  });
}
