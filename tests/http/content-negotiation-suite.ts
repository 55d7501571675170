/**
 * Black-box suite of content negotiation (RFC 9110 §12.5.1) over real HTTPS, run against embedded
 * mode and against the distributed mode: q=0 excludes a type even when a wildcard admits the rest,
 * a read whose Accept excludes every representation offered is a 406 with the AAS Result body, the
 * Serialization API picks among JSON, XML and AASX, attachments and packages are checked against
 * their own types, and errors and writes are not negotiated.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { writeAasx } from "@twinport/shared";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { EXAMPLE_MODEL, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { assertResult } from "./shell-suite-support.ts";

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const shellId: string = model.assetAdministrationShells[0].id;
const submodelId: string = model.submodels[1].id;
const attachmentPath = `/submodels/${b64(submodelId)}/submodel-elements/Manual/attachment`;
const AASX = "application/asset-administration-shell-package+xml";
// The issue's example: JSON refused outright, anything else barely welcome.
const NO_JSON = "application/json;q=0, */*;q=0.1";

function multipart(parts: { name: string; value: Buffer | string; fileName?: string; type?: string }[]): {
  body: Buffer;
  type: string;
} {
  const boundary = `----twinport${randomBytes(8).toString("hex")}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.fileName ? `; filename="${part.fileName}"` : ""}`;
    pieces.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ""}\r\n`,
      ),
    );
    pieces.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    pieces.push(Buffer.from("\r\n"));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), type: `multipart/form-data; boundary=${boundary}` };
}

function assertNotAcceptable(res: HttpResponse, what: string): void {
  assertResult(res, 406, /Accept header excludes every representation offered here/);
  assert.equal(res.headers["content-disposition"], undefined, `${what}: nothing of the refused representation is left`);
  assert.equal(res.headers.etag, undefined, `${what}: no ETag of the refused representation`);
}

export function contentNegotiationSuite(mode: Mode): void {
  describe(`content negotiation over HTTPS (${mode})`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;

    before(async () => {
      sut = await startSystem(mode, { gateways: 1 });
      http = sut.clients[0]!;
    });
    after(async () => await sut?.stop());

    test("JSON reads: any Accept that admits JSON is served; one that excludes it (q=0 included) is a 406", async () => {
      for (const accept of [
        undefined,
        "*/*",
        "application/*",
        "application/json",
        "application/json; charset=utf-8",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      ]) {
        const res = await http.get("/shells", accept === undefined ? {} : { Accept: accept });
        assert.equal(res.status, 200, `Accept: ${accept}`);
        assert.match(String(res.headers["content-type"]), /^application\/json/);
      }
      for (const accept of [
        NO_JSON,
        "application/xml",
        "application/json;q=0",
        "*/*;q=0",
        "*/*, application/json;q=0",
      ]) {
        assertNotAcceptable(await http.get("/shells", { Accept: accept }), accept);
        assertNotAcceptable(await http.get(`/shells/${b64(shellId)}`, { Accept: accept }), accept);
        assertNotAcceptable(await http.get(`/submodels/${b64(submodelId)}/$value`, { Accept: accept }), accept);
      }
      const head = await http.request("HEAD", "/shells", { headers: { Accept: NO_JSON } });
      assert.equal(head.status, 406, "HEAD answers like GET");
    });

    test("Serialization API: q=0 removes JSON from the choice; a wildcard then picks XML; nothing acceptable is a 406", async () => {
      const cases: [string, string][] = [
        ["*/*", "application/json"],
        [NO_JSON, "application/xml"],
        ["text/*", "application/xml"],
        ["application/json;q=0.5, application/xml", "application/xml"],
        ["application/aasx+xml", AASX],
        ["application/json;q=0, application/xml;q=0, text/xml;q=0, */*", AASX],
      ];
      for (const [accept, type] of cases) {
        const res = await http.get("/serialization", { Accept: accept });
        assert.equal(res.status, 200, `Accept: ${accept}: ${res.text}`);
        assert.equal(res.headers["content-type"], type, `Accept: ${accept}`);
      }
      for (const accept of [
        "text/html",
        "image/*",
        "application/json;q=0, application/xml;q=0, text/xml;q=0, application/*;q=0",
      ]) {
        assertResult(
          await http.get("/serialization", { Accept: accept }),
          406,
          /application\/json, application\/xml, text\/xml/,
        );
      }
    });

    test("attachments are checked against their own content type", async () => {
      const upload = multipart([
        { name: "fileName", value: "notes.txt" },
        { name: "file", value: "maintenance notes\n", type: "text/plain" },
      ]);
      const put = await http.request("PUT", attachmentPath, {
        body: upload.body,
        headers: { "content-type": upload.type },
      });
      assert.equal(put.status, 204, put.text);
      // application/octet-stream: what the AAS API declares for GetFileByPath (and what generated clients send).
      for (const accept of [
        "text/plain",
        "text/*",
        "*/*",
        "application/json, text/plain;q=0.1",
        "application/octet-stream",
      ]) {
        const res = await http.get(attachmentPath, { Accept: accept });
        assert.equal(res.status, 200, `Accept: ${accept}`);
        assert.equal(res.text, "maintenance notes\n");
      }
      for (const accept of [
        "application/json",
        "image/*, text/plain;q=0",
        NO_JSON.replace("application/json", "text/plain"),
      ]) {
        assertNotAcceptable(await http.get(attachmentPath, { Accept: accept }), accept);
      }
    });

    test("a shell's thumbnail: its own type or application/octet-stream (the API's declared type) is served", async () => {
      const path = `/shells/${b64(shellId)}/asset-information/thumbnail`;
      const upload = multipart([
        { name: "fileName", value: "thumbnail.png" },
        { name: "file", value: "\x89PNG\r\n", type: "image/png" },
      ]);
      const put = await http.request("PUT", path, { body: upload.body, headers: { "content-type": upload.type } });
      assert.equal(put.status, 204, put.text);
      const plain = await http.get(path);
      assert.equal(plain.status, 200, plain.text);
      assert.equal(plain.headers["content-type"], "image/png");
      for (const accept of [
        "image/png",
        "application/octet-stream",
        "application/json, application/octet-stream;q=0.5",
      ]) {
        const res = await http.get(path, { Accept: accept });
        assert.equal(res.status, 200, `Accept: ${accept}`);
        assert.equal(res.headers["content-type"], "image/png", `Accept: ${accept}`);
      }
      assertNotAcceptable(await http.get(path, { Accept: "application/json" }), "thumbnail as JSON");
    });

    test("packages: any of the three AASX spellings is accepted; an Accept without one is a 406", async () => {
      const pkg = writeAasx({
        environment: {
          assetAdministrationShells: [
            {
              modelType: "AssetAdministrationShell",
              id: "urn:negotiated",
              idShort: "Negotiated",
              assetInformation: { assetKind: "Instance", globalAssetId: "urn:negotiated:asset" },
            },
          ],
        },
        files: [],
      });
      const upload = multipart([
        { name: "aasIds", value: "urn:negotiated" },
        { name: "fileName", value: "negotiated.aasx" },
        { name: "file", value: Buffer.from(pkg), type: "application/asset-administration-shell-package" },
      ]);
      const posted = await http.request("POST", "/packages", {
        body: upload.body,
        headers: { "content-type": upload.type },
      });
      assert.equal(posted.status, 201, posted.text);
      const path = `/packages/${b64(posted.json().packageId)}`;
      for (const accept of ["application/asset-administration-shell-package", AASX, "application/aasx+xml", "*/*"]) {
        assert.equal((await http.get(path, { Accept: accept })).status, 200, `Accept: ${accept}`);
      }
      assertNotAcceptable(await http.get(path, { Accept: "application/json" }), "package as JSON");
    });

    test("errors are the AAS Result in JSON whatever Accept says; writes are not refused for their Accept", async () => {
      assertResult(await http.get(`/shells/${b64("urn:nowhere")}`, { Accept: "application/xml" }), 404);
      assertResult(await http.get("/shells?limit=0", { Accept: NO_JSON }), 400);
      const shell = {
        modelType: "AssetAdministrationShell",
        id: "urn:written-anyway",
        idShort: "WrittenAnyway",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:written-anyway:asset" },
      };
      const created = await http.request("POST", "/shells", {
        body: JSON.stringify(shell),
        headers: { Accept: "application/xml" },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal((await http.get(`/shells/${b64(shell.id)}`)).status, 200);
    });
  });
}
