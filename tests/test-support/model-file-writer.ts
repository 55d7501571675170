import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Generated models written to a file as they are generated, a buffer at a time, so a
 * million-element model never exists as one string or as objects in the writing process.
 */
class BufferedFile {
  private readonly fd: number;
  private pending: string[] = [];
  private size = 0;
  constructor(file: string) {
    this.fd = openSync(file, "w");
  }
  write(text: string): void {
    this.pending.push(text);
    this.size += text.length;
    if (this.size > 1024 * 1024) this.flush();
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
  private flush(): void {
    writeSync(this.fd, this.pending.join(""));
    this.pending = [];
    this.size = 0;
  }
}

/** A submodel of `count` xs:int Properties P0…P(count-1) (as bench/test-support/generated-model.ts). */
export function generatedSubmodel(
  id: string,
  count: number,
  idShort = `Sm${id.split(":").at(-1)}`,
): Record<string, unknown> {
  return {
    modelType: "Submodel",
    id,
    idShort,
    submodelElements: Array.from({ length: count }, (_, i) => ({
      modelType: "Property",
      idShort: `P${i}`,
      valueType: "xs:int",
      value: String(i),
    })),
  };
}

/** Issue 19's model (a)/(b): `submodels` submodels of `properties` Properties each, no shells. */
export function writeSubmodelsModelFile(file: string, submodels: number, properties: number): void {
  const out = new BufferedFile(file);
  out.write('{"submodels":[');
  for (let i = 0; i < submodels; i++)
    out.write(`${i ? "," : ""}${JSON.stringify(generatedSubmodel(`urn:bench:big:${i}`, properties))}`);
  out.write("]}");
  out.close();
}

/** Issue 19's model (c): `shells` shells, each with one submodel of `properties` Properties. */
export function writeManyShellsModelFile(file: string, shells: number, properties: number): void {
  const out = new BufferedFile(file);
  out.write('{"assetAdministrationShells":[');
  for (let n = 0; n < shells; n++)
    out.write(
      (n > 0 ? "," : "") +
        JSON.stringify({
          modelType: "AssetAdministrationShell",
          id: `urn:many-shells:shell:${n}`,
          idShort: `Shell${n}`,
          assetInformation: { assetKind: "Instance", globalAssetId: `urn:many-shells:asset:${n}` },
          submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: `urn:many-shells:submodel:${n}` }] }],
        }),
    );
  out.write('],"submodels":[');
  for (let n = 0; n < shells; n++)
    out.write(
      `${n > 0 ? "," : ""}${JSON.stringify(generatedSubmodel(`urn:many-shells:submodel:${n}`, properties, `Data${n}`))}`,
    );
  out.write("]}");
  out.close();
}
