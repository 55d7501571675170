import * as aas from "./aas-core.cts";

/**
 * The metamodel's KeyTypes names in their metamodel order, taken from aas-core so no second copy of
 * the enumeration exists. The OPC UA namespace's key-type enum uses the same order (value = index).
 */
export const KEY_TYPE_NAMES: readonly string[] = Object.freeze(
  [...aas.types.overKeyTypes()].map((keyType) => aas.stringification.mustKeyTypesToString(keyType)),
);
