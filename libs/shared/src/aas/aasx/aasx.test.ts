import assert from "node:assert/strict";
import { test } from "node:test";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { AasError } from "../aas-error.ts";
import { readAas } from "../model-io.ts";
import { exampleEnvironment, type Json, richShell, richSubmodel } from "../test-support/fixtures.ts";
import { writeAasXml } from "../xml/aas-xml-writer.ts";
import { DEFAULT_AASX_LIMITS } from "./aasx-limits.ts";
import { openAasxOffThread, readAasx, readAasxOffThread } from "./aasx-reader.ts";
import { writeAasx } from "./aasx-writer.ts";

const NS = "https://admin-shell.io/aas/3/0";
const everyByte = Uint8Array.from({ length: 256 }, (_, index) => index);
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

function richEnvironment(): Json {
  const environment = exampleEnvironment();
  environment.submodels.push(richSubmodel());
  environment.assetAdministrationShells.push(richShell());
  return environment;
}

function catchAasError(action: () => unknown): AasError {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof AasError, `expected an AasError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected an AasError");
}

/** A package assembled by hand, the way other tools lay them out. */
function handMadePackage(entries: Record<string, string | Uint8Array>): Uint8Array {
  const zip: Record<string, Uint8Array> = {};
  for (const [name, content] of Object.entries(entries))
    zip[name] = typeof content === "string" ? strToU8(content) : content;
  return zipSync(zip);
}

const contentTypes = (extra = "") => `<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
  <Default Extension="xml" ContentType="text/xml"/>
  <Default Extension="json" ContentType="application/json"/>
  <Default Extension="pdf" ContentType="application/pdf"/>
  <Override PartName="/aasx/aasx-origin" ContentType="text/plain"/>${extra}
</Types>`;
const rels = (...relationships: [type: string, target: string][]) => `<?xml version="1.0" encoding="utf-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
${relationships.map(([type, target], index) => `  <Relationship Type="${type}" Target="${target}" Id="R${index}"/>`).join("\n")}
</Relationships>`;
const WWW = "http://www.admin-shell.io/aasx/relationships";
const THUMBNAIL = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail";

test("write → read keeps the environment, every file byte for byte, and the thumbnail", () => {
  const environment = richEnvironment();
  const files = [
    { path: "/aasx/files/manual.pdf", contentType: "application/pdf", bytes: everyByte },
    { path: "/aasx/files/My Document (v2).txt", contentType: "text/plain; charset=utf-8", bytes: strToU8("Grüße\n") },
    { path: "/aasx/files/empty.bin", contentType: "application/octet-stream", bytes: new Uint8Array(0) },
  ];
  const thumbnail = { path: "/thumbnail.png", contentType: "image/png", bytes: png };
  const bytes = writeAasx({ environment, files, thumbnail });
  const content = readAasx(bytes, DEFAULT_AASX_LIMITS);

  assert.deepEqual(content.environment, environment);
  readAas(content.environment, "Environment", { validate: true });
  assert.equal(content.format, "xml");
  assert.equal(content.specPath, "/aasx/aas/aas.aas.xml");
  assert.deepEqual(content.files, files);
  assert.deepEqual(content.thumbnail, thumbnail);
  // Deterministic output: equal input, equal bytes.
  assert.deepEqual(writeAasx({ environment, files, thumbnail }), bytes);
});

test("read in a worker thread, a package gives the same content; a refused one the same error", async () => {
  const files = [{ path: "/aasx/files/manual.pdf", contentType: "application/pdf", bytes: everyByte }];
  const bytes = writeAasx({ environment: richEnvironment(), files });
  assert.deepEqual(await readAasxOffThread(bytes, DEFAULT_AASX_LIMITS), readAasx(bytes, DEFAULT_AASX_LIMITS));
  // Inflating runs against one budget for the whole package: 100 bytes cannot hold the model.
  const limits = { ...DEFAULT_AASX_LIMITS, maxTotalUncompressedBytes: 100 };
  await assert.rejects(
    readAasxOffThread(bytes, limits),
    (error: unknown) => error instanceof AasError && /core\.aasxMaxTotalSize/.test(error.message),
  );
});

test("the written package has the AASX layout other tools expect", () => {
  const bytes = writeAasx({
    environment: exampleEnvironment(),
    files: [{ path: "/aasx/files/a b.pdf", contentType: "application/pdf", bytes: everyByte }],
    thumbnail: { path: "/aasx/thumbnail.png", contentType: "image/png", bytes: png },
  });
  const entries = unzipSync(bytes);
  assert.deepEqual(Object.keys(entries).sort(), [
    "[Content_Types].xml",
    "_rels/.rels",
    "aasx/_rels/aasx-origin.rels",
    "aasx/aas/_rels/aas.aas.xml.rels",
    "aasx/aas/aas.aas.xml",
    "aasx/aasx-origin",
    "aasx/files/a%20b.pdf",
    "aasx/thumbnail.png",
  ]);
  const packageRels = strFromU8(entries["_rels/.rels"]);
  assert.match(
    packageRels,
    /Type="http:\/\/admin-shell\.io\/aasx\/relationships\/aasx-origin" Target="\/aasx\/aasx-origin"/,
  );
  assert.match(
    packageRels,
    /Type="http:\/\/schemas\.openxmlformats\.org\/package\/2006\/relationships\/metadata\/thumbnail" Target="\/aasx\/thumbnail\.png"/,
  );
  assert.match(
    strFromU8(entries["aasx/_rels/aasx-origin.rels"]),
    /relationships\/aas-spec" Target="\/aasx\/aas\/aas\.aas\.xml"/,
  );
  assert.match(
    strFromU8(entries["aasx/aas/_rels/aas.aas.xml.rels"]),
    /relationships\/aas-suppl" Target="\/aasx\/files\/a%20b\.pdf"/,
  );
  const types = strFromU8(entries["[Content_Types].xml"]);
  assert.match(types, /<Override PartName="\/aasx\/files\/a%20b\.pdf" ContentType="application\/pdf"\/>/);
  assert.match(
    types,
    /<Default Extension="rels" ContentType="application\/vnd\.openxmlformats-package\.relationships\+xml"\/>/,
  );
  assert.match(
    strFromU8(entries["aasx/aas/aas.aas.xml"]),
    new RegExp(`^<\\?xml version="1.0" encoding="utf-8"\\?>\\n<environment xmlns="${NS}">`),
  );
});

test("a package whose spec is JSON reads back as JSON", () => {
  const environment = richEnvironment();
  const bytes = writeAasx({ environment, files: [], format: "json" });
  assert.ok(unzipSync(bytes)["aasx/aas/aas.aas.json"]);
  const content = readAasx(bytes, DEFAULT_AASX_LIMITS);
  assert.equal(content.format, "json");
  assert.equal(content.specPath, "/aasx/aas/aas.aas.json");
  assert.deepEqual(content.environment, environment);
  assert.deepEqual(content.files, []);
  assert.equal(content.thumbnail, undefined);
});

test("a package laid out by another tool: www. relationship types, relative targets, File values without aas-suppl", () => {
  const environment = {
    submodels: [
      {
        modelType: "Submodel",
        id: "urn:docs",
        submodelElements: [
          {
            modelType: "File",
            idShort: "Manual",
            contentType: "application/pdf",
            value: "/aasx/files/Manual File.pdf",
          },
          { modelType: "File", idShort: "Relative", contentType: "application/pdf", value: "aasx/files/other.pdf" },
          { modelType: "File", idShort: "Remote", contentType: "application/pdf", value: "https://example.org/x.pdf" },
          { modelType: "File", idShort: "Missing", contentType: "application/pdf", value: "/aasx/files/missing.pdf" },
        ],
      },
    ],
  };
  const bytes = handMadePackage({
    "[Content_Types].xml": contentTypes(),
    "_rels/.rels": rels([`${WWW}/aasx-origin`, "aasx/aasx-origin"]),
    "aasx/aasx-origin": "Intentionally empty.",
    "aasx/_rels/aasx-origin.rels": rels([`${WWW}/aas-spec`, "docs/docs.aas.xml"]),
    // A UTF-8 byte order mark, as .NET writers put it.
    "aasx/docs/docs.aas.xml": "\uFEFF" + writeAasXml(environment),
    "aasx/docs/_rels/docs.aas.xml.rels": rels([`${WWW}/aas-suppl`, "../files/suppl.bin"]),
    "aasx/files/suppl.bin": everyByte,
    "aasx/files/Manual%20File.pdf": strToU8("%PDF manual"),
    "aasx/files/other.pdf": strToU8("%PDF other"),
    "aasx/files/unrelated.pdf": strToU8("%PDF unrelated"),
  });
  const content = readAasx(bytes, DEFAULT_AASX_LIMITS);
  assert.deepEqual(content.environment, environment);
  assert.equal(content.specPath, "/aasx/docs/docs.aas.xml");
  assert.deepEqual(
    content.files.map((file) => [file.path, file.contentType, strFromU8(file.bytes).slice(0, 11)]),
    [
      ["/aasx/files/suppl.bin", "application/octet-stream", strFromU8(everyByte.subarray(0, 11))],
      ["/aasx/files/Manual File.pdf", "application/pdf", "%PDF manual"],
      ["/aasx/files/other.pdf", "application/pdf", "%PDF other"],
    ],
  );
});

test("a spec part without a telling extension is read by its content type, else by its first character", () => {
  const environment = exampleEnvironment();
  const withSpec = (spec: string, override: string) =>
    handMadePackage({
      "[Content_Types].xml": contentTypes(override),
      "_rels/.rels": rels([`${WWW}/aasx-origin`, "/aasx/aasx-origin"]),
      "aasx/aasx-origin": "",
      "aasx/_rels/aasx-origin.rels": rels([`${WWW}/aas-spec`, "/aasx/model.aas"]),
      "aasx/model.aas": spec,
    });
  const typed = readAasx(
    withSpec(JSON.stringify(environment), `\n  <Override PartName="/aasx/model.aas" ContentType="application/json"/>`),
    DEFAULT_AASX_LIMITS,
  );
  assert.equal(typed.format, "json");
  assert.deepEqual(typed.environment, environment);
  const sniffed = readAasx(withSpec(`\n ${JSON.stringify(environment)}`, ""), DEFAULT_AASX_LIMITS);
  assert.equal(sniffed.format, "json");
  const xml = readAasx(withSpec(writeAasXml(environment), ""), DEFAULT_AASX_LIMITS);
  assert.equal(xml.format, "xml");
  assert.deepEqual(xml.environment, environment);
});

test("a package without an aasx-origin relationship is refused clearly", () => {
  const bytes = handMadePackage({
    "[Content_Types].xml": contentTypes(),
    "_rels/.rels": rels(["http://example.org/something-else", "/aasx/aasx-origin"]),
    "aasx/aasx-origin": "",
    "aasx/aas.aas.xml": writeAasXml({}),
  });
  const error = catchAasError(() => readAasx(bytes, DEFAULT_AASX_LIMITS));
  assert.equal(error.kind, "syntax");
  assert.match(
    error.message,
    /^Invalid AASX package: no aasx-origin relationship in \/_rels\/\.rels .*not an AASX package/,
  );

  const plainZip = handMadePackage({ "model.json": "{}" });
  const plainError = catchAasError(() => readAasx(plainZip, DEFAULT_AASX_LIMITS));
  assert.deepEqual(plainError.details, [
    "no [Content_Types].xml: not an Open Packaging Conventions package",
    "no /_rels/.rels: not an Open Packaging Conventions package",
    `no aasx-origin relationship in /_rels/.rels (type http://admin-shell.io/aasx/relationships/aasx-origin): not an AASX package`,
  ]);
});

