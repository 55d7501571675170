/**
 * Black-box suite of what independent clients (a conformance tool, a strict AASX reader, client
 * libraries in other languages) send and expect, issue 14 items 1–5: a trailing slash on API paths,
 * `$metadata` of every element kind, booleans in any letter case, Reference-valued query
 * parameters that are JSON but no Reference, and AASX exports whose every package path is a part.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import https from "node:https";
import { dirname } from "node:path";
import { after, before, describe, test } from "node:test";
import { strFromU8, unzipSync } from "fflate";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import {
  EXAMPLE_MODEL,
  findCertificate,
  type Mode,
  type SystemUnderTest,
  startSystem,
} from "../test-support/system.ts";

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const shellId: string = model.assetAdministrationShells[0].id;
const submodel = model.submodels[0];
const SM = `/submodels/${b64(submodel.id)}`;
const AASX = "application/asset-administration-shell-package+xml";

/** Every submodel element kind of the v3.0 metamodel. */
const ELEMENT_KINDS = [
  "AnnotatedRelationshipElement",
  "BasicEventElement",
  "Blob",
  "Capability",
  "Entity",
  "File",
  "MultiLanguageProperty",
  "Operation",
  "Property",
  "Range",
  "ReferenceElement",
  "RelationshipElement",
  "SubmodelElementCollection",
  "SubmodelElementList",
];

/**
 * What `$metadata` leaves out per kind (API v3.0.1 clause 12.5: the value attributes and the
 * children), written out here rather than taken from the server's table.
 */
const VALUE_ATTRIBUTES: Record<string, string[]> = {
  AnnotatedRelationshipElement: ["first", "second", "annotations"],
  BasicEventElement: ["observed"],
  Blob: ["value"],
  Entity: ["statements", "globalAssetId", "specificAssetIds"],
  File: ["value"],
  MultiLanguageProperty: ["value", "valueId"],
  Property: ["value", "valueId"],
  Range: ["min", "max"],
  ReferenceElement: ["value"],
  RelationshipElement: ["first", "second"],
  SubmodelElementCollection: ["value"],
  SubmodelElementList: ["value"],
};

/** Attributes the metamodel (Part 1 v3.0) makes mandatory beyond modelType; `$metadata` must keep them. */
const MANDATORY: Record<string, string[]> = {
  BasicEventElement: ["direction", "state"],
  Blob: ["contentType"],
  Entity: ["entityType"],
  File: ["contentType"],
  Property: ["valueType"],
  Range: ["valueType"],
  SubmodelElementList: ["typeValueListElement"],
};

/** Every element below the submodel with its idShortPath (list items as `list[i]`). */
function elementsOf(elements: Record<string, unknown>[], prefix = ""): { path: string; element: any }[] {
  const found: { path: string; element: any }[] = [];
  for (const [i, element] of elements.entries()) {
    const here = listItemPath(prefix, element, i);
    found.push({ path: here, element });
    if (element.modelType === "SubmodelElementCollection" && Array.isArray(element.value))
      found.push(...elementsOf(element.value as Record<string, unknown>[], `${here}.`));
    if (element.modelType === "SubmodelElementList" && Array.isArray(element.value))
      found.push(...elementsOf(element.value as Record<string, unknown>[], `${here}[`));
    if (element.modelType === "Entity" && Array.isArray(element.statements))
      found.push(...elementsOf(element.statements as Record<string, unknown>[], `${here}.`));
  }
  return found;
}

function listItemPath(prefix: string, element: Record<string, unknown>, index: number): string {
  return prefix.endsWith("[") ? `${prefix}${index}]` : `${prefix}${String(element.idShort)}`;
}

function elementUrl(path: string): string {
  return `${SM}/submodel-elements/${encodeURIComponent(path)}`;
}

function assertStatus(res: HttpResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
}

