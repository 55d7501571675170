import assert from "node:assert/strict";
import { test } from "node:test";
import { contentTypeByName, OCTET_STREAM, uploadContentType } from "./content-types.ts";

test("CAD and industrial files common in AASX get their registered types from the file name", () => {
  const expected: Record<string, string> = {
    "housing.step": "model/step",
    "housing.STP": "model/step",
    "flange.iges": "model/iges",
    "flange.igs": "model/iges",
    "bracket.stl": "model/stl",
    "layout.dxf": "image/vnd.dxf",
    "layout.dwg": "image/vnd.dwg",
    "assembly.jt": "model/jt",
    "print.3mf": "model/3mf",
    "twin.glb": "model/gltf-binary",
    "twin.gltf": "model/gltf+json",
    "plant.aml": "application/automationml-aml+xml",
    "device.xml": "application/xml",
    "manual.pdf": "application/pdf",
    "bundle.zip": "application/zip",
    "photo.jpg": "image/jpeg",
    "aasx/files/data.csv": "text/csv",
    // Not in mime-db: from our small extra table.
    "nested.aasx": "application/asset-administration-shell-package",
  };
  for (const [name, type] of Object.entries(expected)) assert.equal(contentTypeByName(name), type, name);
});

test("no extension, or one nobody registered, gives no type", () => {
  for (const name of ["README", "pdf", "dir.v2/file", "part.sldprt", "archive."])
    assert.equal(contentTypeByName(name), undefined, name);
});

test("an upload keeps what the client declared unless that is octet-stream or not a content type", () => {
  assert.equal(uploadContentType("text/plain", "housing.stp"), "text/plain");
  assert.equal(uploadContentType(OCTET_STREAM, "housing.stp"), "model/step");
  assert.equal(uploadContentType(undefined, "part.sldprt"), OCTET_STREAM);
});
