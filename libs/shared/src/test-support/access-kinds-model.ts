/**
 * A submodel whose elements on the way to an idShortPath grant are of every kind (access-contract.ts
 * and the OPC UA access suite): a grant on `C.Ok` or `L[0]` where `C` and `L` are Properties
 * reaches nothing; an Entity and an annotated relationship are shown as containers only, without
 * their own values; a collection and a list as before. Every value the grant does not reach holds
 * "SECRET", so an answer can be searched for it.
 */

import type { Principal } from "../contracts/index.ts";
import type { AccessRuleInput } from "../engine/index.ts";

export const ACCESS_SM_KINDS = "urn:access:sm:kinds";

const property = (idShort: string | undefined, value: string) => ({
  modelType: "Property",
  ...(idShort === undefined ? {} : { idShort }),
  valueType: "xs:string",
  value,
});
const reference = (value: string) => ({ type: "ExternalReference", keys: [{ type: "GlobalReference", value }] });

export function accessKindsSubmodel(): Record<string, unknown> {
  return {
    modelType: "Submodel",
    id: ACCESS_SM_KINDS,
    idShort: "Kinds",
    submodelElements: [
      property("C", "C_SECRET"),
      property("L", "L_SECRET"),
      {
        modelType: "Entity",
        idShort: "E",
        entityType: "SelfManagedEntity",
        globalAssetId: "urn:E_SECRET-ASSET",
        statements: [property("Ok", "e-ok"), property("Secret", "E_SECRET")],
      },
      {
        modelType: "AnnotatedRelationshipElement",
        idShort: "R",
        first: reference("urn:R_SECRET-FIRST"),
        second: reference("urn:R_SECRET-SECOND"),
        annotations: [property("Ok", "r-ok"), property("Secret", "R_SECRET")],
      },
      {
        modelType: "SubmodelElementCollection",
        idShort: "K",
        value: [property("Ok", "k-ok"), property("Secret", "K_SECRET")],
      },
      {
        modelType: "SubmodelElementList",
        idShort: "M",
        typeValueListElement: "Property",
        valueTypeListElement: "xs:string",
        value: [property(undefined, "m-ok"), property(undefined, "M_SECRET")],
      },
      // A collection holds no `N[0]`: only a list does.
      { modelType: "SubmodelElementCollection", idShort: "N", value: [property("Z", "N_SECRET")] },
    ],
  };
}

/** READ for the user `kinds` on one path below each element of the kinds submodel. */
export const ACCESS_KINDS_RULES: AccessRuleInput[] = [
  {
    subjects: [{ user: "kinds" }],
    rights: ["READ"],
    objects: ["C.Ok", "L[0]", "E.Ok", "R.Ok", "K.Ok", "M[0]", "N[0]"].map((idShortPath) => ({
      submodels: ACCESS_SM_KINDS,
      idShortPath,
    })),
  },
];

export const ACCESS_KINDS_PRINCIPAL: Principal = { kind: "user", name: "kinds", roles: [] };

/** What the `kinds` user reads of the submodel as ValueOnly. */
export const ACCESS_KINDS_VALUE = {
  E: { statements: { Ok: "e-ok" }, entityType: "SelfManagedEntity" },
  R: { annotations: { Ok: "r-ok" } },
  K: { Ok: "k-ok" },
  M: ["m-ok"],
};
