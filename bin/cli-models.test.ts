/** The CLI's model loading, as users run it: -m with XML, AASX and several files, refusals, the default model.aasx. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { writeAasXml, writeAasx } from "@twinport/shared";
import { freePort } from "../tests/test-support/servers.ts";
import { spawnTwinport } from "./test-support/spawn-twinport.ts";

const dir = mkdtempSync(join(tmpdir(), "twinport-cli-models-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const shell = (id: string, idShort = "S") => ({
  modelType: "AssetAdministrationShell",
  id,
  idShort,
  assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset` },
});
const PDF = Buffer.from("%PDF-1.4 the manual\n%%EOF\n");

function write(name: string, content: string | Uint8Array): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

const xmlFile = write("plant.xml", writeAasXml({ assetAdministrationShells: [shell("urn:xml")] }));
const aasxFile = write(
  "pump.aasx",
  writeAasx({
    environment: {
      assetAdministrationShells: [shell("urn:aasx")],
      submodels: [
        {
          modelType: "Submodel",
          id: "urn:aasx:sm",
          submodelElements: [
            { modelType: "File", idShort: "Manual", contentType: "application/pdf", value: "/aasx/files/manual.pdf" },
          ],
        },
      ],
    },
    files: [{ path: "/aasx/files/manual.pdf", contentType: "application/pdf", bytes: PDF }],
  }),
);
const jsonFile = write("extra.json", JSON.stringify({ assetAdministrationShells: [shell("urn:json")] }));

function get(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function config(): Promise<{ file: string; api: string }> {
  const port = await freePort();
  const file = write(
    `config-${port}.json`,
    JSON.stringify({
      core: { stateDir: join(dir, "state") },
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1" }],
    }),
  );
  return { file, api: `https://127.0.0.1:${port}/api/v3.0` };
}

async function shellIds(api: string): Promise<string[]> {
  return JSON.parse((await get(`${api}/shells`)).body.toString()).result.map((s: { id: string }) => s.id);
}

function oneLine(stderr: string): string {
  // Structured log records (pino JSON lines) may accompany it; the message for the person is one line.
  const human = stderr
    .trimEnd()
    .split("\n")
    .filter((line) => !line.startsWith('{"level":'))
    .join("\n");
  assert.equal(human.split("\n").length, 1, stderr);
  assert.doesNotMatch(human, /\n\s+at /, "no stack trace");
  return human;
}

test("-m several times with XML, AASX and JSON: one merged model, the package's PDF served", async () => {
  const { file, api } = await config();
  const cli = spawnTwinport(["-c", file, "--endpoint", "http", "-m", xmlFile, "-m", aasxFile, "-m", jsonFile]);
  await cli.ready;
  assert.deepEqual(await shellIds(api), ["urn:xml", "urn:aasx", "urn:json"]);
  const pdf = await get(
    `${api}/submodels/${Buffer.from("urn:aasx:sm").toString("base64url")}/submodel-elements/Manual/attachment`,
  );
  assert.equal(pdf.status, 200);
  assert.ok(pdf.body.equals(PDF));
  assert.equal(await cli.stop(), 0);
});

test("model.aasx in the working directory is the default model", async () => {
  const cwd = mkdtempSync(join(dir, "cwd-"));
  writeFileSync(join(cwd, "model.aasx"), readFileSync(aasxFile));
  const { file, api } = await config();
  const cli = spawnTwinport(["-c", file, "--endpoint", "http"], { cwd });
  await cli.ready;
  assert.deepEqual(await shellIds(api), ["urn:aasx"]);
  assert.equal(await cli.stop(), 0);
});

test("two files defining one id differently: exit 1, one line naming both files", async () => {
  const other = write("conflict.xml", writeAasXml({ assetAdministrationShells: [shell("urn:json", "Different")] }));
  const cli = spawnTwinport(["--endpoint", "http", "-m", jsonFile, "-m", other]);
  assert.equal(await cli.exited, 1);
  assert.match(
    oneLine(cli.stderr()),
    /^twinport embedded: Model file '.*conflict\.xml' could not be loaded: .*'urn:json' is defined differently in .*extra\.json \(assetAdministrationShells\[0\]\) and in .*conflict\.xml/,
  );
});

test("a v2.0 model: exit 1 asking to convert it", async () => {
  const v2 = write(
    "old.json",
    JSON.stringify({
      assetAdministrationShells: [
        { identification: { idType: "IRI", id: "urn:old" }, modelType: { name: "AssetAdministrationShell" } },
      ],
      assets: [],
      submodels: [],
      conceptDescriptions: [],
    }),
  );
  const cli = spawnTwinport(["--endpoint", "http", "-m", v2]);
  assert.equal(await cli.exited, 1);
  assert.match(
    oneLine(cli.stderr()),
    /^twinport embedded: Model file '.*old\.json' could not be loaded: .*AAS v2\.0 format.*convert it to AAS v3\.0/,
  );
});

test("an invalid model stops the start unless --no-validation; a broken AASX names the problem", async () => {
  const invalid = write(
    "invalid.json",
    JSON.stringify({
      submodels: [
        {
          modelType: "Submodel",
          id: "urn:sm",
          submodelElements: [{ modelType: "Property", idShort: "n", valueType: "xs:int", value: "ten" }],
        },
      ],
    }),
  );
  const refused = spawnTwinport(["--endpoint", "http", "-m", invalid]);
  assert.equal(await refused.exited, 1);
  assert.match(oneLine(refused.stderr()), /could not be loaded: submodels\[0\] \('urn:sm'\): Invalid Submodel/);
  const broken = write("broken.aasx", readFileSync(aasxFile).subarray(0, 100));
  const cli = spawnTwinport(["--endpoint", "http", "-m", broken]);
  assert.equal(await cli.exited, 1);
  assert.match(oneLine(cli.stderr()), /Model file '.*broken\.aasx' could not be loaded: Invalid AASX package/);
  const { file, api } = await config();
  const lenient = spawnTwinport(["-c", file, "--endpoint", "http", "--no-validation", "-m", invalid]);
  await lenient.ready;
  assert.equal((await get(`${api}/submodels/${Buffer.from("urn:sm").toString("base64url")}`)).status, 200);
  assert.equal(await lenient.stop(), 0);
});
