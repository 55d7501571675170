import { type ChangeEvent, parseIdShortPath, toValueOnly } from "@twinport/shared";

/**
 * Our change events in FA³ST Service's MQTT message bus scheme (docs/adr/0030, docs/events-mqtt.md):
 * topic `topicPrefix + <event message class>` (FA³ST's MessageBusMqtt publishes on
 * `config.getTopicPrefix() + messageType.getSimpleName()`), payload the JSON FA³ST's
 * JsonEventSerializer writes: `@type` is the class name without "Message", `element` the AAS
 * ModelReference of what changed, then the class's own properties.
 */

export type FaaastEventClass =
  | "ElementCreateEventMessage"
  | "ElementUpdateEventMessage"
  | "ElementDeleteEventMessage"
  | "ValueChangeEventMessage"
  | "OperationInvokeEventMessage"
  | "OperationFinishEventMessage";

export interface FaaastMessage {
  eventClass: FaaastEventClass;
  /** The JSON body. */
  body: Record<string, unknown>;
}

interface Key {
  type: string;
  value: string;
}

const CLASS_BY_CHANGE: Record<string, FaaastEventClass> = {
  created: "ElementCreateEventMessage",
  updated: "ElementUpdateEventMessage",
  deleted: "ElementDeleteEventMessage",
  "value-changed": "ValueChangeEventMessage",
  invoked: "OperationInvokeEventMessage",
  finished: "OperationFinishEventMessage",
};

const IDENTIFIABLE_KEY: Record<string, string> = {
  shell: "AssetAdministrationShell",
  submodel: "Submodel",
  "concept-description": "ConceptDescription",
};

function modelTypeOf(value: unknown): string | undefined {
  const modelType = (value as { modelType?: unknown } | undefined)?.modelType;
  return typeof modelType === "string" ? modelType : undefined;
}

/**
 * The element's keys below its submodel. An idShortPath does not say what the elements on the way
 * are: one followed by an index is a SubmodelElementList, the others are written as the abstract
 * key type SubmodelElement (valid AAS KeyTypes); the last one takes the event's element modelType.
 */
function elementKeys(idShortPath: string, modelType: string | undefined): Key[] {
  const segments = parseIdShortPath(idShortPath);
  return segments.map((segment, i) => {
    const next = segments[i + 1];
    const type =
      i === segments.length - 1
        ? (modelType ?? "SubmodelElement")
        : next && "index" in next
          ? "SubmodelElementList"
          : "SubmodelElement";
    return { type, value: "idShort" in segment ? segment.idShort : String(segment.index) };
  });
}

/** The AAS ModelReference of what an event concerns. */
export function referenceOf(event: ChangeEvent): { type: "ModelReference"; keys: Key[] } {
  const [entity] = event.kind.split(".");
  if (entity === "element" || entity === "operation") {
    const keys = [{ type: "Submodel", value: event.id }];
    if (event.idShortPath) {
      const modelType = entity === "operation" ? "Operation" : modelTypeOf(event.payload);
      keys.push(...elementKeys(event.idShortPath, modelType));
    }
    return { type: "ModelReference", keys };
  }
  return { type: "ModelReference", keys: [{ type: IDENTIFIABLE_KEY[entity!] ?? "Identifiable", value: event.id }] };
}

const NUMERIC = new Set([
  "xs:decimal",
  "xs:integer",
  "xs:int",
  "xs:long",
  "xs:short",
  "xs:byte",
  "xs:nonNegativeInteger",
  "xs:positiveInteger",
  "xs:nonPositiveInteger",
  "xs:negativeInteger",
  "xs:unsignedInt",
  "xs:unsignedLong",
  "xs:unsignedShort",
  "xs:unsignedByte",
  "xs:double",
  "xs:float",
]);

/** FA³ST writes a typed value as its Java value: numbers and booleans as JSON numbers and booleans. */
function typedValue(valueType: unknown, lexical: unknown): unknown {
  if (typeof lexical !== "string") return lexical ?? null;
  if (valueType === "xs:boolean") return lexical === "true" || lexical === "1";
  if (typeof valueType === "string" && NUMERIC.has(valueType)) {
    const number = Number(lexical);
    if (!Number.isFinite(number)) return lexical;
    // xs:double and xs:float are doubles; any other number type stays its exact lexical form where a
    // JSON number would lose digits (an integer beyond 2^53, a decimal with more digits than a
    // double holds: 0.1000000000000000000002 became 0.1).
    if (valueType === "xs:double" || valueType === "xs:float") return number;
    if (/^[+-]?\d+$/.test(lexical) ? Number.isSafeInteger(number) : String(number) === lexical) return number;
  }
  return lexical;
}

/**
 * An element's value in FA³ST's event form (its event ElementValueSerializer): the modelType, then
 * the value's own fields; a Property's value with its dataType. Other kinds carry their ValueOnly
 * form in `value`.
 */
export function faaastElementValue(element: unknown): Record<string, unknown> | undefined {
  if (typeof element !== "object" || element === null) return undefined;
  const e = element as Record<string, unknown>;
  const modelType = modelTypeOf(e) ?? "SubmodelElement";
  switch (modelType) {
    case "Property":
      return { modelType, dataType: e.valueType, value: typedValue(e.valueType, e.value) };
    case "Range":
      return {
        modelType,
        min: { dataType: e.valueType, value: typedValue(e.valueType, e.min) },
        max: { dataType: e.valueType, value: typedValue(e.valueType, e.max) },
      };
    case "File":
    case "Blob":
      return { modelType, contentType: e.contentType ?? null, value: e.value ?? null };
    case "MultiLanguageProperty":
      return { modelType, value: e.value ?? [] };
    default: {
      let value: unknown;
      try {
        value = toValueOnly(e as never);
      } catch {
        value = undefined;
      }
      return { modelType, value: value ?? null };
    }
  }
}

/** The FA³ST event message for one of our change events. */
export function faaastMessageOf(event: ChangeEvent): FaaastMessage {
  const change = event.kind.slice(event.kind.indexOf(".") + 1);
  const eventClass = CLASS_BY_CHANGE[change] ?? "ElementUpdateEventMessage";
  const body: Record<string, unknown> = {
    "@type": eventClass.slice(0, -"Message".length),
    element: referenceOf(event),
  };
  const payload = event.payloadOmitted ? undefined : event.payload;
  switch (eventClass) {
    case "ValueChangeEventMessage":
      // Our events carry the new state only: oldValue stays null (docs/events-mqtt.md).
      body.oldValue = null;
      body.newValue = faaastElementValue(payload) ?? null;
      break;
    // Arguments left out of our event (larger than its payload limit) are null, as any other left-out
    // value: `[]` would say the call had none.
    case "OperationInvokeEventMessage": {
      const p = payload as Record<string, unknown> | undefined;
      body.input = p === undefined ? null : (p.inputArguments ?? []);
      body.inoutput = p === undefined ? null : (p.inoutputArguments ?? []);
      break;
    }
    case "OperationFinishEventMessage": {
      const result = (payload as { result?: Record<string, unknown> } | undefined)?.result;
      body.output = payload === undefined ? null : (result?.outputArguments ?? []);
      body.inoutput = payload === undefined ? null : (result?.inoutputArguments ?? []);
      break;
    }
    default:
      // The element as it is now (deleted: as it was, where the event has it). A large one is
      // left out of our events (payloadOmitted): then value is null and a consumer reads it over HTTP.
      body.value = payload ?? null;
  }
  return { eventClass, body };
}
