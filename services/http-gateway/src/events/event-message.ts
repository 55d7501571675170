import { type ChangeEvent, type ElementJson, stringifyLossless, toValueOnly } from "@twinport/shared";
import { conceptDescriptionLocation, elementLocation, shellLocation, submodelLocation } from "../http/locations.ts";
import { entityOf } from "./event-filter.ts";

/** Under which name a created/updated event carries its AAS JSON (docs/events.md). */
const PAYLOAD_NAME = {
  shell: "shell",
  submodel: "submodel",
  element: "element",
  "concept-description": "conceptDescription",
  operation: "operation",
} as const;

/**
 * One change event as a Server-Sent Events message (docs/events.md):
 * `id: <seq>`, `event: <entity>.<change>`, `data: {…}` on one line. What it carries besides the
 * identifiers: a value change its ValueOnly value (unwrapped); a creation or update the new AAS JSON
 * under the entity's name; a deletion nothing. `href` instead, where the bus left a large payload
 * out or the reader may see only part of it (`withPayload` false: a partial read grant).
 */
export function eventMessage(event: ChangeEvent, withPayload: boolean): string {
  const data: Record<string, unknown> = {
    seq: event.seq,
    kind: event.kind,
    id: event.id,
    ...(event.idShortPath !== undefined ? { idShortPath: event.idShortPath } : {}),
    revision: event.revision,
    time: event.time,
    ...(event.origin !== undefined ? { origin: event.origin } : {}),
    ...(event.correlationId !== undefined ? { correlationId: event.correlationId } : {}),
  };
  const entity = entityOf(event);
  const change = event.kind.slice(entity.length + 1);
  if (change !== "deleted") {
    const payload = withPayload && !event.payloadOmitted ? event.payload : undefined;
    if (change === "value-changed") {
      const value = payload === undefined ? undefined : toValueOnly(payload as ElementJson);
      if (value !== undefined) data.value = value;
      else data.href = hrefOf(event, "/$value");
    } else if (payload !== undefined) data[PAYLOAD_NAME[entity]] = payload;
    else if (entity !== "operation") data.href = hrefOf(event, "");
  }
  return `id: ${event.seq}\nevent: ${event.kind}\ndata: ${stringifyLossless(data)}\n\n`;
}

/** Where the current state of what the event is about can be read. */
function hrefOf(event: ChangeEvent, suffix: string): string {
  switch (entityOf(event)) {
    case "shell":
      return shellLocation(event.id);
    case "concept-description":
      return conceptDescriptionLocation(event.id);
    case "submodel":
      return `${submodelLocation({ submodelId: event.id })}${suffix}`;
    default:
      return event.idShortPath === undefined
        ? `${submodelLocation({ submodelId: event.id })}${suffix}`
        : `${elementLocation({ submodelId: event.id }, event.idShortPath)}${suffix}`;
  }
}

/** A control message: `reset`, `overflow`, `shutdown`, `unavailable`, `failed` (no id unless given: not changes). */
export function controlMessage(name: string, data: Record<string, unknown>, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ""}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const HEARTBEAT = ": heartbeat\n\n";

/** The last message of every stream when the server stops (SIGTERM). */
export const SHUTDOWN = controlMessage("shutdown", { reason: "the server is stopping; reconnect with Last-Event-ID" });
