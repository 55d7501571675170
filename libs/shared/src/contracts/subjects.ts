import type { CommandType } from "./commands.ts";
import type { EventKind } from "./events.ts";

/** NATS subjects and names, versioned so a later wire format can run beside this one. */
export const SUBJECT_PREFIX = "twinport.v1";
export const COMMAND_SUBJECT_PREFIX = `${SUBJECT_PREFIX}.cmd`;
export const EVENT_SUBJECT_PREFIX = `${SUBJECT_PREFIX}.evt`;
export const HEARTBEAT_SUBJECT = `${EVENT_SUBJECT_PREFIX}.heartbeat`;
export const ALL_EVENTS_SUBJECT = `${EVENT_SUBJECT_PREFIX}.>`;
/** Queue group of the model-store replicas: each command reaches exactly one of them. */
export const MODEL_STORE_QUEUE = "model-store";

export function commandSubject(type: CommandType): string {
  return `${COMMAND_SUBJECT_PREFIX}.${type}`;
}

export function eventSubject(kind: EventKind): string {
  return `${EVENT_SUBJECT_PREFIX}.${kind}`;
}
