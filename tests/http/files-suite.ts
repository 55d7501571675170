/**
 * Black-box suite of files, packages and formats (issue 4) over real HTTPS, run against embedded
 * mode and against the distributed mode (model-store + http-gateways + Redis + NATS as processes):
 * a model loaded from an AASX with a thumbnail and a PDF, its files read back byte for byte,
 * serialization to AASX/XML/JSON imported again into an empty server, hostile uploads, uploads,
 * packages and reset.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { writeAasx } from "@twinport/shared";
import { strToU8, zipSync } from "fflate";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import {
  EXAMPLE_MODEL,
  findCertificate,
  type Mode,
  type SystemUnderTest,
  startSystem,
} from "../test-support/system.ts";

const PNG = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), randomBytes(3000)]);
// Larger than one NATS message and one Redis chunk: it must travel and be stored in pieces.
const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), randomBytes(1_300_000), Buffer.from("\n%%EOF\n")]);

const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const shellId: string = model.assetAdministrationShells[0].id;
const submodel = model.submodels[0];
const manual = submodel.submodelElements.find((e: { idShort: string }) => e.idShort === "Manual");
manual.value = "/aasx/files/Manual.pdf";
manual.contentType = "application/pdf";
const packageBytes = writeAasx({
  environment: model,
  files: [{ path: "/aasx/files/Manual.pdf", contentType: "application/pdf", bytes: PDF }],
  thumbnail: { path: "/aasx/thumbnail.png", contentType: "image/png", bytes: PNG },
});

const AASX = "application/asset-administration-shell-package+xml";
const manualPath = `/submodels/${b64(submodel.id)}/submodel-elements/Manual/attachment`;
const thumbnailPath = `/shells/${b64(shellId)}/asset-information/thumbnail`;

/** The self-signed certificate each client's endpoint made, found in its process's directory. */
const certificates = new Map<HttpClient, string | undefined>();

function rememberCertificates(sut: SystemUnderTest): void {
  const gateways = sut.processes.filter((proc) => proc.role !== "model-store");
  sut.clients.forEach((client, i) => certificates.set(client, findCertificate(dirname(gateways[i]!.logFile))));
}

/** The shared client decodes bodies as UTF-8 text: binary bodies need the raw bytes. */
async function bytesOf(client: HttpClient, path: string, headers: Record<string, string> = {}) {
  return await rawRequest(client, "GET", path, undefined, headers);
}

async function rawRequest(
  client: HttpClient,
  method: string,
  path: string,
  body?: Buffer,
  headers: Record<string, string> = {},
) {
  const url = new URL(client.baseUrl.replace(/\/$/, "") + path);
  const ca = certificates.get(client);
  return await new Promise<{ status: number; headers: HttpResponse["headers"]; body: Buffer }>((resolve, reject) => {
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
  });
}

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

function assertResult(response: HttpResponse, status: number): void {
  assert.equal(response.status, status, response.text);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ["messages"]);
  assert.equal(body.messages[0].code, String(status));
}

async function environmentOf(client: HttpClient): Promise<unknown> {
  const response = await client.get("/serialization");
  assert.equal(response.status, 200);
  return response.json();
}

/** A copy of the environment without the value of every File element whose value is `path`. */
function withoutFileValue(environment: unknown, path: string): unknown {
  return JSON.parse(JSON.stringify(environment), (_key, value) => {
    if (value?.modelType !== "File" || value.value !== path) return value;
    const { value: _value, ...rest } = value;
    return rest;
  });
}

function fileElement(idShort: string, value?: string) {
  return { modelType: "File", idShort, contentType: "application/pdf", ...(value === undefined ? {} : { value }) };
}

/** Uploads the PDF to a File element; answers the value (model path) the upload gave it. */
async function uploadTo(client: HttpClient, submodelId: string, idShortPath: string): Promise<string> {
  const upload = multipart([
    { name: "fileName", value: "secret.pdf" },
    { name: "file", value: PDF, type: "application/pdf" },
  ]);
  const element = `/submodels/${b64(submodelId)}/submodel-elements/${idShortPath}`;
  const put = await rawRequest(client, "PUT", `${element}/attachment`, upload.body, { "content-type": upload.type });
  assert.equal(put.status, 204, put.body.toString());
  return (await client.get(element)).json().value as string;
}