export function realClientsSuite(mode: Mode): void {
  describe(`real clients (${mode})`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    let ca: string | undefined;

    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0]!;
      const gateway = sut.processes.find((proc) => proc.role !== "model-store")!;
      ca = findCertificate(dirname(gateway.logFile));
    });
    after(async () => {
      await sut?.stop();
    });

    /** The shared client decodes bodies as UTF-8 text: a package needs its raw bytes. */
    async function raw(method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) {
      const url = new URL(http.baseUrl.replace(/\/$/, "") + path);
      return await new Promise<{ status: number; headers: HttpResponse["headers"]; body: Buffer }>(
        (resolve, reject) => {
          const request = https.request(
            url,
            {
              method,
              headers: { ...(body ? { "content-length": String(body.length) } : {}), ...headers },
              ca,
              rejectUnauthorized: ca !== undefined,
            },
            (response) => {
              const chunks: Buffer[] = [];
              response.on("data", (chunk: Buffer) => chunks.push(chunk));
              response.on("end", () =>
                resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
              );
              response.on("error", reject);
            },
          );
          request.on("error", reject);
          request.end(body);
        },
      );
    }

    test("one trailing slash names the same resource on every kind of API path; the query string survives", async () => {
      const elements = elementsOf(submodel.submodelElements);
      const property = elements.find(({ element }) => element.modelType === "Property")!.path;
      const paths = [
        "/shells",
        `/shells/${b64(shellId)}`,
        `/shells/${b64(shellId)}/asset-information`,
        `/shells/${b64(shellId)}/submodel-refs`,
        `/shells/${b64(shellId)}/submodels/${b64(submodel.id)}`,
        `/shells/${b64(shellId)}/submodels/${b64(submodel.id)}/submodel-elements`,
        "/submodels",
        SM,
        `${SM}/$metadata`,
        `${SM}/$value`,
        `${SM}/submodel-elements`,
        elementUrl(property),
        `${elementUrl(property)}/$value`,
        "/concept-descriptions",
        `/concept-descriptions/${b64(model.conceptDescriptions[0].id)}`,
        "/packages",
        "/description",
        "/serialization",
        `/lookup/shells?assetIds=${b64(JSON.stringify({ name: "globalAssetId", value: "x" }))}`,
      ];
      for (const path of paths) {
        const [route, query] = path.split("?");
        const plain = await http.get(path);
        assertStatus(plain, 200, path);
        const slashed = await http.get(`${route}/${query === undefined ? "" : `?${query}`}`);
        assertStatus(slashed, 200, `${route}/`);
        assert.equal(slashed.text, plain.text, `${route}/ answers what ${route} answers`);
      }
      // The query string is read after the slash: limit and cursor still page.
      const page = (await http.get("/shells/?limit=1")).json();
      assert.equal(page.result.length, 1);
      const next = (
        await http.get(`/shells/?limit=1&cursor=${encodeURIComponent(page.paging_metadata.cursor)}`)
      ).json();
      assert.notEqual(next.result[0].id, page.result[0].id);
      // Writes too: a PATCH of $value with a slash changes the value.
      const patched = await http.request("PATCH", `${elementUrl(property)}/$value/`, { body: JSON.stringify("42") });
      assertStatus(patched, 204, "PATCH …/$value/");
      assert.equal((await http.get(elementUrl(property))).json().value, "42");
      // Only one slash, and no new path: an empty segment and the bare prefix stay malformed.
      assertStatus(await http.get("/shells//"), 400, "/shells//");
      assertStatus(await http.get(`/shells/${b64(shellId)}//`), 400, "/shells/{id}//");
      assertStatus(await http.get("/"), 400, "/api/v3.0/");
      assertStatus(await http.get(`${SM}/no-such-path/`), 400, "unknown path with a slash");
    });

    test("$metadata of all 14 element kinds: value attributes left out, mandatory attributes kept", async () => {
      const full = (await http.get(SM)).json();
      const elements = elementsOf(full.submodelElements);
      const kinds = new Set(elements.map(({ element }) => String(element.modelType)));
      assert.deepEqual([...kinds].sort(), ELEMENT_KINDS, "the example submodel holds every kind");
      const seen = new Set<string>();
      for (const { path, element } of elements) {
        const kind = String(element.modelType);
        const res = await http.get(`${elementUrl(path)}/$metadata`);
        if (kind === "Operation" || kind === "Capability") {
          assert.ok(res.status >= 400 && res.status < 500, `${path} (${kind}) has no $metadata: ${res.status}`);
          seen.add(kind);
          continue;
        }
        assertStatus(res, 200, `${path}/$metadata`);
        const expected = { ...element };
        for (const key of VALUE_ATTRIBUTES[kind]!) delete expected[key];
        assert.deepEqual(res.json(), expected, `${path} (${kind})`);
        for (const key of ["modelType", ...(MANDATORY[kind] ?? [])])
          assert.ok(Object.hasOwn(res.json(), key), `${path} (${kind}) $metadata keeps mandatory ${key}`);
        seen.add(kind);
      }
      assert.deepEqual([...seen].sort(), ELEMENT_KINDS);
      // The submodel's own $metadata: everything but its elements.
      const metadata = (await http.get(`${SM}/$metadata`)).json();
      const { submodelElements: _, ...expected } = full;
      assert.deepEqual(metadata, expected);
      // The File example of the issue, word for word.
      const manual = (await http.get(`${elementUrl("Manual")}/$metadata`)).json();
      assert.equal(manual.contentType, "text/plain");
      assert.equal(manual.value, undefined);
    });

    test("boolean query parameters: true and false in any letter case, anything else 400", async () => {
      const titled = await http.get("/serialization?includeConceptDescriptions=True");
      assertStatus(titled, 200, "True");
      const withCds = titled.json();
      assert.ok(withCds.conceptDescriptions.length > 0);
      const upper = (await http.get("/serialization?includeConceptDescriptions=TRUE")).json();
      assert.deepEqual(upper, withCds);
      for (const word of ["False", "FALSE", "false"]) {
        const res = await http.get(`/serialization?includeConceptDescriptions=${word}`);
        assertStatus(res, 200, word);
        assert.equal(res.json().conceptDescriptions, undefined, word);
      }
      for (const word of ["yes", "1", "0", "truee", "%20true", ""]) {
        assertStatus(await http.get(`/serialization?includeConceptDescriptions=${word}`), 400, word);
      }
    });

    test("Reference-valued query parameters: JSON that is no Reference is 400, a bare key value still filters", async () => {
      const notReferences = ['"abc"', "42", "[]", "null", "true", '{"type":"ExternalReference"}'];
      for (const text of notReferences) {
        for (const query of [
          `/submodels?semanticId=${b64(text)}`,
          `/concept-descriptions?isCaseOf=${b64(text)}`,
          `/concept-descriptions?dataSpecificationRef=${b64(text)}`,
        ]) {
          assertStatus(await http.get(query), 400, `${query} (${text})`);
        }
      }
      // The 3.0 wording: the value of one key, not JSON, still filters.
      const semanticKey: string = submodel.semanticId.keys[0].value;
      const byKey = (await http.get(`/submodels?semanticId=${b64(semanticKey)}`)).json();
      assert.ok(byKey.result.some((found: { id: string }) => found.id === submodel.id));
      assertStatus(await http.get(`/submodels?semanticId=${b64("abc")}`), 200, "bare key value abc");
      // assetIds: every value must encode SpecificAssetId objects; an empty list names none.
      for (const text of ['"abc"', "42", "[]", "null", "[null]", "{}"]) {
        for (const path of ["/shells", "/lookup/shells", "/shells/$reference"]) {
          assertStatus(await http.get(`${path}?assetIds=${b64(text)}`), 400, `${path} assetIds ${text}`);
        }
      }
    });

    test("an AASX export opens in strict readers: every package path is a part, left-out paths are announced", async () => {
      // One File gets a stored file; the others (and the thumbnail) name files the JSON model never had.
      const stored = randomBytes(64);
      const boundary = `----twinport${randomBytes(8).toString("hex")}`;
      const upload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fileName"\r\n\r\nDatasheet.bin\r\n`),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="Datasheet.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        stored,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const uploadPath = `/submodels/${b64(model.submodels[1].id)}/submodel-elements/Manual/attachment`;
      const put = await raw("PUT", uploadPath, upload, { "content-type": `multipart/form-data; boundary=${boundary}` });
      assert.equal(put.status, 204, put.body.toString());
      const storedValue: string = (
        await http.get(`/submodels/${b64(model.submodels[1].id)}/submodel-elements/Manual`)
      ).json().value;

      const res = await raw("GET", "/serialization", undefined, { Accept: AASX });
      assert.equal(res.status, 200, res.body.toString());
      const warning = String(res.headers["twinport-warning"] ?? "");
      assert.match(warning, /\/aasx\/files\/manual\.txt/);
      assert.match(warning, /\/aasx\/thumbnail\.png/);
      assert.doesNotMatch(warning, new RegExp(storedValue.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));

      const entries = unzipSync(new Uint8Array(res.body));
      const parts = new Set(Object.keys(entries).map((name) => partKey(`/${name}`)));
      const relationshipParts = Object.keys(entries).filter((name) => /(^|\/)_rels\/[^/]*\.rels$/.test(name));
      assert.ok(relationshipParts.length >= 2, "package and origin relationships");
      let specPart: string | undefined;
      for (const name of relationshipParts) {
        const sourceDir = `/${name.replace(/_rels\/[^/]*\.rels$/, "")}`;
        for (const [, attributes] of strFromU8(entries[name]!).matchAll(/<Relationship\b([^>]*)\/?>/g)) {
          if (/TargetMode="External"/.test(attributes!)) continue;
          const target = unescapeXml(/Target="([^"]*)"/.exec(attributes!)![1]!);
          const absolute = new URL(target, `pack://p${sourceDir}`).pathname;
          assert.ok(parts.has(partKey(absolute)), `relationship target ${target} of ${name} is a part`);
          if (/\/aas-spec"?$/.test(/Type="([^"]*)"/.exec(attributes!)![1]!)) specPart = absolute;
        }
      }
      assert.ok(specPart, "the package names its environment");
      const spec = strFromU8(entries[specPart.slice(1)]!);
      const fileValues = [
        ...spec.matchAll(/<value>([^<]*)<\/value>\s*<contentType>[^<]*<\/contentType>\s*<\/file>/g),
      ].map((m) => unescapeXml(m[1]!));
      const thumbnails = [...spec.matchAll(/<defaultThumbnail>\s*<path>([^<]*)<\/path>/g)].map((m) =>
        unescapeXml(m[1]!),
      );
      assert.ok(fileValues.includes(storedValue), "the stored file's value stays");
      for (const path of [...fileValues, ...thumbnails]) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(path) && !/^file:/i.test(path)) continue; // outside the package
        assert.ok(parts.has(partKey(path.replace(/^file:\/\//i, ""))), `${path} points into the package and is a part`);
      }
      const part = entries[partKey(storedValue).slice(1)] ?? entries[storedValue.slice(1)];
      assert.ok(part && Buffer.from(part).equals(stored), "the stored file is in the package");
      // Every File still names its content type, with or without a value.
      assert.equal(
        [...spec.matchAll(/<file>/g)].length,
        [...spec.matchAll(/<file>[\s\S]*?<contentType>[^<]+<\/contentType>[\s\S]*?<\/file>/g)].length,
      );
      // The store keeps the values: only the package copy left them out.
      assert.equal((await http.get(elementUrl("Manual"))).json().value, "/aasx/files/manual.txt");
      // JSON and XML are not packages: nothing is left out, nothing announced.
      const json = await raw("GET", "/serialization");
      assert.equal(json.headers["twinport-warning"], undefined);
    });
  });
}

/** OPC compares part names without case, after percent-decoding. */
function partKey(path: string): string {
  const absolute = path.startsWith("/") ? path : `/${path}`;
  let decoded = absolute;
  try {
    decoded = decodeURIComponent(absolute);
  } catch {}
  return decoded.toLowerCase();
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}
