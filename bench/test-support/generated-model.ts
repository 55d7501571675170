/** A submodel of `count` xs:int Properties P0…P(count-1), for benchmarks of any size. */
export function generatedSubmodel(id: string, count: number): Record<string, unknown> {
  return {
    modelType: "Submodel",
    id,
    idShort: id.split(":").at(-1),
    submodelElements: Array.from({ length: count }, (_, i) => ({
      modelType: "Property",
      idShort: `P${i}`,
      valueType: "xs:int",
      value: String(i),
    })),
  };
}
