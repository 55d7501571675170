import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Issue 19's generated models: `shells` shells, each with one submodel of `properties` xs:int
 * Properties. (a) 1,000 × 100, (b) 10,000 × 100 and (c) 100,000 × 10 are all this shape; the issue's
 * figures for (b) were taken at 10k shells. Every submodel has a semanticId shared by one submodel
 * in SEMANTIC_GROUPS, so `/submodels?semanticId=…` has a few matches spread over the whole model.
 */
export const SEMANTIC_GROUPS = 1000;

export const bigModelIds = (n: number) => ({
  shell: `urn:big:shell:${n}`,
  shellIdShort: `Shell${n}`,
  submodel: `urn:big:submodel:${n}`,
  semanticId: `urn:big:semantic:${n % SEMANTIC_GROUPS}`,
});

/** How many of the submodels 0…shells-1 carry the semanticId of submodel `n`. */
export function semanticMatches(shells: number, n: number): number {
  const group = n % SEMANTIC_GROUPS;
  return group < shells ? Math.floor((shells - 1 - group) / SEMANTIC_GROUPS) + 1 : 0;
}

/**
 * Writes the environment to `file` as it goes, in chunks of about 1 MB: a million elements are
 * ~100 MB of JSON, which the bench itself should not hold as one string beside the servers it measures.
 */
export function writeBigModel(file: string, shells: number, properties: number): number {
  const fd = openSync(file, "w");
  let pending: string[] = [];
  let pendingLength = 0;
  let written = 0;
  const put = (text: string) => {
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength >= 1 << 20) flush();
  };
  const flush = () => {
    written += writeSync(fd, pending.join(""));
    pending = [];
    pendingLength = 0;
  };
  try {
    put('{"assetAdministrationShells":[');
    for (let n = 0; n < shells; n++) {
      const ids = bigModelIds(n);
      put(
        (n > 0 ? "," : "") +
          JSON.stringify({
            modelType: "AssetAdministrationShell",
            id: ids.shell,
            idShort: ids.shellIdShort,
            assetInformation: { assetKind: "Instance", globalAssetId: `urn:big:asset:${n}` },
            submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: ids.submodel }] }],
          }),
      );
    }
    put('],"submodels":[');
    for (let n = 0; n < shells; n++) {
      const ids = bigModelIds(n);
      const submodelElements = Array.from({ length: properties }, (_, i) => ({
        modelType: "Property",
        idShort: `P${i}`,
        valueType: "xs:int",
        value: String(n + i),
      }));
      put(
        (n > 0 ? "," : "") +
          JSON.stringify({
            modelType: "Submodel",
            id: ids.submodel,
            idShort: `Data${n}`,
            semanticId: { type: "ExternalReference", keys: [{ type: "GlobalReference", value: ids.semanticId }] },
            submodelElements,
          }),
      );
    }
    put("]}");
    flush();
  } finally {
    closeSync(fd);
  }
  return written;
}
