/**
 * A small model and rule set that exercise every right on every object kind (access-contract.ts,
 * and the black-box suites over OPC UA and HTTP).
 */

import type { Principal } from "../contracts/index.ts";
import type { AccessRuleInput } from "../engine/index.ts";

const semantic = (value: string) => ({ type: "ExternalReference", keys: [{ type: "GlobalReference", value }] });
const property = (idShort: string, value: string) => ({ modelType: "Property", idShort, valueType: "xs:int", value });

export const ACCESS_SHELL_A = "urn:access:shell:a";
export const ACCESS_SHELL_B = "urn:access:shell:b";
/** semanticId ACCESS_NAMEPLATE; elements P, C (X, XY, Y), L (two items), Op. */
export const ACCESS_SM_1 = "urn:access:sm:1";
export const ACCESS_SM_2 = "urn:access:sm:2";
export const ACCESS_NAMEPLATE = "urn:access:sem:nameplate";
export const ACCESS_CD_1 = "urn:access:cd:1";
export const ACCESS_CD_2 = "urn:access:cd:2";
/** 50 submodels urn:access:many:000 … 049; anonymous may read the 5 ending in 7. */
export const ACCESS_MANY = Array.from({ length: 50 }, (_, i) => `urn:access:many:${String(i).padStart(3, "0")}`);

export function accessModel(): Record<string, unknown> {
  return {
    assetAdministrationShells: [
      {
        modelType: "AssetAdministrationShell",
        id: ACCESS_SHELL_A,
        idShort: "ShellA",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:access:asset:a" },
        submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: ACCESS_SM_1 }] }],
      },
      {
        modelType: "AssetAdministrationShell",
        id: ACCESS_SHELL_B,
        idShort: "ShellB",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:access:asset:b" },
      },
    ],
    submodels: [
      {
        modelType: "Submodel",
        id: ACCESS_SM_1,
        idShort: "Nameplate",
        semanticId: semantic(ACCESS_NAMEPLATE),
        submodelElements: [
          property("P", "1"),
          {
            modelType: "SubmodelElementCollection",
            idShort: "C",
            value: [property("X", "10"), property("XY", "11"), property("Y", "12")],
          },
          {
            modelType: "SubmodelElementList",
            idShort: "L",
            typeValueListElement: "Property",
            valueTypeListElement: "xs:int",
            value: [
              { modelType: "Property", valueType: "xs:int", value: "20" },
              { modelType: "Property", valueType: "xs:int", value: "21" },
            ],
          },
          { modelType: "Operation", idShort: "Op" },
        ],
      },
      {
        modelType: "Submodel",
        id: ACCESS_SM_2,
        idShort: "Other",
        semanticId: semantic("urn:access:sem:other"),
        submodelElements: [property("Q", "2")],
      },
      ...ACCESS_MANY.map((id, i) => ({
        modelType: "Submodel",
        id,
        idShort: `Many${i}`,
        submodelElements: [property("V", String(i))],
      })),
    ],
    conceptDescriptions: [
      { modelType: "ConceptDescription", id: ACCESS_CD_1, idShort: "Cd1" },
      { modelType: "ConceptDescription", id: ACCESS_CD_2, idShort: "Cd2" },
    ],
  };
}

export const ACCESS_RULES: AccessRuleInput[] = [
  {
    subjects: [{ role: "admin" }],
    rights: ["READ", "CREATE", "UPDATE", "DELETE", "EXECUTE"],
    objects: [{ all: true }],
  },
  {
    subjects: [{ user: "reader" }],
    rights: ["READ"],
    objects: [{ shells: ACCESS_SHELL_A }, { submodels: ACCESS_SM_1 }, { conceptDescriptions: ACCESS_CD_1 }],
  },
  {
    subjects: [{ user: "partial" }],
    rights: ["READ", "UPDATE"],
    objects: [{ submodels: ACCESS_SM_1, idShortPath: "C.X" }],
  },
  {
    subjects: [{ user: "writer" }],
    rights: ["CREATE", "UPDATE", "DELETE"],
    objects: [
      { semanticId: ACCESS_NAMEPLATE },
      { shells: "urn:access:shell:*" },
      { conceptDescriptions: "urn:access:cd:*" },
    ],
  },
  { subjects: [{ user: "operator" }], rights: ["EXECUTE"], objects: [{ submodels: ACCESS_SM_1, idShortPath: "Op" }] },
  { subjects: [{ anonymous: true }], rights: ["READ"], objects: [{ submodels: "urn:access:many:*7" }] },
  { subjects: [{ authenticated: true }], rights: ["READ"], objects: [{ conceptDescriptions: ACCESS_CD_2 }] },
  {
    subjects: [{ certificateSubject: "CN=device,O=Twinport" }],
    rights: ["READ", "UPDATE"],
    objects: [{ submodels: ACCESS_SM_1, idShortPath: "P" }],
  },
  {
    subjects: [{ role: "maintenance" }],
    rights: ["READ", "CREATE", "UPDATE", "DELETE"],
    objects: [{ proprietary: "reset" }, { proprietary: "import" }, { proprietary: "packages" }],
  },
];

const user = (name: string, roles: string[] = []): Principal => ({ kind: "user", name, roles });
export const ACCESS_PRINCIPALS = {
  admin: user("root", ["admin"]),
  reader: user("reader"),
  partial: user("partial"),
  writer: user("writer"),
  operator: user("operator"),
  stranger: user("stranger"),
  maintenance: user("maint", ["maintenance"]),
  device: { kind: "certificate", name: "CN=device,O=Twinport", roles: [] } as Principal,
  anonymous: { kind: "anonymous", roles: [] } as Principal,
};
