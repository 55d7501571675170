import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AAS_REGISTRY_SPEC,
  describeErrors,
  loadRequestBodySchemas,
  SUBMODEL_REGISTRY_SPEC,
} from "../../../../tests/test-support/registry-server/openapi-schemas.ts";
import {
  canonicalJson,
  type ShellSource,
  type SubmodelSource,
  shellDescriptor,
  submodelDescriptor,
} from "./descriptors.ts";
import type { InterfaceBase } from "./interface-bases.ts";

const BASES: InterfaceBase[] = [
  { apiRoot: "https://twin.example.com:8443/api/v3.0", servesShells: true, servesSubmodels: true },
];
const schemas = loadRequestBodySchemas();
const ref = (type: string, value: string) => ({ type: "ExternalReference", keys: [{ type, value }] });

const SUBMODEL: SubmodelSource = {
  id: "https://example.com/ids/sm/nameplate-1",
  idShort: "Nameplate",
  administration: { version: "1", revision: "2" },
  description: [{ language: "en", text: "Nameplate" }],
  displayName: [],
  semanticId: ref("GlobalReference", "https://admin-shell.io/idta/nameplate/3/0/Nameplate"),
  supplementalSemanticIds: [ref("GlobalReference", "urn:extra")],
  extensions: [{ name: "origin", value: "test" }],
};
const SHELL: ShellSource = {
  id: "https://example.com/ids/aas/pump-1",
  idShort: "Pump1",
  displayName: [{ language: "de", text: "Pumpe" }],
  description: [],
  assetInformation: {
    assetKind: "Instance",
    assetType: "urn:type:pump",
    globalAssetId: "https://example.com/assets/pump-1",
    specificAssetIds: [{ name: "serial", value: "42" }],
  },
  submodels: [
    { keys: [{ type: "Submodel", value: SUBMODEL.id }] },
    { keys: [{ type: "Submodel", value: "urn:held-elsewhere" }] },
  ],
};

function assertValid(spec: string, path: string, body: unknown): void {
  const validate = schemas.forOperation(spec, path, "post")!;
  assert.ok(validate(body), describeErrors(validate.errors).join("\n"));
}

describe("descriptors", () => {
  test("AAS descriptor: asset information, AAS-3.0 endpoint with base64url id, nested descriptors of held submodels only", () => {
    const descriptor = shellDescriptor(SHELL, (id) => (id === SUBMODEL.id ? SUBMODEL : undefined), BASES);
    assert.deepEqual(descriptor, {
      displayName: [{ language: "de", text: "Pumpe" }],
      assetKind: "Instance",
      endpoints: [
        {
          interface: "AAS-3.0",
          protocolInformation: {
            href: "https://twin.example.com:8443/api/v3.0/shells/aHR0cHM6Ly9leGFtcGxlLmNvbS9pZHMvYWFzL3B1bXAtMQ",
            endpointProtocol: "HTTP",
            endpointProtocolVersion: ["1.1"],
          },
        },
      ],
      globalAssetId: "https://example.com/assets/pump-1",
      idShort: "Pump1",
      id: SHELL.id,
      specificAssetIds: [{ name: "serial", value: "42" }],
      assetType: "urn:type:pump",
      submodelDescriptors: [submodelDescriptor(SUBMODEL, BASES)],
    });
    assertValid(AAS_REGISTRY_SPEC, "/shell-descriptors", descriptor);
  });

  test("submodel descriptor: singular supplementalSemanticId, empty arrays left out, valid against the schema", () => {
    const descriptor = submodelDescriptor(SUBMODEL, BASES)!;
    assert.deepEqual(descriptor.supplementalSemanticId, SUBMODEL.supplementalSemanticIds);
    assert.equal("supplementalSemanticIds" in descriptor, false);
    assert.equal("displayName" in descriptor, false);
    assert.equal(
      (descriptor.endpoints as { protocolInformation: { href: string } }[])[0]!.protocolInformation.href,
      "https://twin.example.com:8443/api/v3.0/submodels/aHR0cHM6Ly9leGFtcGxlLmNvbS9pZHMvc20vbmFtZXBsYXRlLTE",
    );
    assertValid(SUBMODEL_REGISTRY_SPEC, "/submodel-descriptors", descriptor);
  });

  test("no endpoint serving submodels: no submodel descriptor (endpoints is required); none serving shells: no shell endpoints", () => {
    const shellsOnly: InterfaceBase[] = [{ ...BASES[0]!, servesSubmodels: false }];
    assert.equal(submodelDescriptor(SUBMODEL, shellsOnly), undefined);
    const submodelsOnly: InterfaceBase[] = [{ ...BASES[0]!, servesShells: false }];
    const descriptor = shellDescriptor({ id: "urn:a" }, () => undefined, submodelsOnly);
    assert.deepEqual(descriptor, { id: "urn:a" });
    assertValid(AAS_REGISTRY_SPEC, "/shell-descriptors", descriptor);
  });

  test("canonical JSON ignores key order", () => {
    assert.equal(canonicalJson({ b: [1, { d: 1, c: 2 }], a: "x" }), canonicalJson({ a: "x", b: [1, { c: 2, d: 1 }] }));
    assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
  });
});