/** Whether the bytes at `path` can still be served: a new File naming the path asks for them. */
async function servedAt(client: HttpClient, path: string, probe: string): Promise<number> {
  const id = `urn:test:upload-probe:${probe}`;
  const body = JSON.stringify({ modelType: "Submodel", id, submodelElements: [fileElement("Probe", path)] });
  assert.equal((await client.request("POST", "/submodels", { body })).status, 201);
  const status = (await client.get(`/submodels/${b64(id)}/submodel-elements/Probe/attachment`)).status;
  assert.equal((await client.request("DELETE", `/submodels/${b64(id)}`)).status, 204);
  return status;
}

export function filesSuite(mode: Mode): void {
  describe(`files, packages and formats, ${mode} mode`, () => {
    let source: SystemUnderTest;
    let empty: SystemUnderTest;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "twinport-files-suite-"));
      writeFileSync(join(dir, "pump.aasx"), packageBytes);
      source = await startSystem(mode, { models: [join(dir, "pump.aasx")] });
      empty = await startSystem(mode, { models: [], gateways: 1 });
      rememberCertificates(source);
      rememberCertificates(empty);
    });
    after(async () => {
      await source?.stop();
      await empty?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test("an AASX loaded with -m: its thumbnail and PDF come back byte for byte, through every gateway", async () => {
      for (const client of source.clients) {
        const pdf = await bytesOf(client, manualPath);
        assert.equal(pdf.status, 200);
        assert.equal(pdf.headers["content-type"], "application/pdf");
        assert.ok(pdf.body.equals(PDF), "the PDF is byte-identical");
        assert.match(String(pdf.headers["content-disposition"]), /filename="Manual\.pdf"/);
        assert.equal(pdf.headers["x-content-type-options"], "nosniff");
        const png = await bytesOf(client, thumbnailPath);
        assert.equal(png.status, 200);
        assert.equal(png.headers["content-type"], "image/png");
        assert.equal(png.headers["x-content-type-options"], "nosniff");
        assert.ok(png.body.equals(PNG), "the thumbnail is byte-identical");
      }
    });

    test("serialized as AASX, XML and JSON, each imports into an empty server as the same model", async () => {
      const [client] = source.clients;
      const original = await environmentOf(client!);
      const target = empty.clients[0]!;
      for (const type of [AASX, "application/xml", "application/json"]) {
        const serialized = await bytesOf(client!, "/serialization", { Accept: type });
        assert.equal(serialized.status, 200, type);
        assert.equal(serialized.headers["content-type"], type);
        const imported = await rawRequest(target, "POST", "/import", serialized.body, { "content-type": type });
        assert.equal(imported.status, 200, imported.body.toString());
        assert.deepEqual(JSON.parse(imported.body.toString()), [], `${type}: no import problems`);
        // The other submodels' Manual names /aasx/files/manual.txt, which no model file carried: a
        // package cannot name a part it lacks, so its copy leaves those values out and says so.
        const expected = type === AASX ? withoutFileValue(original, "/aasx/files/manual.txt") : original;
        if (type === AASX) assert.match(String(serialized.headers["twinport-warning"]), /\/aasx\/files\/manual\.txt/);
        assert.deepEqual(await environmentOf(target), expected, `${type}: the same model`);
        const pdf = await bytesOf(target, manualPath);
        if (type === AASX) assert.ok(pdf.status === 200 && pdf.body.equals(PDF), "the package carried the PDF");
        else assert.equal(pdf.status, 404, `${type} carries no files, and that is no failure`);
        assert.equal((await target.request("GET", "/reset")).status, 204);
        assert.deepEqual(await environmentOf(target), {});
      }
    });

    test("a package leaving out thousands of file paths says so in a header any client can read", async () => {
      const target = empty.clients[0]!;
      const id = "urn:test:many-unstored-files";
      const files = Array.from({ length: 3000 }, (_, i) => ({
        modelType: "File",
        idShort: `F${i}`,
        contentType: "text/plain",
        value: `/aasx/files/never-stored/${"x".repeat(60)}-${i}.txt`,
      }));
      const body = JSON.stringify({ modelType: "Submodel", id, submodelElements: files });
      assert.equal((await target.request("POST", "/submodels", { body })).status, 201);
      const serialized = await bytesOf(target, `/serialization?submodelIds=${b64(id)}`, { Accept: AASX });
      assert.equal(serialized.status, 200);
      const warning = String(serialized.headers["twinport-warning"]);
      // 3,000 paths once made a 230 KB header line, which curl, fetch and Python refuse.
      assert.ok(warning.length < 8192, `the header is ${warning.length} characters`);
      assert.match(warning, /^3000 file path\(s\) left out .*-0\.txt.* and 2980 more$/);
      assert.equal((await target.request("GET", "/reset")).status, 204);
    });

    test("hostile inputs are clear 4xx answers and the server keeps serving", async () => {
      const target = empty.clients[0]!;
      const bomb = zipSync(
        { "[Content_Types].xml": strToU8("<Types/>"), "aasx/bomb.bin": new Uint8Array(8 * 1024 * 1024) },
        { level: 9 },
      );
      const slip = zipSync({ "[Content_Types].xml": strToU8("<Types/>"), "../../../tmp/evil.txt": strToU8("pwned") });
      const xxe =
        '<?xml version="1.0"?><!DOCTYPE environment [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><environment xmlns="https://admin-shell.io/aas/3/0"><assetAdministrationShells>&xxe;</assetAdministrationShells></environment>';
      const cases: [string, Buffer, string, RegExp][] = [
        ["zip bomb", Buffer.from(bomb), AASX, /ratio|inflat/i],
        ["zip slip", Buffer.from(slip), AASX, /\.\./],
        ["XXE", Buffer.from(xxe), "application/xml", /DOCTYPE|entit/i],
        ["truncated AASX", packageBytes.subarray(0, Math.floor(packageBytes.length / 2)) as Buffer, AASX, /AASX|zip/i],
      ];
      for (const [what, body, type, reason] of cases) {
        const response = await rawRequest(target, "POST", "/import", Buffer.from(body), { "content-type": type });
        assert.equal(response.status, 400, `${what}: ${response.body.toString()}`);
        assert.match(JSON.parse(response.body.toString()).messages[0].text, reason, what);
        assert.equal((await target.get("/shells")).status, 200, `still serving after the ${what}`);
      }
      const hostilePackage = multipart([{ name: "file", value: Buffer.from(slip), fileName: "slip.aasx" }]);
      const posted = await rawRequest(target, "POST", "/packages", hostilePackage.body, {
        "content-type": hostilePackage.type,
      });
      assert.equal(posted.status, 400, "a hostile package is refused by the file server too");
      // An upload that is not multipart/form-data is a body type the operation does not take.
      const notMultipart = await target.request("POST", "/packages", {
        body: JSON.stringify({ file: "x" }),
        headers: { "content-type": "application/json" },
      });
      assertResult(notMultipart, 415);
      // A 1 GB body announced by Content-Length: refused before a byte of it is read (none is sent).
      const huge = await target.request("POST", "/import", {
        body: "{",
        headers: { "content-type": "application/json", "content-length": String(1024 ** 3) },
      });
      assertResult(huge, 413);
      assert.equal((await target.get("/shells")).status, 200, "still serving after the 1 GB announcement");
    });

    test("an upload through one gateway is read through every gateway; DELETE attachment and thumbnail answer 200", async () => {
      const [writer] = source.clients;
      const upload = multipart([
        { name: "fileName", value: "Datenblatt.pdf" },
        { name: "file", value: PDF, fileName: "x.pdf", type: "application/pdf" },
      ]);
      const path = `/submodels/${b64(model.submodels[1].id)}/submodel-elements/Manual/attachment`;
      const put = await rawRequest(writer!, "PUT", path, upload.body, { "content-type": upload.type });
      assert.equal(put.status, 204, put.body.toString());
      for (const client of source.clients) {
        const got = await bytesOf(client, path);
        assert.ok(got.body.equals(PDF));
        assert.match(String(got.headers["content-disposition"]), /Datenblatt\.pdf/);
      }
      // Sent as octet-stream (as many clients do): the type comes from the file name (mime-db's model/step).
      const step = multipart([
        { name: "fileName", value: "Housing.stp" },
        { name: "file", value: Buffer.from("ISO-10303-21;\nEND-ISO-10303-21;\n"), type: "application/octet-stream" },
      ]);
      assert.equal((await rawRequest(writer!, "PUT", path, step.body, { "content-type": step.type })).status, 204);
      assert.equal((await bytesOf(source.clients.at(-1)!, path)).headers["content-type"], "model/step");
      assert.equal((await writer!.request("DELETE", path)).status, 200);
      assert.equal((await source.clients.at(-1)!.get(path)).status, 404);
      const thumb = multipart([
        { name: "fileName", value: "new.png" },
        { name: "file", value: PNG },
      ]);
      const otherThumbnail = `/shells/${b64(model.assetAdministrationShells[1].id)}/asset-information/thumbnail`;
      assert.equal(
        (await rawRequest(writer!, "PUT", otherThumbnail, thumb.body, { "content-type": thumb.type })).status,
        204,
      );
      assert.ok((await bytesOf(source.clients.at(-1)!, otherThumbnail)).body.equals(PNG));
      assert.equal((await writer!.request("DELETE", otherThumbnail)).status, 200);
      assertResult(await source.clients.at(-1)!.get(otherThumbnail), 404);
    });

    test("an upload goes with its File: element deleted, value patched away, submodel deleted, shell deleted", async () => {
      const target = empty.clients[0]!;
      const other = empty.clients.at(-1)!;
      const file = fileElement;
      const uploaded = (submodelId: string, idShortPath: string) => uploadTo(target, submodelId, idShortPath);
      const served = (path: string, probe: string) => servedAt(other, path, probe);
      const id = "urn:test:released-uploads";
      const submodel = {
        modelType: "Submodel",
        id,
        submodelElements: [
          file("Deleted"),
          file("Patched"),
          { modelType: "SubmodelElementCollection", idShort: "Box", value: [file("Inner")] },
          file("WithSubmodel"),
        ],
      };
      assert.equal((await target.request("POST", "/submodels", { body: JSON.stringify(submodel) })).status, 201);
      const paths = {
        deleted: await uploaded(id, "Deleted"),
        patched: await uploaded(id, "Patched"),
        inner: await uploaded(id, "Box.Inner"),
        withSubmodel: await uploaded(id, "WithSubmodel"),
      };
      assert.equal(await served(paths.deleted, "0"), 200, "a File naming an upload serves it");
      // The element goes: its upload with it (a new File naming the old path found it before).
      assert.equal((await other.request("DELETE", `/submodels/${b64(id)}/submodel-elements/Deleted`)).status, 204);
      assert.equal(await served(paths.deleted, "1"), 404);
      // A PATCH that takes the value away (the upload was out of reach of every call but /reset).
      const patched = await other.request("PATCH", `/submodels/${b64(id)}/submodel-elements/Patched`, {
        body: JSON.stringify({ value: null }),
      });
      assert.equal(patched.status, 204, patched.text);
      assert.equal(await served(paths.patched, "2"), 404);
      // A container deleted: the uploads below it.
      assert.equal((await other.request("DELETE", `/submodels/${b64(id)}/submodel-elements/Box`)).status, 204);
      assert.equal(await served(paths.inner, "3"), 404);
      // The submodel deleted: every upload it held.
      assert.equal(await served(paths.withSubmodel, "4"), 200);
      assert.equal((await other.request("DELETE", `/submodels/${b64(id)}`)).status, 204);
      assert.equal(await served(paths.withSubmodel, "5"), 404);
      // A shell's uploaded thumbnail goes with the shell.
      const shellId = "urn:test:released-thumbnail";
      const shell = {
        modelType: "AssetAdministrationShell",
        id: shellId,
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:test:released-thumbnail:asset" },
      };
      assert.equal((await target.request("POST", "/shells", { body: JSON.stringify(shell) })).status, 201);
      const thumb = multipart([
        { name: "fileName", value: "t.png" },
        { name: "file", value: PNG },
      ]);
      const thumbnail = `/shells/${b64(shellId)}/asset-information/thumbnail`;
      assert.equal(
        (await rawRequest(target, "PUT", thumbnail, thumb.body, { "content-type": thumb.type })).status,
        204,
      );
      const thumbnailPath = (await target.get(`/shells/${b64(shellId)}/asset-information`)).json().defaultThumbnail
        .path;
      assert.equal(await served(thumbnailPath, "6"), 200);
      assert.equal((await other.request("DELETE", `/shells/${b64(shellId)}`)).status, 204);
      assert.equal(await served(thumbnailPath, "7"), 404);
    });

    test("an upload goes when a PUT or PATCH of its submodel or a $value PATCH leaves its File naming something else", async () => {
      const client = empty.clients[0]!;
      const id = "urn:test:released-by-whole-writes";
      const submodelPath = `/submodels/${b64(id)}`;
      const elements = (values: { a?: string; inner?: string; kept?: string }) => [
        fileElement("A", values.a),
        { modelType: "SubmodelElementCollection", idShort: "Box", value: [fileElement("Inner", values.inner)] },
        fileElement("Kept", values.kept),
      ];
      const submodel = (values: { a?: string; inner?: string; kept?: string }) =>
        JSON.stringify({ modelType: "Submodel", id, submodelElements: elements(values) });
      const write = async (method: string, path: string, body: string) => {
        const response = await client.request(method, path, { body });
        assert.equal(response.status, 204, `${method} ${path}: ${response.text}`);
      };
      let probes = 0;
      /** The upload is released: its element has no attachment, and a new File naming its path gets no bytes. */
      const released = async (idShortPath: string, path: string, after: string) => {
        const attachment = await client.get(`${submodelPath}/submodel-elements/${idShortPath}/attachment`);
        assert.equal(attachment.status, 404, `${idShortPath} after ${after}`);
        assert.equal(
          await servedAt(client, path, `whole-writes-${probes++}`),
          404,
          `${idShortPath}'s bytes after ${after}`,
        );
      };
      /** Kept names its upload all along: every write leaves its bytes. */
      const keptServed = async (after: string) => {
        const pdf = await bytesOf(client, `${submodelPath}/submodel-elements/Kept/attachment`);
        assert.ok(pdf.status === 200 && pdf.body.equals(PDF), `Kept's upload after ${after}`);
      };
      const elsewhere = "/aasx/files/elsewhere.pdf";
      assert.equal((await client.request("POST", "/submodels", { body: submodel({}) })).status, 201);
      const kept = await uploadTo(client, id, "Kept");

      let a = await uploadTo(client, id, "A");
      let inner = await uploadTo(client, id, "Box.Inner");
      await write("PUT", submodelPath, submodel({ a: elsewhere, kept }));
      await released("A", a, "a PUT of the submodel");
      await released("Box.Inner", inner, "a PUT of the submodel");
      await keptServed("a PUT of the submodel");

      a = await uploadTo(client, id, "A");
      inner = await uploadTo(client, id, "Box.Inner");
      await write("PATCH", submodelPath, JSON.stringify({ submodelElements: elements({ inner: elsewhere, kept }) }));
      await released("A", a, "a PATCH of the submodel");
      await released("Box.Inner", inner, "a PATCH of the submodel");
      await keptServed("a PATCH of the submodel");

      a = await uploadTo(client, id, "A");
      inner = await uploadTo(client, id, "Box.Inner");
      const pdf = (value: string | null) => ({ contentType: "application/pdf", value });
      await write(
        "PATCH",
        `${submodelPath}/$value`,
        JSON.stringify({ A: pdf(elsewhere), Box: { Inner: pdf(null) }, Kept: pdf(kept) }),
      );
      await released("A", a, "a $value PATCH of the submodel");
      await released("Box.Inner", inner, "a $value PATCH of the submodel");
      await keptServed("a $value PATCH of the submodel");

      inner = await uploadTo(client, id, "Box.Inner");
      await write("PATCH", `${submodelPath}/submodel-elements/Box/$value`, JSON.stringify({ Inner: pdf(elsewhere) }));
      await released("Box.Inner", inner, "a $value PATCH of its container");

      a = await uploadTo(client, id, "A");
      await write("PATCH", `${submodelPath}/submodel-elements/A/$value`, JSON.stringify(pdf(elsewhere)));
      await released("A", a, "a $value PATCH of the File");
      // A write refused before its commit (a stale If-Match) releases nothing.
      const refused = await client.request("PATCH", `${submodelPath}/submodel-elements/Kept/$value`, {
        body: JSON.stringify(pdf(elsewhere)),
        headers: { "If-Match": '"stale"' },
      });
      assert.equal(refused.status, 412, refused.text);
      await keptServed("a refused $value PATCH");
      // Another contentType, the same value: the File still names its upload.
      await write(
        "PATCH",
        `${submodelPath}/submodel-elements/Kept/$value`,
        JSON.stringify({ contentType: "application/x-pdf", value: kept }),
      );
      await keptServed("a $value PATCH keeping the File's value");
      const attachment = async (idShortPath: string) =>
        (await bytesOf(client, `${submodelPath}/submodel-elements/${idShortPath}/attachment`)).status;
      // Another File naming an upload keeps its bytes when the File that uploaded them moves on.
      a = await uploadTo(client, id, "A");
      await write("PATCH", `${submodelPath}/submodel-elements/Box.Inner/$value`, JSON.stringify(pdf(a)));
      await write("PATCH", `${submodelPath}/submodel-elements/A/$value`, JSON.stringify(pdf(elsewhere)));
      assert.equal(await attachment("Box.Inner"), 200, "Box.Inner still names the upload A made");
      // Moved, not dropped: two Files swapping their uploads in one write keep both.
      a = await uploadTo(client, id, "A");
      await write("PATCH", `${submodelPath}/$value`, JSON.stringify({ A: pdf(kept), Kept: pdf(a) }));
      assert.equal(await attachment("A"), 200, "A after a swap of uploads");
      assert.equal(await attachment("Kept"), 200, "Kept after a swap of uploads");
      assert.equal((await client.request("DELETE", submodelPath)).status, 204);
    });

    test("uploads of list items that moved up an index go with them, and no File's bytes are replaced", async () => {
      const client = empty.clients[0]!;
      const other = empty.clients.at(-1)!;
      let probes = 0;
      const served = async (path: string) => await servedAt(other, path, `shifted-${probes++}`);
      const id = "urn:test:released-shifted-uploads";
      const submodelPath = `/submodels/${b64(id)}`;
      const item = () => ({ modelType: "SubmodelElementCollection", value: [fileElement("Doc")] });
      const list = {
        modelType: "SubmodelElementList",
        idShort: "Docs",
        typeValueListElement: "SubmodelElementCollection",
        value: [item(), item(), item(), item()],
      };
      const body = JSON.stringify({ modelType: "Submodel", id, submodelElements: [list] });
      assert.equal((await client.request("POST", "/submodels", { body })).status, 201);
      const doc = (index: number) => `${submodelPath}/submodel-elements/Docs%5B${index}%5D.Doc`;
      // Every upload under the same name, each with bytes of its own.
      const upload = async (index: number): Promise<{ path: string; bytes: Buffer }> => {
        const bytes = Buffer.concat([Buffer.from("%PDF-1.7\n"), randomBytes(2000)]);
        const form = multipart([
          { name: "fileName", value: "doc.pdf" },
          { name: "file", value: bytes, type: "application/pdf" },
        ]);
        const put = await rawRequest(client, "PUT", `${doc(index)}/attachment`, form.body, {
          "content-type": form.type,
        });
        assert.equal(put.status, 204, put.body.toString());
        return { path: (await client.get(doc(index))).json().value as string, bytes };
      };
      const attachmentOf = async (index: number) => (await bytesOf(other, `${doc(index)}/attachment`)).body;
      const uploads = [await upload(0), await upload(1), await upload(2), await upload(3)];
      assert.equal((await client.request("DELETE", `${submodelPath}/submodel-elements/Docs%5B0%5D`)).status, 204);
      assert.equal(await served(uploads[0]!.path), 404);
      assert.ok((await attachmentOf(0)).equals(uploads[1]!.bytes), "Docs[0] is the item that was Docs[1]");
      // Docs[1] (was Docs[2]) uploads under the name of the upload Docs[0] (was Docs[1]) holds.
      const again = await upload(1);
      assert.ok((await attachmentOf(0)).equals(uploads[1]!.bytes), "Docs[0]'s bytes are not replaced");
      assert.ok((await attachmentOf(1)).equals(again.bytes));
      assert.equal(await served(uploads[2]!.path), 404, "what Docs[1] named before its new upload");
      // The shifted Docs[0] deleted, then the shifted Docs[1] overwritten: their uploads go.
      assert.equal((await other.request("DELETE", `${submodelPath}/submodel-elements/Docs%5B0%5D`)).status, 204);
      assert.equal(await served(uploads[1]!.path), 404, "the upload of a deleted shifted item");
      assert.ok((await attachmentOf(0)).equals(again.bytes));
      const put = await other.request("PUT", `${submodelPath}/submodel-elements/Docs%5B1%5D`, {
        body: JSON.stringify(item()),
      });
      assert.equal(put.status, 204, put.text);
      assert.equal(await served(uploads[3]!.path), 404, "the upload of an overwritten shifted item");
      assert.equal(await served(again.path), 200);
      assert.equal((await other.request("DELETE", submodelPath)).status, 204);
      assert.equal(await served(again.path), 404);
    });

    test("an uploaded thumbnail goes once its shell no longer names it: asset information or shell PUT without it, shell deleted", async () => {
      const client = empty.clients[0]!;
      const other = empty.clients.at(-1)!;
      let probes = 0;
      const served = async (path: string) => await servedAt(other, path, `dropped-thumbnail-${probes++}`);
      const shellId = "urn:test:released-dropped-thumbnail";
      const assetInformation = { assetKind: "Instance", globalAssetId: "urn:test:released-dropped-thumbnail:asset" };
      const shell = JSON.stringify({ modelType: "AssetAdministrationShell", id: shellId, assetInformation });
      assert.equal((await client.request("POST", "/shells", { body: shell })).status, 201);
      const shellPath = `/shells/${b64(shellId)}`;
      const uploadThumbnail = async (): Promise<string> => {
        const form = multipart([
          { name: "fileName", value: "t.png" },
          { name: "file", value: PNG },
        ]);
        const response = await rawRequest(client, "PUT", `${shellPath}/asset-information/thumbnail`, form.body, {
          "content-type": form.type,
        });
        assert.equal(response.status, 204, response.body.toString());
        const path = (await client.get(`${shellPath}/asset-information`)).json().defaultThumbnail.path as string;
        assert.equal(await served(path), 200);
        return path;
      };
      let thumbnail = await uploadThumbnail();
      const info = JSON.stringify(assetInformation);
      assert.equal((await other.request("PUT", `${shellPath}/asset-information`, { body: info })).status, 204);
      assertResult(await other.get(`${shellPath}/asset-information/thumbnail`), 404);
      assert.equal(await served(thumbnail), 404, "after a PUT of the asset information without it");
      thumbnail = await uploadThumbnail();
      assert.equal((await other.request("PUT", shellPath, { body: shell })).status, 204);
      assertResult(await other.get(`${shellPath}/asset-information/thumbnail`), 404);
      assert.equal(await served(thumbnail), 404, "after a PUT of the shell without it");
      thumbnail = await uploadThumbnail();
      assert.equal((await other.request("DELETE", shellPath)).status, 204);
      assert.equal(await served(thumbnail), 404, "after the shell was deleted");
    });

    test("AASX File Server: a posted package joins the model and leaves it with the package; a refused PUT changes nothing", async () => {
      const target = empty.clients[0]!;
      const pkg = writeAasx({
        environment: {
          assetAdministrationShells: [
            {
              modelType: "AssetAdministrationShell",
              id: "urn:pkg",
              idShort: "Pkg",
              assetInformation: { assetKind: "Instance", globalAssetId: "urn:pkg:asset" },
            },
          ],
        },
        files: [],
      });
      const upload = multipart([
        { name: "aasIds", value: "urn:pkg" },
        { name: "fileName", value: "pkg.aasx" },
        { name: "file", value: Buffer.from(pkg), type: "application/asset-administration-shell-package" },
      ]);
      const posted = await rawRequest(target, "POST", "/packages", upload.body, { "content-type": upload.type });
      assert.equal(posted.status, 201, posted.body.toString());
      const { packageId } = JSON.parse(posted.body.toString());
      assert.equal(posted.headers.location, `/api/v3.0/packages/${b64(packageId)}`);
      assert.equal((await target.get(`/shells/${b64("urn:pkg")}`)).status, 200);
      assert.deepEqual((await target.get(`/packages?aasId=${b64("urn:pkg")}`)).json().result, [
        { packageId, aasIds: ["urn:pkg"] },
      ]);
      // An empty aasIds part is as none (the package's shells); an id past 2000 characters is no Identifier.
      const other = writeAasx({
        environment: {
          assetAdministrationShells: [
            {
              modelType: "AssetAdministrationShell",
              id: "urn:pkg:empty-aasids",
              assetInformation: { assetKind: "Instance", globalAssetId: "urn:pkg:empty-aasids:asset" },
            },
          ],
        },
        files: [],
      });
      const longId = multipart([
        { name: "aasIds", value: `urn:${"x".repeat(2000)}` },
        { name: "fileName", value: "other.aasx" },
        { name: "file", value: Buffer.from(other), type: "application/asset-administration-shell-package" },
      ]);
      const tooLong = await rawRequest(target, "POST", "/packages", longId.body, { "content-type": longId.type });
      assert.equal(tooLong.status, 400, tooLong.body.toString());
      const emptyIds = multipart([
        { name: "aasIds", value: "" },
        { name: "fileName", value: "other.aasx" },
        { name: "file", value: Buffer.from(other), type: "application/asset-administration-shell-package" },
      ]);
      const withEmpty = await rawRequest(target, "POST", "/packages", emptyIds.body, { "content-type": emptyIds.type });
      assert.equal(withEmpty.status, 201, withEmpty.body.toString());
      assert.deepEqual(
        (await target.get(`/packages?aasId=${b64("urn:pkg:empty-aasids")}`))
          .json()
          .result.map((p: { aasIds: string[] }) => p.aasIds),
        [["urn:pkg:empty-aasids"]],
      );
      const got = await bytesOf(target, `/packages/${b64(packageId)}`);
      assert.ok(got.body.equals(Buffer.from(pkg)));
      assert.equal(got.headers["x-filename"], "pkg.aasx");

      // A PUT whose package clashes with an identifiable it did not bring is refused (409) and
      // changes nothing: the old content stays (it used to be removed before the clash was found).
      const taken = { modelType: "Submodel", id: "urn:pkg:taken" };
      assert.equal((await target.request("POST", "/submodels", { body: JSON.stringify(taken) })).status, 201);
      const clashing = writeAasx({
        environment: {
          assetAdministrationShells: [
            {
              modelType: "AssetAdministrationShell",
              id: "urn:pkg",
              idShort: "Pkg2",
              assetInformation: { assetKind: "Instance", globalAssetId: "urn:pkg:asset" },
            },
          ],
          submodels: [taken],
        },
        files: [],
      });
      const replacement = multipart([
        { name: "fileName", value: "clash.aasx" },
        { name: "file", value: Buffer.from(clashing), type: "application/asset-administration-shell-package" },
      ]);
      const refused = await rawRequest(target, "PUT", `/packages/${b64(packageId)}`, replacement.body, {
        "content-type": replacement.type,
      });
      assert.equal(refused.status, 409, refused.body.toString());
      assert.match(refused.body.toString(), /urn:pkg:taken/);
      const kept = await target.get(`/shells/${b64("urn:pkg")}`);
      assert.equal(kept.status, 200, "the old content is still there");
      assert.equal(kept.json().idShort, "Pkg");
      assert.ok((await bytesOf(target, `/packages/${b64(packageId)}`)).body.equals(Buffer.from(pkg)));
      assert.equal((await target.request("DELETE", `/submodels/${b64("urn:pkg:taken")}`)).status, 204);

      assert.equal((await target.request("DELETE", `/packages/${b64(packageId)}`)).status, 204);
      assert.equal((await target.get(`/shells/${b64("urn:pkg")}`)).status, 404);
      // An id longer than any FileStore key names no package: 404, not the key's refusal as a 500.
      const long = b64("A".repeat(6000));
      for (const method of ["GET", "DELETE"]) {
        const answer = await target.request(method, `/packages/${long}`);
        assert.equal(answer.status, 404, `${method} of a 6,000-character package id`);
        assert.match(answer.json().messages[0].text, /not found/);
      }
    });

    test("reset empties the store for every gateway at once, files included", async () => {
      const [first] = source.clients;
      assert.equal((await first!.request("DELETE", "/reset")).status, 204);
      for (const client of source.clients) {
        assert.deepEqual((await client.get("/shells")).json().result, []);
        assert.deepEqual((await client.get("/submodels")).json().result, []);
        assert.deepEqual((await client.get("/concept-descriptions")).json().result, []);
      }
      const imported = await rawRequest(
        first!,
        "POST",
        "/import",
        Buffer.from(JSON.stringify({ submodels: [submodel] })),
        { "content-type": "application/json" },
      );
      assert.equal(imported.status, 200);
      assert.equal((await bytesOf(first!, manualPath)).status, 404, "the files went with the reset");
    });
  });
}