test("broken relationships are all listed: a missing spec part and a missing thumbnail", () => {
  const bytes = handMadePackage({
    "[Content_Types].xml": contentTypes(),
    "_rels/.rels": rels(
      [`${WWW}/aasx-origin`, "/aasx/aasx-origin"],
      ["http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail", "/gone.png"],
    ),
    "aasx/aasx-origin": "",
    "aasx/_rels/aasx-origin.rels": rels([`${WWW}/aas-spec`, "/aasx/nowhere.aas.xml"]),
  });
  const error = catchAasError(() => readAasx(bytes, DEFAULT_AASX_LIMITS));
  assert.equal(error.details.length, 2);
  assert.match(
    error.details[0],
    /aas-spec relationship R0 points to \/aasx\/nowhere\.aas\.xml, which is not in the package/,
  );
  assert.match(error.details[1], /thumbnail relationship R1 points to \/gone\.png/);
});

test("the spec part goes through the AAS readers: XXE, DOCTYPE in OPC parts, v2.0 JSON and unknown elements are refused", () => {
  const withSpec = (name: string, spec: string, types = contentTypes()) =>
    handMadePackage({
      "[Content_Types].xml": types,
      "_rels/.rels": rels([`${WWW}/aasx-origin`, "/aasx/aasx-origin"]),
      "aasx/aasx-origin": "",
      "aasx/_rels/aasx-origin.rels": rels([`${WWW}/aas-spec`, `/aasx/${name}`]),
      [`aasx/${name}`]: spec,
    });
  const xxe = `<?xml version="1.0"?><!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]><environment xmlns="${NS}">&x;</environment>`;
  const xxeError = catchAasError(() => readAasx(withSpec("a.aas.xml", xxe), DEFAULT_AASX_LIMITS));
  assert.match(xxeError.message, /^\/aasx\/a\.aas\.xml: .*DOCTYPE/);

  const typesWithDoctype =
    `<?xml version="1.0"?><!DOCTYPE Types [<!ENTITY x "y">]>` + contentTypes().replace(/^<\?xml[^>]*>/, "");
  const typesError = catchAasError(() =>
    readAasx(withSpec("a.aas.xml", writeAasXml({}), typesWithDoctype), DEFAULT_AASX_LIMITS),
  );
  assert.match(typesError.details[0], /\[Content_Types\]\.xml: .*DOCTYPE/);

  const v2 = JSON.stringify({
    assetAdministrationShells: [{ idShort: "x", identification: { id: "urn:x", idType: "IRI" } }],
  });
  const v2Error = catchAasError(() => readAasx(withSpec("a.aas.json", v2), DEFAULT_AASX_LIMITS));
  assert.match(v2Error.message, /AAS v2\.0 format.*convert it to AAS v3\.0/);

  const unknown = `<environment xmlns="${NS}"><submodels><submodel><id>x</id><colour/></submodel></submodels></environment>`;
  const unknownError = catchAasError(() => readAasx(withSpec("a.aas.xml", unknown), DEFAULT_AASX_LIMITS));
  assert.equal(unknownError.kind, "unknown-property");
  assert.equal(unknownError.path, "submodels[0].colour");

  const brokenJson = catchAasError(() => readAasx(withSpec("a.aas.json", "{"), DEFAULT_AASX_LIMITS));
  assert.match(brokenJson.message, /^\/aasx\/a\.aas\.json: Invalid JSON/);
});

