import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { type Command, REPLICAS_QUERY_SUBJECT, REPLICAS_SUBJECT } from "../contracts/index.ts";
import { decodeJson, encodeJson } from "./wire.ts";

/**
 * Which model-store replica serves which submodel (docs/adr/0027).
 *
 * Replicas announce themselves on REPLICAS_SUBJECT; every StoreClient keeps the live ones and
 * sends a command that names a submodel (or a shell, or a concept description) to the replica that
 * wins the rendezvous hash of that id. So the writes of one submodel meet in one process, where
 * group commit and the per-turn script batch (ADR 0019) serve them as with a single replica, and
 * two replicas do not compete for the same records. Routing is only an affinity: any replica may
 * still execute any command (every commit compare-and-sets in Redis), so clients that disagree
 * for a moment about who is alive cost retries, never correctness.
 */

/** What a replica announces. `up: false` when it stops (so clients need not wait for expiry). */
export interface ReplicaPresence {
  id: string;
  up: boolean;
  /** How often it announces; a client forgets it after a few intervals of silence. */
  intervalMs: number;
  /**
   * True when the replica takes command batches on `batchSubject(id)` (docs/adr/0042). A replica that
   * does not say so (an older model-store) gets single commands only.
   */
  batches?: boolean;
}

/** Silent intervals after which a replica counts as gone (a killed process never says goodbye). */
const EXPIRY_INTERVALS = 3;

/** The id a command is routed by: its submodel's, else its shell's or concept description's. */
export function partitionKeyOf(command: Command): string | undefined {
  const params = command.params as { submodelId?: unknown; aasId?: unknown; cdId?: unknown };
  const key = params.submodelId ?? params.aasId ?? params.cdId;
  return typeof key === "string" ? key : undefined;
}

/** 32-bit FNV-1a over the UTF-16 code units: fast, and stable across processes. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Rendezvous (highest random weight) hashing: the replica with the highest hash of (replica, key).
 * When a replica joins or leaves, only the keys it wins or won move; the others stay put.
 */
export function pickReplica(replicas: readonly string[], key: string): string | undefined {
  const keyHash = fnv1a(key);
  let best: string | undefined;
  let bestScore = -1;
  for (const id of replicas) {
    // Mix the key's hash into the replica's: one pass over the key per command, not per replica.
    let score = fnv1a(id, keyHash);
    score = Math.imul(score ^ (score >>> 16), 0x45d9f3b);
    score = (score ^ (score >>> 16)) >>> 0;
    if (score > bestScore || (score === bestScore && best !== undefined && id < best)) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}

export interface ReplicaDirectory {
  /** The replica a command with this key goes to; undefined while none is known. */
  pick(key: string): string | undefined;
  /** True when the replica announced that it takes command batches. */
  batches(id: string): boolean;
  /** The server had no subscriber for it (it stopped or died): leave it out until it announces again. */
  forget(id: string): void;
  close(): void;
}

/** The client side: listens to announcements, asks once on start so it need not wait a beat. */
export function watchReplicas(connection: NatsConnection, onError: (error: unknown) => void): ReplicaDirectory {
  const lastSeen = new Map<string, { at: number; expiryMs: number; batches: boolean }>();
  let live: string[] = [];
  const refresh = () => {
    live = [...lastSeen.keys()].sort();
  };
  const subscription: Subscription = connection.subscribe(REPLICAS_SUBJECT, {
    callback: (error, msg) => {
      try {
        if (error) throw error;
        const presence = decodeJson(msg.data) as Partial<ReplicaPresence>;
        if (typeof presence?.id !== "string" || presence.id === "") return;
        if (presence.up === true) {
          const interval = Number(presence.intervalMs);
          const expiryMs = (Number.isFinite(interval) && interval > 0 ? interval : 1_000) * EXPIRY_INTERVALS;
          const known = lastSeen.has(presence.id);
          lastSeen.set(presence.id, { at: Date.now(), expiryMs, batches: presence.batches === true });
          if (!known) refresh();
        } else if (lastSeen.delete(presence.id)) refresh();
      } catch (failure) {
        onError(failure);
      }
    },
  });
  try {
    connection.publish(REPLICAS_QUERY_SUBJECT);
  } catch (error) {
    onError(error);
  }
  // Expiry is checked at most once per 250 ms, not per command.
  let checkedAt = 0;
  const expire = (now: number) => {
    if (now - checkedAt < 250) return;
    checkedAt = now;
    let changed = false;
    for (const [id, seen] of lastSeen)
      if (now - seen.at > seen.expiryMs) {
        lastSeen.delete(id);
        changed = true;
      }
    if (changed) refresh();
  };
  return {
    pick(key) {
      if (live.length === 0) return undefined;
      expire(Date.now());
      return live.length === 1 ? live[0] : pickReplica(live, key);
    },
    batches(id) {
      return lastSeen.get(id)?.batches === true;
    },
    forget(id) {
      if (lastSeen.delete(id)) refresh();
    },
    close() {
      if (!connection.isClosed()) subscription.unsubscribe();
    },
  };
}

/** The replica side: announce now, on every query, and every `intervalMs`; say goodbye on stop. */
export function announceReplica(
  connection: NatsConnection,
  id: string,
  intervalMs: number,
  onError: (error: unknown) => void,
  batches = false,
): { stop(): void } {
  const announce = (up: boolean) => {
    try {
      if (!connection.isClosed())
        connection.publish(
          REPLICAS_SUBJECT,
          encodeJson(batches ? { id, up, intervalMs, batches } : { id, up, intervalMs }),
        );
    } catch (error) {
      onError(error);
    }
  };
  const queries = connection.subscribe(REPLICAS_QUERY_SUBJECT, { callback: () => announce(true) });
  const timer = setInterval(() => announce(true), intervalMs);
  timer.unref();
  announce(true);
  return {
    stop() {
      clearInterval(timer);
      if (!connection.isClosed()) queries.unsubscribe();
      announce(false);
    },
  };
}
