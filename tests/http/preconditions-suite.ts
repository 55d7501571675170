/**
 * Black-box suite of conditional requests (RFC 9110 §13) where the other suites do not reach: If-Match
 * on every GET that answers an ETag (the hot $value route hands it to the general path), and the
 * ETag and 304 of a File's attachment. Real HTTPS, embedded and distributed.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { createFixtureAt, etagOf } from "./submodel-suite-support.ts";

let counter = 0;
const unique = (label: string) => `urn:twinport:test:preconditions:${label}:${process.pid}:${++counter}`;

const cdBody = (id: string) => JSON.stringify({ modelType: "ConceptDescription", id });

/** An AAS Result with the status as its code, and nothing of the representation. */
function assertRefused(response: HttpResponse, status: number, what: string): void {
  assert.equal(response.status, status, `${what}: ${response.text}`);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ["messages"], what);
  assert.equal(body.messages[0].code, String(status), what);
}

function multipart(fileName: string, bytes: Buffer): { body: Buffer; type: string } {
  const boundary = `----twinport${randomBytes(8).toString("hex")}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fileName"\r\n\r\n${fileName}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

export function preconditionsSuite(mode: Mode): void {
  let sut: SystemUnderTest;
  let http: HttpClient;
  describe(`conditional requests, ${mode} mode`, () => {
    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0]!;
    });
    after(async () => {
      await sut?.stop();
    });

    const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
      http.request("POST", url, { body, headers });

    test("GET with If-Match answers 412 and no representation unless a tag is the current ETag (strongly) or *; If-Match before If-None-Match; a missing target stays 404", async () => {
      const { submodel, path, aasId } = await createFixtureAt(http, "get-if-match", "shell");
      const repository = `/submodels/${b64(submodel.id)}`;
      const cdId = unique("cd");
      assert.equal((await post("/concept-descriptions", cdBody(cdId))).status, 201);
      const shell = `/shells/${b64(aasId!)}`;
      const element = `${repository}/submodel-elements/MaxRotationSpeed`;
      const gets = [
        shell,
        `${shell}/$reference`,
        `${shell}/asset-information`,
        repository,
        `${repository}/$metadata`,
        `${repository}/$value`,
        `${repository}/$reference`,
        `${repository}/$path`,
        path,
        element,
        // The hot route's URL (ADR 0045): it must hand a GET with If-Match to the general path.
        `${element}/$value`,
        `${element}/$metadata`,
        `${element}/$reference`,
        `${repository}/submodel-elements/Dimensions/$path`,
        `${path}/submodel-elements/Dimensions.Width/$value`,
        `/concept-descriptions/${b64(cdId)}`,
      ];
      for (const url of gets) {
        const read = await http.get(url);
        assert.equal(read.status, 200, `${url}: ${read.text}`);
        const current = etagOf(read);
        for (const ifMatch of [current, `"1", ${current}`, "*"]) {
          const answer = await http.get(url, { "if-match": ifMatch });
          assert.equal(answer.status, 200, `${url} If-Match ${ifMatch}: ${answer.text}`);
          assert.equal(answer.text, read.text, `${url} If-Match ${ifMatch}`);
          assert.equal(answer.headers.etag, current, url);
        }
        for (const ifMatch of ['"1"', `W/${current}`, '"*"', "", '"1", *']) {
          assertRefused(await http.get(url, { "if-match": ifMatch }), 412, `${url} If-Match ${ifMatch}`);
        }
        // RFC 9110 §13.2.2: If-Match first (412), then If-None-Match (304).
        const both = await http.get(url, { "if-match": current, "if-none-match": current });
        assert.equal(both.status, 304, `${url} If-Match and If-None-Match current`);
        assertRefused(
          await http.get(url, { "if-match": '"1"', "if-none-match": current }),
          412,
          `${url} If-Match stale, If-None-Match current`,
        );
        assert.equal((await http.request("HEAD", url, { headers: { "if-match": '"1"' } })).status, 412, `HEAD ${url}`);
      }
      // A write moves the ETag on: the tag read before no longer gives the representation.
      const before = etagOf(await http.get(`${element}/$value`));
      assert.equal((await http.request("PATCH", `${element}/$value`, { body: "4242" })).status, 204);
      assertRefused(await http.get(`${element}/$value`, { "if-match": before }), 412, "a stale tag");
      // A target that does not exist is a 404 whatever the preconditions say (RFC 9110 §13.2.1).
      for (const url of [`${repository}/submodel-elements/Nope/$value`, `/shells/${b64(unique("none"))}`])
        for (const ifMatch of ["*", '"1"']) assertRefused(await http.get(url, { "if-match": ifMatch }), 404, url);
    });

    test("GET …/attachment carries the File element's ETag: If-None-Match gives 304, If-Match a stale tag 412, an upload a new tag", async () => {
      const { path } = await createFixtureAt(http, "attachment", "repository");
      const element = `${path}/submodel-elements/Manual`;
      const attachment = `${element}/attachment`;
      const upload = async (bytes: Buffer) => {
        const { body, type } = multipart("manual.pdf", bytes);
        const put = await http.request("PUT", attachment, { body, headers: { "content-type": type } });
        assert.equal(put.status, 204, put.text);
      };
      const first = Buffer.from(`%PDF-1.7\n${randomBytes(64).toString("hex")}\n%%EOF\n`);
      await upload(first);
      const download = await http.get(attachment);
      assert.equal(download.status, 200, download.text);
      assert.deepEqual(download.bytes, first);
      const etag = etagOf(download);
      assert.equal(etag, etagOf(await http.get(element)), "the element's ETag");
      for (const ifNoneMatch of [etag, `W/${etag}`, `"1", ${etag}`, "*"]) {
        const answer = await http.get(attachment, { "if-none-match": ifNoneMatch });
        assert.equal(answer.status, 304, `If-None-Match ${ifNoneMatch}`);
        assert.equal(answer.headers.etag, etag);
        assert.equal(answer.text, "");
      }
      const matching = await http.get(attachment, { "if-match": etag });
      assert.equal(matching.status, 200);
      assert.deepEqual(matching.bytes, first);
      assert.equal((await http.get(attachment, { "if-none-match": '"1"' })).status, 200);
      await upload(Buffer.from("%PDF-1.7\nsecond\n%%EOF\n"));
      const second = await http.get(attachment, { "if-none-match": etag });
      assert.equal(second.status, 200, "a new upload is a new representation");
      assert.notEqual(etagOf(second), etag);
      assertRefused(await http.get(attachment, { "if-match": etag }), 412, "If-Match the tag before the upload");
    });
  });
}