test("writing refuses file paths that are not safe part names, listing each", () => {
  const file = (path: string) => ({ path, contentType: "application/octet-stream", bytes: everyByte });
  const error = catchAasError(() =>
    writeAasx({
      environment: {},
      files: [
        file("relative.bin"),
        file("/a/../b.bin"),
        file("/x/_rels/y.rels"),
        file("/aasx/aasx-origin"),
        file("/dup.bin"),
        file("/DUP.bin"),
      ],
    }),
  );
  assert.equal(error.kind, "value");
  assert.equal(error.details.length, 5);
  assert.match(error.details.join("\n"), /"relative\.bin" must start with "\/"/);
  assert.match(error.details.join("\n"), /"\/a\/\.\.\/b\.bin" has an empty, "\." or "\.\." segment/);
  assert.match(error.details.join("\n"), /_rels folder/);
  assert.match(error.details.join("\n"), /aasx-origin part/);
  assert.match(error.details.join("\n"), /"\/DUP\.bin" appears twice/);
});

test("an aas-suppl or thumbnail relationship to the model or the package's structure is refused, naming it", async () => {
  const withTargets = (suppl: string, thumbnail: string) =>
    handMadePackage({
      "[Content_Types].xml": contentTypes(),
      "_rels/.rels": rels([`${WWW}/aasx-origin`, "/aasx/aasx-origin"], [THUMBNAIL, thumbnail]),
      "aasx/aasx-origin": "",
      "aasx/_rels/aasx-origin.rels": rels([`${WWW}/aas-spec`, "/aasx/aas.json"]),
      "aasx/aas.json": JSON.stringify(exampleEnvironment()),
      "aasx/_rels/aas.json.rels": rels([`${WWW}/aas-suppl`, suppl]),
      "aasx/files/x.pdf": strToU8("%PDF"),
    });
  // The streamed spec part is held as an empty placeholder: named as a file it was stored as 0 bytes.
  const bytes = withTargets("aas.json", "/aasx/AAS.json");
  const expected = [
    "the aas-suppl relationship R0 points to aas.json, which is the model or the package's own structure, not a file",
    "the thumbnail relationship R1 points to /aasx/AAS.json, which is the model or the package's own structure, not a file",
  ];
  assert.deepEqual(catchAasError(() => readAasx(bytes, DEFAULT_AASX_LIMITS)).details, expected);
  await assert.rejects(openAasxOffThread(bytes, DEFAULT_AASX_LIMITS), (error: AasError) => {
    assert.deepEqual(error.details, expected);
    return true;
  });
  const machinery = withTargets("/[Content_Types].xml", "/_rels/.rels");
  assert.equal(catchAasError(() => readAasx(machinery, DEFAULT_AASX_LIMITS)).details.length, 2);
  const fine = await openAasxOffThread(withTargets("files/x.pdf", "/aasx/files/x.pdf"), DEFAULT_AASX_LIMITS);
  assert.deepEqual(
    fine.filesOf([]).files.map((file) => file.path),
    ["/aasx/files/x.pdf"],
  );
});

test("relationships or content types over 4 MiB are refused before they are inflated on the event loop", async () => {
  const many = Array.from(
    { length: 40_000 },
    (_, index) => [`urn:x:${"x".repeat(60)}`, `/p${index}`] as [string, string],
  );
  const bytes = handMadePackage({
    "[Content_Types].xml": contentTypes(),
    "_rels/.rels": rels([`${WWW}/aasx-origin`, "/aasx/aasx-origin"], ...many),
    "aasx/aasx-origin": "",
    "aasx/_rels/aasx-origin.rels": rels([`${WWW}/aas-spec`, "/aasx/aas.json"]),
    "aasx/aas.json": JSON.stringify(exampleEnvironment()),
  });
  assert.ok(bytes.length < 1024 * 1024, "a small upload");
  await assert.rejects(openAasxOffThread(bytes, DEFAULT_AASX_LIMITS), (error: AasError) => {
    assert.match(
      error.details.join("\n"),
      /"_rels\/\.rels" is \d+ bytes; a package's relationships and content types are at most 4194304 bytes each/,
    );
    return true;
  });
});
