import * as aas from "./aas-core.cts";
import { isBase64BinaryLexical, isHexBinaryLexical } from "./binary-lexical.ts";

/**
 * aas-core's verification checks a Property's (Range's, Qualifier's, Extension's) value against its
 * valueType with regular expressions that overflow the stack on values of ~10 MB (binary-lexical.ts).
 * For xs:base64Binary and xs:hexBinary, the only types whose values are that long in practice, the
 * values are checked here in one pass and set aside ("" is valid for both) while aas-core verifies
 * the rest; `restore` puts them back. Only used after a verification overflowed: a model without such
 * values pays nothing.
 */
const LONG = 64 * 1024;
const FIELDS = ["value", "min", "max"] as const;

export interface SetAside {
  /** One message per value that is no valid lexical form of its type. */
  invalid: string[];
  restore(): void;
}

export function setAsideLongBinaryValues(instance: aas.types.Class): SetAside {
  const invalid: string[] = [];
  const taken: { holder: Record<string, unknown>; field: string; text: string }[] = [];
  const visit = (node: aas.types.Class) => {
    const holder = node as unknown as Record<string, unknown>;
    const valueType = holder.valueType;
    const check =
      valueType === aas.types.DataTypeDefXsd.Base64Binary
        ? isBase64BinaryLexical
        : valueType === aas.types.DataTypeDefXsd.HexBinary
          ? isHexBinaryLexical
          : undefined;
    if (check === undefined) return;
    for (const field of FIELDS) {
      const text = holder[field];
      if (typeof text !== "string" || text.length <= LONG) continue;
      if (!check(text)) {
        const name = typeof holder.idShort === "string" ? holder.idShort : aas.types.ModelType[node.modelType()];
        invalid.push(
          `${name}: ${field} is no valid xs:${valueType === aas.types.DataTypeDefXsd.Base64Binary ? "base64Binary" : "hexBinary"}`,
        );
      }
      taken.push({ holder, field, text });
      holder[field] = "";
    }
  };
  visit(instance);
  for (const node of instance.descend()) visit(node);
  return {
    invalid,
    restore() {
      for (const { holder, field, text } of taken) holder[field] = text;
    },
  };
}
