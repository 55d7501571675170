/**
 * Black-box suite of a Blob of tens of megabytes written and read over real HTTPS (ADR 0061). Before
 * Node's codec took aas-core's base64 work, a 30 MB Blob held the process 12 s (embedded: every
 * endpoint stood still), and in distributed mode such writes answered 504 (the store's reply took
 * longer than its deadline) and then 503. 16 MiB here: ~22 MB of JSON, several seconds of the old
 * codec, well inside the deadline with Node's.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { blobElementJson } from "../test-support/blob-element.ts";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";

const SUBMODEL = "https://example.org/submodels/identification-1";
const BYTES = 16 * 1024 * 1024;

export function largeBlobSuite(mode: Mode): void {
  describe(`a Blob of ${BYTES / 1024 / 1024} MiB (${mode})`, () => {
    let sut: SystemUnderTest;
    let client: HttpClient;
    const elements = `/submodels/${b64(SUBMODEL)}/submodel-elements`;
    const blob = (bytes: Buffer) => blobElementJson("LargeImage", bytes);
    const json = { "content-type": "application/json" };
    const storedBytes = async () => {
      const res = await client.get(`${elements}/LargeImage?extent=withBlobValue`);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      return Buffer.from(res.json().value, "base64");
    };

    before(async () => {
      sut = await startSystem(mode, { gateways: 1 });
      client = sut.clients[0]!;
    });
    after(async () => {
      client?.close();
      await sut?.stop();
    });

    test("POST, then GET with its value: the same bytes", async () => {
      const bytes = randomBytes(BYTES);
      const res = await client.request("POST", elements, { body: blob(bytes), headers: json });
      assert.equal(res.status, 201, res.text.slice(0, 300));
      assert.ok((await storedBytes()).equals(bytes));
    });

    test("PUT replaces the bytes; PATCH $value replaces them again", async () => {
      const bytes = randomBytes(BYTES);
      let res = await client.request("PUT", `${elements}/LargeImage`, { body: blob(bytes), headers: json });
      assert.equal(res.status, 204, res.text.slice(0, 300));
      assert.ok((await storedBytes()).equals(bytes));

      const patched = randomBytes(BYTES);
      res = await client.request("PATCH", `${elements}/LargeImage/$value`, {
        body: JSON.stringify({ contentType: "application/x-firmware", value: patched.toString("base64") }),
        headers: json,
      });
      assert.equal(res.status, 204, res.text.slice(0, 300));
      assert.ok((await storedBytes()).equals(patched));
    });

    test("other requests are answered after such writes", async () => {
      const res = await client.get(`${elements}?limit=1`);
      assert.equal(res.status, 200);
    });
  });
}
