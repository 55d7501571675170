import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { writeAasx } from "@twinport/shared";
import { createHttpApp } from "../create-http-app.ts";
import { type HttpEndpointSettings, httpEndpointSettings } from "../http-endpoint-settings.ts";
import { assertResult, call } from "../test-support/call.ts";
import {
  b64,
  EXAMPLE_MODEL_TEXT,
  type ExampleStore,
  exampleStore,
  SHELL_1,
  SUBMODEL_1,
} from "../test-support/example-store.ts";

const API = "/api/v3.0";
const model = JSON.parse(EXAMPLE_MODEL_TEXT);

function form(parts: Record<string, string | Blob | (string | Blob)[]>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(parts))
    for (const item of Array.isArray(value) ? value : [value]) data.append(name, item);
  return data;
}

async function send(
  app: ReturnType<typeof createHttpApp>,
  method: string,
  path: string,
  body?: FormData | Uint8Array | string,
  headers: Record<string, string> = {},
) {
  const response = await app.request(`${API}${path}`, { method, body: body as BodyInit | undefined, headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    text: bytes.toString("utf8"),
    json: () => JSON.parse(bytes.toString("utf8")),
  };
}

const shellPackage = (id: string) =>
  writeAasx({
    environment: {
      assetAdministrationShells: [
        {
          modelType: "AssetAdministrationShell",
          id,
          idShort: "P",
          assetInformation: { assetKind: "Instance", globalAssetId: `${id}/a` },
        },
      ],
    },
    files: [],
  });

describe("file, format and package routes", () => {
  let example: ExampleStore;
  let app: ReturnType<typeof createHttpApp>;
  const appWith = (settings: Partial<HttpEndpointSettings>) =>
    createHttpApp({ store: example.store, settings: httpEndpointSettings(settings) });
  before(async () => {
    example = await exampleStore();
    app = appWith({});
  });
  after(() => example.close());

  it("attachments: PUT multipart, GET the bytes with their type and name, DELETE answers 200; at every Submodel API mount", async () => {
    const pdf = Buffer.from("%PDF-1.7 manual");
    const mounts = [
      `/submodels/${b64(SUBMODEL_1)}`,
      `/shells/${b64(SHELL_1)}/submodels/${b64(SUBMODEL_1)}`,
      `/shells/${b64(SHELL_1)}/aas/submodels/${b64(SUBMODEL_1)}/submodel`,
    ];
    for (const mount of mounts) {
      const put = await send(
        app,
        "PUT",
        `${mount}/submodel-elements/Manual/attachment`,
        form({ fileName: "Bedienungsanleitung ü.pdf", file: new Blob([pdf], { type: "application/pdf" }) }),
      );
      assert.equal(put.status, 204, put.text);
      const got = await send(app, "GET", `${mount}/submodel-elements/Manual/attachment`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.bytes, pdf);
      assert.equal(got.headers.get("content-type"), "application/pdf");
      assert.equal(
        got.headers.get("content-disposition"),
        `attachment; filename="Bedienungsanleitung _.pdf"; filename*=UTF-8''Bedienungsanleitung%20%C3%BC.pdf`,
      );
    }
    const deleted = await send(app, "DELETE", `${mounts[0]}/submodel-elements/Manual/attachment`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.text, "");
    assertResult(await call(app, "GET", `${API}${mounts[0]}/submodel-elements/Manual/attachment`), 404);
  });

  it("attachments: 405 for a non-File element, 415 without multipart, 404 for unknown elements", async () => {
    const path = `/submodels/${b64(SUBMODEL_1)}/submodel-elements`;
    const blob = await send(
      app,
      "PUT",
      `${path}/Firmware/attachment`,
      form({ fileName: "f.bin", file: new Blob(["x"]) }),
    );
    assert.equal(blob.status, 405);
    assert.match(blob.json().messages[0].text, /Only File elements/);
    // A 405 names what is allowed (RFC 9110 §15.5.6): at a Blob's attachment, nothing.
    assert.equal(blob.headers.get("allow"), "");
    const read = await call(app, "GET", `${API}${path}/Firmware/attachment`);
    assertResult(read, 405);
    assert.equal(read.headers.get("allow"), "");
    assertResult(
      await call(app, "PUT", `${API}${path}/Manual/attachment`, {
        body: "{}",
        headers: { "Content-Type": "application/json" },
      }),
      415,
    );
    assert.equal(
      (await send(app, "PUT", `${path}/Manual/attachment`, form({ fileName: "x" }))).status,
      400,
      "no file part",
    );
    assert.equal(
      (await send(app, "PUT", `${path}/Nope/attachment`, form({ fileName: "x", file: new Blob(["x"]) }))).status,
      404,
    );
    assert.equal((await call(app, "POST", `${API}${path}/Manual/attachment`)).status, 405);
  });

  it("thumbnail: PUT 204, GET the image, DELETE 200, then GET 404", async () => {
    const path = `/shells/${b64(SHELL_1)}/asset-information/thumbnail`;
    const png = Buffer.from([137, 80, 78, 71, 0, 1]);
    assert.equal((await send(app, "PUT", path, form({ fileName: "pump.png", file: new Blob([png]) }))).status, 204);
    const got = await send(app, "GET", path);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "image/png");
    assert.deepEqual(got.bytes, png);
    assert.equal((await send(app, "DELETE", path)).status, 200);
    assertResult(await call(app, "GET", `${API}${path}`), 404);
  });

  it("serialization: JSON by default and for */*, XML and AASX by Accept; other Accepts are 406, bad booleans 400", async () => {
    const whole = await send(app, "GET", "/serialization");
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get("content-type"), "application/json");
    assert.equal(whole.headers.get("content-disposition"), null);
    assert.deepEqual(
      whole.json().assetAdministrationShells.map((s: { id: string }) => s.id),
      model.assetAdministrationShells.map((s: { id: string }) => s.id),
    );
    assert.equal(
      (await send(app, "GET", "/serialization", undefined, { Accept: "*/*" })).headers.get("content-type"),
      "application/json",
    );
    const xml = await send(app, "GET", `/serialization?aasIds=${b64(SHELL_1)}`, undefined, {
      Accept: "application/xml",
    });
    assert.equal(xml.headers.get("content-type"), "application/xml");
    assert.match(xml.text, /<environment xmlns="https:\/\/admin-shell\.io\/aas\/3\/0">/);
    for (const accept of [
      "application/asset-administration-shell-package+xml",
      "application/aasx+xml",
      "text/html;q=0.9, application/asset-administration-shell-package",
    ]) {
      const aasx = await send(app, "GET", "/serialization", undefined, { Accept: accept });
      assert.equal(aasx.status, 200, accept);
      assert.equal(aasx.headers.get("content-type"), "application/asset-administration-shell-package+xml");
      assert.equal(aasx.bytes.subarray(0, 2).toString(), "PK");
      assert.match(aasx.headers.get("content-disposition") ?? "", /environment\.aasx/);
    }
    assertResult(await call(app, "GET", `${API}/serialization`, { headers: { Accept: "text/html" } }), 406, /Accept/);
    assertResult(await call(app, "GET", `${API}/serialization?includeConceptDescriptions=yes`), 400);
    assertResult(await call(app, "GET", `${API}/serialization?aasIds=***`), 400);
    // An empty value names nothing: a 400, not the whole repository.
    assertResult(await call(app, "GET", `${API}/serialization?aasIds=`), 400, /empty value/);
    assertResult(await call(app, "GET", `${API}/serialization?submodelIds=${b64(SHELL_1)},`), 400, /empty value/);
    assertResult(await call(app, "GET", `${API}/serialization?aasIds=${b64("urn:unknown")}`), 404);
  });

  it("serialization ids: repeated, comma-separated, or FA³ST's one value of comma-joined ids", async () => {
    const [a, b] = model.submodels.map((s: { id: string }) => s.id);
    for (const query of [
      `submodelIds=${b64(a)}&submodelIds=${b64(b)}`,
      `submodelIds=${b64(a)},${b64(b)}`,
      `submodelIds=${b64(`${a},${b}`)}`,
    ]) {
      const body = (await send(app, "GET", `/serialization?${query}&includeConceptDescriptions=false`)).json();
      assert.deepEqual(
        body.submodels.map((s: { id: string }) => s.id),
        [a, b],
        query,
      );
      assert.equal(body.assetAdministrationShells, undefined);
      assert.equal(body.conceptDescriptions, undefined);
    }
  });

  it("import: the body's Content-Type names the format; 200 with the problems; PUT /upload is the same", async () => {
    const mine = appWith({});
    const fresh = {
      assetAdministrationShells: [
        {
          modelType: "AssetAdministrationShell",
          id: "urn:imported",
          idShort: "I",
          assetInformation: { assetKind: "Instance", globalAssetId: "urn:x" },
        },
      ],
    };
    const ok = await send(mine, "POST", "/import", JSON.stringify(fresh), {
      "Content-Type": "application/json; charset=utf-8",
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json(), []);
    const again = await send(mine, "PUT", "/upload", JSON.stringify(fresh), { "Content-Type": "application/json" });
    assert.equal(again.status, 200);
    const [problem] = again.json();
    assert.deepEqual(
      { ...problem, text: undefined },
      {
        messageType: "Error",
        code: "conflict",
        modelType: "AssetAdministrationShell",
        id: "urn:imported",
        text: undefined,
      },
    );
    const aasx = await send(mine, "POST", "/import", shellPackage("urn:from-aasx"), {
      "Content-Type": "application/asset-administration-shell-package+xml",
    });
    assert.deepEqual(aasx.json(), []);
    assert.equal((await call(mine, "GET", `${API}/shells/${b64("urn:from-aasx")}`)).status, 200);
    assertResult(
      await call(mine, "POST", `${API}/import`, { body: "{}", headers: { "Content-Type": "text/plain" } }),
      400,
      /Content-Type/,
    );
    assertResult(
      await call(mine, "POST", `${API}/import`, { body: "<nope", headers: { "Content-Type": "application/xml" } }),
      400,
    );
    assertResult(
      await call(mine, "POST", `${API}/import`, { body: "", headers: { "Content-Type": "application/json" } }),
      400,
    );
  });

  it("a body announced larger than maxRequestBodySize is a 413 before it is read", async () => {
    const small = appWith({ maxRequestBodySize: 1024 });
    const response = await send(small, "POST", "/import", "{}", {
      "Content-Type": "application/json",
      "Content-Length": String(1024 ** 3),
    });
    assert.equal(response.status, 413);
    assert.equal(response.json().messages[0].code, "413");
    const upload = await send(
      small,
      "PUT",
      `/submodels/${b64(SUBMODEL_1)}/submodel-elements/Manual/attachment`,
      form({ fileName: "big", file: new Blob([new Uint8Array(4096)]) }),
    );
    assert.equal(upload.status, 413);
  });

  it("packages: POST 201 with Location, list with aasId, GET the bytes with X-FileName, PUT 204, DELETE 204", async () => {
    const bytes = shellPackage("urn:pkg-1");
    const posted = await send(
      app,
      "POST",
      "/packages",
      form({ aasIds: "urn:pkg-1", fileName: "one.aasx", file: new Blob([Buffer.from(bytes)]) }),
    );
    assert.equal(posted.status, 201, posted.text);
    const { packageId, aasIds } = posted.json();
    assert.deepEqual(aasIds, ["urn:pkg-1"]);
    assert.equal(posted.headers.get("location"), `${API}/packages/${b64(packageId)}`);
    const list = (await send(app, "GET", `/packages?aasId=${b64("urn:pkg-1")}`)).json();
    assert.deepEqual(list, { paging_metadata: {}, result: [{ packageId, aasIds: ["urn:pkg-1"] }] });
    const got = await send(app, "GET", `/packages/${b64(packageId)}`);
    assert.deepEqual(got.bytes, Buffer.from(bytes));
    assert.equal(got.headers.get("x-filename"), "one.aasx");
    assert.equal(got.headers.get("content-type"), "application/asset-administration-shell-package");
    assert.equal(
      (await call(app, "GET", `${API}/shells/${b64("urn:pkg-1")}`)).status,
      200,
      "the package's shell is served",
    );
    const put = await send(
      app,
      "PUT",
      `/packages/${b64(packageId)}`,
      form({ aasIds: '["urn:pkg-2"]', fileName: "two.aasx", file: new Blob([Buffer.from(shellPackage("urn:pkg-2"))]) }),
    );
    assert.equal(put.status, 204, put.text);
    assert.equal((await call(app, "GET", `${API}/shells/${b64("urn:pkg-1")}`)).status, 404);
    assert.equal((await send(app, "DELETE", `/packages/${b64(packageId)}`)).status, 204);
    assert.equal((await call(app, "GET", `${API}/shells/${b64("urn:pkg-2")}`)).status, 404);
    assertResult(await call(app, "GET", `${API}/packages/${b64(packageId)}`), 404);
    assert.equal(
      (await send(app, "POST", "/packages", form({ fileName: "bad.aasx", file: new Blob(["junk"]) }))).status,
      400,
    );
  });

  it("reset: GET and DELETE answer 204 and empty the store", async () => {
    const own = await exampleStore();
    try {
      const mine = createHttpApp({ store: own.store, settings: httpEndpointSettings() });
      assert.equal((await call(mine, "GET", `${API}/reset`)).status, 204);
      assert.deepEqual((await call(mine, "GET", `${API}/shells`)).json.result, []);
      assert.equal((await call(mine, "DELETE", `${API}/reset`)).status, 204);
      assert.equal((await call(mine, "POST", `${API}/reset`)).status, 405);
    } finally {
      await own.close();
    }
  });

  it("served only with their profiles: FAAAST_RESET, FAAAST_IMPORT, AASX_FILE_SERVER_FULL", async () => {
    const readOnly = appWith({ profiles: ["AAS_REPOSITORY_READ"] });
    for (const [method, path] of [
      ["GET", "/reset"],
      ["POST", "/import"],
      ["PUT", "/upload"],
      ["GET", "/packages"],
    ] as const) {
      assertResult(await call(readOnly, method, `${API}${path}`), 404);
    }
    assert.equal((await call(readOnly, "GET", `${API}/serialization`)).status, 200);
    assertResult(await call(readOnly, "PUT", `${API}/shells/${b64(SHELL_1)}/asset-information/thumbnail`), 405);
    const resetOnly = appWith({ profiles: ["FAAAST_RESET"] });
    assertResult(await call(resetOnly, "POST", `${API}/import`), 404);
    assertResult(await call(resetOnly, "GET", `${API}/serialization`), 404);
    const packagesOnly = appWith({ profiles: ["AASX_FILE_SERVER_FULL"] });
    assert.equal((await call(packagesOnly, "GET", `${API}/packages`)).status, 200);
    const description = (await call(packagesOnly, "GET", `${API}/description`)).json;
    assert.deepEqual(description.profiles, [
      "https://admin-shell.io/aas/API/3/0/AasxFileServerServiceSpecification/SSP-001",
    ]);
  });
});
