import { writeFileSync } from "node:fs";

/** The ids of shell `n` and of its one submodel in a many-shells model. */
export const manyShellsIds = (n: number) => ({
  shell: `urn:many-shells:shell:${n}`,
  submodel: `urn:many-shells:submodel:${n}`,
});

/**
 * Writes an environment of `shells` shells, each with one submodel of `properties` xs:int Properties
 * (issue 19's model (c) at any size).
 */
export function writeManyShellsModel(file: string, shells: number, properties: number): void {
  const parts: string[] = ['{"assetAdministrationShells":['];
  for (let n = 0; n < shells; n++) {
    const { shell, submodel } = manyShellsIds(n);
    parts.push(
      (n > 0 ? "," : "") +
        JSON.stringify({
          modelType: "AssetAdministrationShell",
          id: shell,
          idShort: `Shell${n}`,
          assetInformation: { assetKind: "Instance", globalAssetId: `urn:many-shells:asset:${n}` },
          submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: submodel }] }],
        }),
    );
  }
  parts.push('],"submodels":[');
  for (let n = 0; n < shells; n++) {
    const submodelElements = Array.from({ length: properties }, (_, i) => ({
      modelType: "Property",
      idShort: `P${i}`,
      valueType: "xs:int",
      value: String(n + i),
    }));
    parts.push(
      (n > 0 ? "," : "") +
        JSON.stringify({ modelType: "Submodel", id: manyShellsIds(n).submodel, idShort: `Data${n}`, submodelElements }),
    );
  }
  parts.push("]}");
  writeFileSync(file, parts.join(""));
}

/** The value of one sample of a Prometheus exposition (the first line of `name`), or undefined. */
export function metricSample(exposition: string, name: string): number | undefined {
  for (const line of exposition.split("\n"))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      return Number(line.slice(line.lastIndexOf(" ") + 1));
  return undefined;
}
