import type { Outcome } from "./aid-interface.ts";
import { childOf, childrenOf, isTrue, type Json, semanticIdOf, textOf } from "./model-tree.ts";
import { SID } from "./semantic-ids.ts";

/** One AID datapoint (the `first` of a mapping relation), as its root property's form describes it. */
export interface AidDatapoint {
  /** idShort of the root property, for messages. */
  name: string;
  href: string;
  contentType?: string;
  /** JSONPath into the payload for a nested field; undefined: the whole payload is the value. */
  query?: string;
  observable: boolean;
  methodName?: string;
  headers: Record<string, string>;
  controlPacket?: string;
  qos?: number;
}

const is = (element: Json | undefined, ids: readonly string[]) => ids.includes(semanticIdOf(element) ?? "");

/** The payload field name of a property: its `key` child when present (names an idShort cannot spell). */
function fieldName(element: Json): string {
  return textOf(childOf(element, SID.key, "key"))?.trim() || String(element.idShort ?? "");
}

function jsonPath(names: string[]): string | undefined {
  if (names.length === 0) return undefined;
  return (
    "$" +
    names
      .map((name) =>
        /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `.${name}` : `['${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`,
      )
      .join("")
  );
}

/**
 * Reads the datapoint `path` ends at ([submodel, …, property]). A nested field (`…/<prop>/properties/<field>`,
 * semanticId js:propertyName) uses its root property's form and adds a JSONPath of the field names;
 * `observable` is read from the root too, so nested fields inherit it (FA³ST main).
 */
export function readDatapoint(path: readonly Json[]): Outcome<AidDatapoint> {
  const target = path.at(-1)!;
  if (target.modelType !== "SubmodelElementCollection")
    return { ok: false, problem: `names a ${String(target.modelType)}, not an AID property definition` };
  let index = path.length - 1;
  const names: string[] = [];
  while (index >= 2 && is(path[index], SID.nestedProperty)) {
    names.unshift(fieldName(path[index]!));
    index -= 2;
  }
  const root = path[index]!;
  const underInteraction = index >= 2 && is(path[index - 2], SID.interactionMetadata);
  if (!is(root, SID.propertyDefinition) && !underInteraction)
    return {
      ok: false,
      problem: `${String(root.idShort)} is not an AID property definition (semanticId ${semanticIdOf(root) ?? "missing"})`,
    };
  const name = String(root.idShort ?? "?");
  const forms = childOf(root, SID.forms, "forms");
  if (!forms) return { ok: false, problem: `property ${name} has no forms` };
  const href = textOf(childOf(forms, SID.href, "href"))?.trim();
  if (href === undefined) return { ok: false, problem: `property ${name}: forms has no href` };
  const headers: Record<string, string> = {};
  for (const header of childrenOf(childOf(forms, SID.headers, "htv_headers"))) {
    const field = textOf(childOf(header, SID.fieldName, "htv_fieldName"))?.trim();
    if (field) headers[field] = textOf(childOf(header, SID.fieldValue, "htv_fieldValue")) ?? "";
  }
  const contentType = textOf(childOf(forms, SID.contentType, "contentType"))?.trim() || undefined;
  const methodName =
    textOf(childOf(forms, SID.methodName, "htv_methodName"))
      ?.trim()
      .toUpperCase() || undefined;
  const controlPacket =
    textOf(childOf(forms, SID.controlPacket, "mqv_controlPacket"))
      ?.trim()
      .toLowerCase() || undefined;
  const qosText = textOf(childOf(forms, SID.qos, "mqv_qos"))?.trim();
  if (qosText !== undefined && qosText !== "" && !/^[012]$/.test(qosText))
    return { ok: false, problem: `property ${name}: mqv_qos "${qosText}" is not 0, 1 or 2` };
  const query = jsonPath(names);
  return {
    ok: true,
    value: {
      name,
      href,
      ...(contentType ? { contentType } : {}),
      ...(query ? { query } : {}),
      observable: isTrue(childOf(root, SID.observable, "observable")),
      ...(methodName ? { methodName } : {}),
      headers,
      ...(controlPacket ? { controlPacket } : {}),
      ...(qosText ? { qos: Number(qosText) } : {}),
    },
  };
}
