/**
 * Change events: published after a commit, exactly one per committed write, in `seq` order.
 * Subjects: twinport.v1.evt.<entity>.<change>.
 */
export type EventEntity = "shell" | "submodel" | "element" | "concept-description" | "operation";
export type EventChange = "created" | "updated" | "deleted" | "value-changed" | "invoked" | "finished";
export type EventKind = `${EventEntity}.${EventChange}`;

export interface ChangeEvent {
  /** The store's global, gap-free sequence number of the commit. */
  seq: number;
  kind: EventKind;
  /** Identifier of the identifiable (shell, submodel, concept description) concerned. */
  id: string;
  /** idShortPath of the element concerned, for element events. */
  idShortPath?: string;
  /** Revision of the identifiable after the write (equals `seq`). */
  revision: number;
  /**
   * The new state in AAS JSON (element events: the element; identifiable events: the identifiable,
   * submodels with their elements). Left out when it would exceed MAX_EVENT_PAYLOAD_BYTES: then
   * `payloadOmitted` is true and a subscriber that needs it queries the store.
   */
  payload?: unknown;
  payloadOmitted?: boolean;
  /**
   * Submodel events: the submodel's semanticId after the change (a deletion: the deleted submodel's),
   * null when it has none. With it a subscriber knows which semanticId the event happened under,
   * also where the payload is left out, without reading the store (docs/adr/0029). Absent on a
   * write that left the metadata as it was (`metadataKept`) and on events stored before it existed.
   */
  submodelSemanticId?: unknown;
  /** A `submodel.updated` that wrote element values only (PATCH …/$value): the metadata is as it was. */
  metadataKept?: true;
  /** Which endpoint caused the change ("http", "opcua", "asset", "load", ...). */
  origin?: string;
  correlationId?: string;
  /** ISO 8601 UTC time of the commit. */
  time: string;
}

/** An event before the store assigned its sequence number. */
export type ChangeEventDraft = Omit<ChangeEvent, "seq" | "revision">;

/** NATS max_payload is 1 MB by default; events stay well below it. */
export const MAX_EVENT_PAYLOAD_BYTES = 256 * 1024;

/**
 * Published every second by one model-store replica (the outbox keeper): every event up to `seq`
 * has been committed, so a subscriber that silently missed the tail notices and fills the gap.
 */
export interface Heartbeat {
  seq: number;
  time: string;
  /**
   * The store incarnation the seq counts in (docs/adr/0018, amendment "Redis that comes back
   * empty"): a new one means Redis lost the store's data and its sequence began again, so a
   * subscriber's position and whatever it holds belong to data that is gone. Absent from an older
   * model-store (and in memory, where the store cannot lose its data without the process).
   */
  incarnation?: string;
}
