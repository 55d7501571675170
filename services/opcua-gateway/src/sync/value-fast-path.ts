import { type DataValue, NodeClass, sameVariant, type UAVariable } from "node-opcua";
import type { NodeBuilder } from "../address-space/node-builder.ts";
import { elementNodeId, subNodeId } from "../address-space/node-ids.ts";
import type { Json } from "../address-space/spec-context.ts";
import { lexicalToNodeValue, opcuaDataTypeOf } from "../values/datatype-mapping.ts";

/** The value variables of the element kinds the fast path serves, and the JSON field each shows. */
const VALUE_FIELDS: Record<string, ReadonlyArray<readonly [variable: string, field: string]>> = {
  Property: [["Value", "value"]],
  Range: [
    ["Min", "min"],
    ["Max", "max"],
  ],
};

/**
 * An `element.value-changed` event of a Property or Range, applied by setting its value variables
 * only. Such an event never changes an element's structure (PATCH …/$value and asset values write
 * values only), so rebuilding the element's whole NodeSpec and patching every metadata node, as
 * other events do, only costs time: it was most of the gateway's ~80 µs per value on asset
 * ingest (issue 12).
 *
 * Returns false when the nodes do not look as the event expects (missing, another data type):
 * the caller then takes the full path, which rebuilds what is needed.
 */
export function applyValueFast(builder: NodeBuilder, submodelId: string, path: string, element: Json): boolean {
  const fields = typeof element.modelType === "string" ? VALUE_FIELDS[element.modelType] : undefined;
  if (fields === undefined) return false;
  const elementLocal = elementNodeId(submodelId, path);
  const dataType = opcuaDataTypeOf(element.valueType);
  const variables: UAVariable[] = [];
  for (const [name] of fields) {
    const node = builder.find(subNodeId(elementLocal, name));
    if (node === null || node.nodeClass !== NodeClass.Variable) return false;
    const variable = node as UAVariable;
    // Built-in data types are NodeIds of namespace 0 whose value is the DataType number.
    if (variable.dataType.namespace !== 0 || variable.dataType.value !== dataType) return false;
    variables.push(variable);
  }
  for (const [i, [, field]] of fields.entries()) {
    const lexical = element[field];
    const next = lexicalToNodeValue(typeof lexical === "string" ? lexical : undefined, element.valueType);
    const variable = variables[i]!;
    // The stored DataValue itself (node-builder.ts patch() does the same): readValue() clones it.
    const current = (variable as unknown as { $dataValue: DataValue }).$dataValue;
    if (!sameVariant(current.value, next.variant) || current.statusCode !== next.statusCode)
      variable.setValueFromSource(next.variant, next.statusCode);
  }
  return true;
}
