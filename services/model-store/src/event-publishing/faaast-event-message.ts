import { type ChangeEvent, parseIdShortPath } from "@twinport/shared";
import { faaastElementValue } from "./faaast-element-value.ts";

/**
 * Our change events in FA³ST Service's MQTT message bus scheme (docs/adr/0030, docs/events-mqtt.md):
 * topic `topicPrefix + <event message class>` (FA³ST's MessageBusMqtt publishes on
 * `config.getTopicPrefix() + messageType.getSimpleName()`), payload the JSON FA³ST's
 * JsonEventSerializer writes: `@type` is the class name without "Message", `element` the AAS
 * ModelReference of what changed, then the class's own properties. Element values (newValue) and
 * operation arguments are FA³ST's typed values (faaast-element-value.ts).
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

/**
 * Operation arguments as FA³ST writes them: an object keyed by each OperationVariable value's
 * idShort, its typed value. Arguments left out of our event (larger than its payload limit) are
 * null, as any other left-out value: `{}` would say the call had none.
 */
function faaastArguments(variables: unknown, omitted: boolean): Record<string, unknown> | null {
  if (omitted) return null;
  const out: Record<string, unknown> = {};
  for (const variable of Array.isArray(variables) ? variables : []) {
    const element = (variable as { value?: Record<string, unknown> } | null)?.value;
    if (element && typeof element.idShort === "string") out[element.idShort] = faaastElementValue(element);
  }
  return out;
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
    case "OperationInvokeEventMessage": {
      const p = payload as Record<string, unknown> | undefined;
      body.input = faaastArguments(p?.inputArguments, p === undefined);
      body.inoutput = faaastArguments(p?.inoutputArguments, p === undefined);
      break;
    }
    case "OperationFinishEventMessage": {
      const result = (payload as { result?: Record<string, unknown> } | undefined)?.result;
      body.output = faaastArguments(result?.outputArguments, payload === undefined);
      body.inoutput = faaastArguments(result?.inoutputArguments, payload === undefined);
      break;
    }
    default:
      // The element as it is now (deleted: as it was, where the event has it). A large one is
      // left out of our events (payloadOmitted): then value is null and a consumer reads it over HTTP.
      body.value = payload ?? null;
  }
  return { eventClass, body };
}
