import * as aas from "./aas-core.cts";
import { canonicalLexical } from "./canonical-lexical.ts";
import type { ElementJson } from "./element-tree.ts";
import { isPlainObject } from "./plain-object.ts";
import { guardedCheck } from "./verification-guard.ts";
import { isValidLexical, valueJsonToLexical } from "./xsd-values.ts";

/**
 * A Property with a new ValueOnly value, without re-reading the whole element through the
 * metamodel (docs/adr/0026: that re-read was a quarter of an embedded PATCH $value's CPU).
 *
 * The stored element was valid, and a ValueOnly patch of a Property changes nothing but `value`.
 * What verification checks of a Property's value is exactly: consistent with its valueType, and
 * only characters XML can carry (AASd-130); what normalization does to it is its canonical
 * lexical form. So a value that passes both checks is stored in its canonical form and nothing
 * else is looked at. Everything else goes the full way (applyValueOnly + readAas): a value that
 * fails a check (for the very error message the full way gives), a null or "" value (removal),
 * a Property that had no value yet (the re-read puts the new member in its place among the
 * others), and every other kind of element. Undefined: not handled here.
 */
export function patchedPropertyValue(element: ElementJson, value: unknown, validate: boolean): ElementJson | undefined {
  if (element.modelType !== "Property" || typeof element.value !== "string") return undefined;
  if (value === null || value === undefined || Array.isArray(value) || isPlainObject(value)) return undefined;
  const lexical = valueJsonToLexical(value, element.valueType);
  if (lexical === undefined || lexical === "") return undefined;
  if (
    validate &&
    !(
      isValidLexical(lexical, element.valueType) &&
      guardedCheck("A Property value", () => aas.verification.matchesXmlSerializableString(lexical))
    )
  )
    return undefined;
  return { ...element, value: canonicalLexical(lexical, element.valueType) };
}
