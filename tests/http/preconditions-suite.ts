/**
 * Black-box suite of conditional requests (RFC 9110 §13) where the other suites do not reach: If-Match
 * on every GET that answers an ETag (the hot $value route hands it to the general path), the ETag
 * and 304 of a File's attachment, and If-Match / If-None-Match on every POST that creates, evaluated
 * against the collection or container posted to. Real HTTPS, embedded and distributed.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { createFixtureAt, etagOf } from "./submodel-suite-support.ts";

let counter = 0;
const unique = (label: string) => `urn:twinport:test:preconditions:${label}:${process.pid}:${++counter}`;

const shellBody = (id: string) =>
  JSON.stringify({
    modelType: "AssetAdministrationShell",
    id,
    assetInformation: { assetKind: "Instance", globalAssetId: `${id}:asset` },
  });
const submodelBody = (id: string) => JSON.stringify({ modelType: "Submodel", id });
const cdBody = (id: string) => JSON.stringify({ modelType: "ConceptDescription", id });
const propertyBody = (idShort: string) =>
  JSON.stringify({ modelType: "Property", idShort, valueType: "xs:string", value: idShort });
const referenceBody = (submodelId: string) =>
  JSON.stringify({ type: "ModelReference", keys: [{ type: "Submodel", value: submodelId }] });

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

    test('an If-Match that is no list of quoted tags (the current revision unquoted, 81 for "81") is a 412 on every method, the hot route\'s PATCH included, and writes nothing; such an If-None-Match never gives a 304', async () => {
      const { submodel } = await createFixtureAt(http, "invalid-if-match", "repository");
      const repository = `/submodels/${b64(submodel.id)}`;
      const element = `${repository}/submodel-elements/MaxRotationSpeed`;
      const read = await http.get(element);
      assert.equal(read.status, 200, read.text);
      const bare = etagOf(read).slice(1, -1);
      const submodelTag = etagOf(await http.get(repository)).slice(1, -1);
      const writes: [string, string, string | undefined, string][] = [
        // The hot route's PATCH (ADR 0045) reads the header itself.
        ["PATCH", `${element}/$value`, "4711", bare],
        ["PATCH", element, JSON.stringify({ value: "4712" }), bare],
        ["PUT", element, JSON.stringify({ ...JSON.parse(read.text), value: "4713" }), bare],
        ["POST", `${repository}/submodel-elements`, propertyBody("InvalidIfMatch"), submodelTag],
        ["DELETE", element, undefined, bare],
      ];
      for (const [method, url, body, tag] of writes)
        for (const ifMatch of [tag, `"1", ${tag}`, `W/ "${tag}"`, `"${tag}`]) {
          const answer = await http.request(method, url, {
            ...(body === undefined ? {} : { body }),
            headers: { "if-match": ifMatch },
          });
          assertRefused(answer, 412, `${method} ${url} If-Match ${ifMatch}`);
        }
      const after = await http.get(element);
      assert.equal(after.text, read.text, "no write was made");
      assert.equal(etagOf(after), etagOf(read));
      assert.equal((await http.get(`${repository}/submodel-elements/InvalidIfMatch`)).status, 404);
      // GET: If-Match as for a write; If-None-Match names no current tag, so the representation (no 304).
      for (const url of [element, `${element}/$value`, repository]) {
        const current = etagOf(await http.get(url));
        assertRefused(await http.get(url, { "if-match": current.slice(1, -1) }), 412, `GET ${url}`);
        for (const ifNoneMatch of [current.slice(1, -1), `"1", ${current.slice(1, -1)}`, `${current}, *`]) {
          const answer = await http.get(url, { "if-none-match": ifNoneMatch });
          assert.equal(answer.status, 200, `GET ${url} If-None-Match ${ifNoneMatch}: ${answer.text}`);
        }
      }
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

    test("POST to a collection without an ETag (shells, submodels, concept descriptions): If-Match * holds, a listed tag fails; If-None-Match * fails; a 412 creates nothing", async () => {
      const collections: [string, (id: string) => string, (id: string) => string][] = [
        ["/shells", shellBody, (id) => `/shells/${b64(id)}`],
        ["/submodels", submodelBody, (id) => `/submodels/${b64(id)}`],
        ["/concept-descriptions", cdBody, (id) => `/concept-descriptions/${b64(id)}`],
      ];
      for (const [collection, body, at] of collections) {
        const refused: Record<string, string>[] = [
          { "if-match": '"1"' },
          { "if-match": "" },
          { "if-match": 'W/"1"' },
          { "if-none-match": "*" },
          { "if-match": "*", "if-none-match": "*" },
        ];
        for (const headers of refused) {
          const id = unique("refused");
          assertRefused(
            await post(collection, body(id), headers),
            412,
            `POST ${collection} ${JSON.stringify(headers)}`,
          );
          assert.equal((await http.get(at(id))).status, 404, `${collection}: nothing created`);
        }
        const holding: Record<string, string>[] = [
          { "if-match": "*" },
          { "if-none-match": '"1"' },
          { "if-none-match": 'W/"1", "2"' },
        ];
        for (const headers of holding) {
          const id = unique("created");
          const created = await post(collection, body(id), headers);
          assert.equal(created.status, 201, `POST ${collection} ${JSON.stringify(headers)}: ${created.text}`);
          assert.equal((await http.get(at(id))).status, 200);
        }
      }
    });

    test("POST of an element, into the submodel or a container, checks the target's ETag (the submodel's, the container's) atomically; a missing target stays 404", async () => {
      for (const mount of ["repository", "shell"] as const) {
        const { path } = await createFixtureAt(http, `post-element-${mount}`, mount);
        const targets: [string, string][] = [
          // The submodel's list of elements is the submodel's content: the submodel's ETag.
          [`${path}/submodel-elements`, path],
          [`${path}/submodel-elements/Dimensions`, `${path}/submodel-elements/Dimensions`],
          [`${path}/submodel-elements/Dimensions.Nested`, `${path}/submodel-elements/Dimensions.Nested`],
        ];
        let n = 0;
        for (const [url, tagged] of targets) {
          const where = `${mount} ${url}`;
          const current = etagOf(await http.get(tagged));
          const refused: Record<string, string>[] = [
            { "if-match": '"1"' },
            { "if-match": `W/${current}` },
            { "if-none-match": "*" },
            { "if-none-match": current },
            { "if-none-match": `W/${current}` },
          ];
          for (const headers of refused) {
            const idShort = `Refused${++n}`;
            assertRefused(await post(url, propertyBody(idShort), headers), 412, `${where} ${JSON.stringify(headers)}`);
            const child = url.endsWith("/submodel-elements") ? `${url}/${idShort}` : `${url}.${idShort}`;
            assert.equal((await http.get(child)).status, 404, `${where}: nothing created`);
          }
          // Each POST moves the target's ETag on: If-Match names the one just read.
          const holding: ((tag: string) => Record<string, string>)[] = [
            (tag) => ({ "if-match": tag }),
            () => ({ "if-match": "*" }),
            () => ({ "if-none-match": '"1"' }),
          ];
          for (const headersOf of holding) {
            const headers = headersOf(etagOf(await http.get(tagged)));
            const created = await post(url, propertyBody(`Created${++n}`), headers);
            assert.equal(created.status, 201, `${where} ${JSON.stringify(headers)}: ${created.text}`);
          }
          // The tag read before the last POSTs is stale now.
          assertRefused(await post(url, propertyBody(`Stale${++n}`), { "if-match": current }), 412, `${where} stale`);
        }
        // An element posted elsewhere in the submodel moves the submodel's ETag (it covers its subtree).
        const whole = etagOf(await http.get(path));
        assert.equal((await post(`${path}/submodel-elements/Dimensions`, propertyBody("Elsewhere"))).status, 201);
        assertRefused(
          await post(`${path}/submodel-elements`, propertyBody("AfterElsewhere"), { "if-match": whole }),
          412,
          `${mount}: the submodel's tag before a write below it`,
        );
        for (const url of [`${path}/submodel-elements/Nope`, `/submodels/${b64(unique("none"))}/submodel-elements`])
          for (const ifMatch of ["*", '"1"'])
            assertRefused(
              await post(url, propertyBody("X"), { "if-match": ifMatch }),
              404,
              `${url} If-Match ${ifMatch}`,
            );
      }
    });

    test("an error that does not depend on the preconditions comes first: a POST into a Property or Blob, a $value PATCH of an Operation or Capability (400), a DELETE of a reference or thumbnail the shell does not hold (404)", async () => {
      const { path } = await createFixtureAt(http, "before-preconditions", "repository");
      const elements = `${path}/submodel-elements`;
      for (const headers of [{ "if-match": '"1"' }, { "if-none-match": "*" }] as Record<string, string>[]) {
        const what = JSON.stringify(headers);
        for (const target of ["MaxRotationSpeed", "Firmware"])
          assertRefused(
            await post(`${elements}/${target}`, propertyBody("Inside"), headers),
            400,
            `POST into ${target} ${what}`,
          );
        for (const target of ["Functions.Reset", "Functions.Pumping"])
          assertRefused(
            await http.request("PATCH", `${elements}/${target}/$value`, { body: "{}", headers }),
            400,
            `$value PATCH of ${target} ${what}`,
          );
        for (const target of ["Functions.Reset", "Functions.Pumping"])
          assertRefused(
            await http.request("PATCH", `${elements}/${target}/$metadata`, { body: "{}", headers }),
            400,
            `$metadata PATCH of ${target} ${what}`,
          );
        // An answer Accept refuses is a 406, not a 304 or 412 for a representation it cannot take.
        for (const url of [path, `${elements}/MaxRotationSpeed`, `${elements}/MaxRotationSpeed/$value`])
          assertRefused(
            await http.request("GET", url, { headers: { ...headers, accept: "text/plain" } }),
            406,
            `GET ${url} Accept text/plain ${what}`,
          );
        // An element the body names may have been deleted since the client read the submodel: that
        // depends on the state, so failing preconditions answer first (RFC 9110 §13.2.1), 412; without
        // them it is the 400.
        assertRefused(
          await http.request("PATCH", `${path}/$value`, { body: '{"NoSuchElement":1}', headers }),
          412,
          `the submodel's $value naming no element ${what}`,
        );
        assertRefused(
          await http.request("PATCH", `${path}/$value`, { body: '{"NoSuchElement":1}' }),
          400,
          "the submodel's $value naming no element, unconditioned",
        );
        const aasId = unique("shell");
        assert.equal((await post("/shells", shellBody(aasId))).status, 201);
        const shell = `/shells/${b64(aasId)}`;
        assertRefused(
          await http.request("DELETE", `${shell}/submodel-refs/${b64(unique("sm"))}`, { headers }),
          404,
          `a reference the shell does not hold ${what}`,
        );
        assertRefused(
          await http.request("DELETE", `${shell}/asset-information/thumbnail`, { headers }),
          404,
          `a thumbnail the shell does not have ${what}`,
        );
        const empty = `${elements}/Empty${counter}`;
        const file = { modelType: "File", idShort: `Empty${counter}`, contentType: "text/plain" };
        assert.equal((await post(elements, JSON.stringify(file))).status, 201);
        assertRefused(
          await http.request("DELETE", `${empty}/attachment`, { headers }),
          404,
          `the attachment of a File with no content ${what}`,
        );
      }
    });

    test("a list item's ETag names the item: after an item before it is deleted, a tag read at that index matches no other item (written by the same commit, of the same revision)", async () => {
      const id = unique("list-shift");
      const item = (value: string) => ({ modelType: "Property", valueType: "xs:string", value });
      const list = {
        modelType: "SubmodelElementList",
        idShort: "Tags",
        orderRelevant: true,
        typeValueListElement: "Property",
        valueTypeListElement: "xs:string",
        value: ["A", "B", "C"].map(item),
      };
      const created = await post("/submodels", JSON.stringify({ modelType: "Submodel", id, submodelElements: [list] }));
      assert.equal(created.status, 201, created.text);
      const tags = `/submodels/${b64(id)}/submodel-elements/Tags`;
      const at = (index: number) => `${tags}%5B${index}%5D`;
      const readB = await http.get(at(1));
      assert.equal(readB.json().value, "B");
      const tagB = etagOf(readB);
      const tagC = etagOf(await http.get(at(2)));
      assert.notEqual(tagB, tagC, "two items of one commit share an ETag");
      // Another client deletes the first item: B is at index 0 now, C at index 1.
      assert.equal((await http.request("DELETE", at(0))).status, 204);
      const valueOf = async () => (await http.get(`${tags}/$value`)).json().Tags;
      assert.deepEqual(await valueOf(), ["B", "C"]);
      // Every conditional request on index 1 with B's tag is refused: it names C now.
      assert.equal((await http.get(at(1), { "if-none-match": tagB })).status, 200, "a 304 for another item");
      assertRefused(await http.get(at(1), { "if-match": tagB }), 412, "GET If-Match B's tag at C's index");
      assertRefused(
        await http.request("PATCH", `${at(1)}/$value`, { body: '"B edited"', headers: { "if-match": tagB } }),
        412,
        "$value PATCH (the hot route)",
      );
      assertRefused(
        await http.request("PATCH", at(1), { body: '{"value":"B edited"}', headers: { "if-match": tagB } }),
        412,
        "PATCH",
      );
      assertRefused(
        await http.request("PUT", at(1), { body: JSON.stringify(item("B edited")), headers: { "if-match": tagB } }),
        412,
        "PUT",
      );
      assertRefused(await http.request("DELETE", at(1), { headers: { "if-match": tagB } }), 412, "DELETE");
      assert.deepEqual(await valueOf(), ["B", "C"], "a refused write changed the list");
      // B under its new index keeps its tag (same element, same content), and C's tag still holds for C.
      assert.equal(etagOf(await http.get(at(0))), tagB);
      assert.equal(etagOf(await http.get(at(1))), tagC);
      assert.equal((await http.get(at(1), { "if-none-match": tagC })).status, 304);
      assert.equal(
        (await http.request("PATCH", `${at(1)}/$value`, { body: '"C edited"', headers: { "if-match": tagC } })).status,
        204,
      );
      assert.deepEqual(await valueOf(), ["B", "C edited"]);
      // A POST into the list answers the new item's ETag, good for a conditional write of it.
      const appended = await post(tags, JSON.stringify(item("D")));
      assert.equal(appended.status, 201, appended.text);
      assert.equal(etagOf(appended), etagOf(await http.get(at(2))));
      assert.equal((await http.request("DELETE", at(2), { headers: { "if-match": etagOf(appended) } })).status, 204);
    });

    test("POST of a submodel reference checks the shell's ETag; If-None-Match * fails; a missing shell stays 404", async () => {
      const aasId = unique("shell");
      assert.equal((await post("/shells", shellBody(aasId))).status, 201);
      const shell = `/shells/${b64(aasId)}`;
      const refs = `${shell}/submodel-refs`;
      const current = etagOf(await http.get(shell));
      const refused: Record<string, string>[] = [
        { "if-match": '"1"' },
        { "if-match": `W/${current}` },
        { "if-none-match": "*" },
      ];
      for (const headers of refused) {
        assertRefused(await post(refs, referenceBody(unique("sm")), headers), 412, JSON.stringify(headers));
      }
      assert.equal((await http.get(shell)).json().submodels, undefined, "no reference added");
      const created = await post(refs, referenceBody(unique("sm")), { "if-match": current });
      assert.equal(created.status, 201, created.text);
      assertRefused(await post(refs, referenceBody(unique("sm")), { "if-match": current }), 412, "stale");
      assert.equal((await post(refs, referenceBody(unique("sm")), { "if-match": "*" })).status, 201);
      assertRefused(
        await post(`/shells/${b64(unique("none"))}/submodel-refs`, referenceBody(unique("sm")), { "if-match": '"1"' }),
        404,
        "a missing shell",
      );
    });
  });
}
