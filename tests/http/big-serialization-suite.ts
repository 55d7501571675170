/**
 * Black-box suite of a whole-model serialization large enough to take many store reads (ADR 0034):
 * 300 submodels × 100 Properties, 300 shells and 600 concept descriptions (more than one page of
 * each list), served as JSON, XML and AASX over real HTTPS, each parsed and compared with the
 * model loaded. Every format is streamed (chunked transfer, no Content-Length).
 */

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DEFAULT_AASX_LIMITS, parseAasXml, readAasx } from "@twinport/shared";
import { generatedSubmodel } from "../../bench/test-support/generated-model.ts";
import type { HttpClient } from "../test-support/http-client.ts";
import { findCertificate, type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";

const SUBMODELS = 300;
const ELEMENTS = 100;
const CONCEPT_DESCRIPTIONS = 600;

type Json = Record<string, any>;

function generatedModel(): Json {
  const submodels: Json[] = Array.from({ length: SUBMODELS }, (_, i) => ({
    ...generatedSubmodel(`urn:big:sm:Sm${String(i).padStart(4, "0")}`, ELEMENTS),
    semanticId: { type: "ExternalReference", keys: [{ type: "GlobalReference", value: `urn:big:cd:${i % 7}` }] },
  }));
  const assetAdministrationShells = submodels.map((submodel, i) => ({
    modelType: "AssetAdministrationShell",
    id: `urn:big:aas:${String(i).padStart(4, "0")}`,
    idShort: `Shell${i}`,
    assetInformation: { assetKind: "Instance", globalAssetId: `urn:big:asset:${i}` },
    submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: submodel.id }] }],
  }));
  const conceptDescriptions = Array.from({ length: CONCEPT_DESCRIPTIONS }, (_, i) => ({
    modelType: "ConceptDescription",
    id: `urn:big:cd:${i}`,
    idShort: `Concept${i}`,
  }));
  return { assetAdministrationShells, submodels, conceptDescriptions };
}

/** The environment with every list ordered by id: the store's order is its own. */
function byId(environment: Json): Json {
  const sorted: Json = {};
  for (const list of ["assetAdministrationShells", "submodels", "conceptDescriptions"])
    sorted[list] = [...(environment[list] ?? [])].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sorted;
}

async function download(
  client: HttpClient,
  ca: string | undefined,
  path: string,
  accept: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const url = new URL(client.baseUrl.replace(/\/$/, "") + path);
  return await new Promise((resolve, reject) => {
    const request = https.get(url, { headers: { accept }, ca, rejectUnauthorized: ca !== undefined }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.setTimeout(120_000, () => request.destroy(new Error(`GET ${path} timed out`)));
  });
}

export function bigSerializationSuite(mode: Mode): void {
  describe(`whole-model serialization in batches (${mode})`, () => {
    const model = generatedModel();
    let sut: SystemUnderTest;
    let client: HttpClient;
    let ca: string | undefined;

    before(async () => {
      const dir = mkdtempSync(join(tmpdir(), "twinport-big-serialization-"));
      const file = join(dir, "big-model.json");
      writeFileSync(file, JSON.stringify(model));
      sut = await startSystem(mode, { model: file, gateways: 1 });
      client = sut.clients[0]!;
      const gateway = sut.processes.find((proc) => proc.role !== "model-store")!;
      ca = findCertificate(dirname(gateway.logFile));
    });
    after(async () => {
      client?.close();
      await sut?.stop();
    });

    test("JSON: streamed, and equal to the model", async () => {
      const res = await download(client, ca, "/serialization", "application/json");
      assert.equal(res.status, 200);
      assert.equal(res.headers["content-type"], "application/json");
      assert.equal(res.headers["transfer-encoding"], "chunked", "written as it is read, not as one buffer");
      assert.equal(res.headers["content-length"], undefined);
      assert.deepEqual(byId(JSON.parse(res.body.toString("utf8"))), byId(model));
    });

    test("XML: streamed, and equal to the model", async () => {
      const res = await download(client, ca, "/serialization", "application/xml");
      assert.equal(res.status, 200);
      assert.equal(res.headers["transfer-encoding"], "chunked");
      assert.deepEqual(byId(parseAasXml(res.body.toString("utf8"))), byId(model));
    });

    test("AASX: streamed, and equal to the model", async () => {
      const res = await download(client, ca, "/serialization", "application/asset-administration-shell-package+xml");
      assert.equal(res.status, 200);
      assert.equal(res.headers["transfer-encoding"], "chunked");
      assert.match(String(res.headers["content-disposition"]), /environment\.aasx/);
      assert.deepEqual(byId(readAasx(res.body, DEFAULT_AASX_LIMITS).environment), byId(model));
    });

    test("a client that goes away mid-download: the next downloads are served whole", async () => {
      for (const accept of ["application/json", "application/xml"]) {
        const url = new URL(`${client.baseUrl.replace(/\/$/, "")}/serialization`);
        await new Promise<void>((resolve, reject) => {
          const request = https.get(
            url,
            { headers: { accept }, ca, rejectUnauthorized: ca !== undefined },
            (response) => {
              response.once("data", () => {
                request.destroy();
                resolve();
              });
            },
          );
          request.on("error", (error) => (request.destroyed ? resolve() : reject(error)));
        });
      }
      const res = await download(client, ca, "/serialization", "application/json");
      assert.equal(res.status, 200);
      assert.deepEqual(byId(JSON.parse(res.body.toString("utf8"))), byId(model));
    });

    test("a selection: the named submodels and the concept descriptions they reference", async () => {
      const ids = ["urn:big:sm:Sm0001", "urn:big:sm:Sm0299"].map((id) => Buffer.from(id).toString("base64url"));
      const res = await download(client, ca, `/serialization?submodelIds=${ids.join(",")}`, "application/json");
      assert.equal(res.status, 200);
      const environment = JSON.parse(res.body.toString("utf8"));
      assert.deepEqual(
        environment.submodels.map((submodel: Json) => submodel.id),
        ["urn:big:sm:Sm0001", "urn:big:sm:Sm0299"],
      );
      assert.deepEqual(environment.submodels[1], model.submodels[299]);
      assert.deepEqual(environment.conceptDescriptions.map((cd: Json) => cd.id).sort(), [
        "urn:big:cd:1",
        "urn:big:cd:5",
      ]);
    });
  });
}
