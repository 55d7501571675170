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

/**
 * Commands addressed to one model-store replica (docs/adr/0027): `<prefix>.<replicaId>.<type>`.
 * Gateways send a command here when its submodel (or shell, or concept description) hashes to
 * that replica, so each replica commits the writes of its own submodels and batches them as one
 * replica would; the queue-group subject above stays the fallback.
 */
export const REPLICA_COMMAND_PREFIX = `${SUBJECT_PREFIX}.replica`;
/** Where model-store replicas announce themselves (`{ id, up, intervalMs }`), about once a second. */
export const REPLICAS_SUBJECT = `${SUBJECT_PREFIX}.replicas`;
/** A gateway that starts asks here; every replica answers at once on REPLICAS_SUBJECT. */
export const REPLICAS_QUERY_SUBJECT = `${SUBJECT_PREFIX}.replicas-query`;

/**
 * Command batches for one replica (docs/adr/0042): `<prefix>.<replicaId>`. Outside the `cmd.>` and
 * `replica.>` wildcards on purpose, so a model-store that does not know batches never receives one
 * (a gateway sends here only to a replica that announced `batches`; otherwise "no responders").
 */
export const BATCH_SUBJECT_PREFIX = `${SUBJECT_PREFIX}.batch`;

export function batchSubject(replicaId: string): string {
  return `${BATCH_SUBJECT_PREFIX}.${replicaId}`;
}

export function replicaCommandSubject(replicaId: string, type: CommandType): string {
  return `${REPLICA_COMMAND_PREFIX}.${replicaId}.${type}`;
}

export function commandSubject(type: CommandType): string {
  return `${COMMAND_SUBJECT_PREFIX}.${type}`;
}

export function eventSubject(kind: EventKind): string {
  return `${EVENT_SUBJECT_PREFIX}.${kind}`;
}
