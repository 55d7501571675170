import {
  type AimcProcessorConfig,
  type ChangeEvent,
  ConfigError,
  type EventBus,
  type EventSubscription,
  isRawJson,
  type Paged,
  type StoreClient,
} from "@twinport/shared";
import type { ApplyResult } from "../asset-connections/asset-connection-manager.ts";
import type { Log } from "../asset-connections/asset-connection-types.ts";
import type { MergedConnection } from "../asset-connections/merge-connections.ts";
import { ASSET_ORIGIN } from "../asset-connections/model-port.ts";
import { type DerivedConnections, deriveAssetConnections, submodelRole } from "./derive-connections.ts";
import type { Json } from "./model-tree.ts";
import { AIMC_SUBMODEL } from "./semantic-ids.ts";

/** The part of the connection manager the processor drives: one owner per AIMC. */
export interface OwnedConnections {
  apply(
    owner: string,
    configs: DerivedConnections["connections"],
    nameOf: (connection: MergedConnection) => string,
  ): Promise<ApplyResult>;
  /** Told when an owner's connections stopped or were replaced, so elements it fed may be free. */
  onReleased(listener: (owner: string) => void): void;
}

export interface AimcProcessorOptions {
  config: AimcProcessorConfig;
  store: StoreClient;
  bus: EventBus;
  connections: OwnedConnections;
  /** A read of the store failed (an outage): the AIMC is processed again this much later. */
  retryIntervalMs: number;
  log: Log;
  /** Providers of an AIMC that read into an element another owner reads into too. Default: `log`. */
  warn?: Log;
}

/** What an AIMC produced: shown in the ready line's details and kept for logs. */
export interface AssetInterfacesStatus {
  aimc: string;
  connections: number;
  /** Skipped interfaces, relations and settings, one sentence each. */
  problems: string[];
}

export interface RunningAimcProcessor {
  status(): AssetInterfacesStatus[];
  /** Resolves when every change seen so far has been applied (tests, start-up). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

interface Known {
  dependsOn: string[];
  status: AssetInterfacesStatus;
  /** Some providers were left out because another owner fed their elements. */
  leftOut: boolean;
  /** The last warnings logged for it, so a pass that changes nothing says nothing. */
  warnings: string[];
}

const SUBMODEL_WRITES = new Set(["submodel.created", "submodel.updated"]);
const PAGE = 100;

function parsed(value: unknown): unknown {
  return isRawJson(value) ? JSON.parse(value.rawJson) : value;
}

/**
 * Runs FA³ST's AimcSubmodelTemplateProcessor: an AIMC submodel (IDTA 02027 1.0) and the AID
 * submodels (IDTA 02017) it references become asset connections owned by the AIMC, in every
 * process that runs asset connections (leases decide which one talks to the asset).
 *
 * It scans the store at start, then follows events: create, update or delete of an AIMC or of a
 * submodel an AIMC depends on, and any element change inside them (value changes included, which
 * FA³ST misses), re-derive that AIMC and apply the difference. Changes are handled one AIMC at a
 * time, and several changes of one AIMC that arrive while it is processed collapse into one pass.
 */
export async function startAimcProcessor(options: AimcProcessorOptions): Promise<RunningAimcProcessor> {
  const { store, connections, config } = options;
  const log: Log = (line) => options.log(`twinport asset-interfaces: ${line}`);
  const warn: Log = (line) => (options.warn ?? options.log)(`twinport asset-interfaces: ${line}`);
  const known = new Map<string, Known>();
  const pending = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const unsupportedReported = new Set<string>();
  let draining: Promise<void> | undefined;
  let stopped = false;

  const read = async (id: string): Promise<Json | undefined> => {
    const reply = await store.execute({ type: "GetSubmodelById", params: { submodelId: id }, origin: ASSET_ORIGIN });
    if (reply.ok) return parsed(reply.value) as Json;
    if (reply.error.code === "not-found") return undefined;
    throw new Error(`reading submodel ${id}: ${reply.error.message}`);
  };

  const forget = async (id: string, why: string) => {
    const previous = known.get(id);
    if (!previous) return;
    known.delete(id);
    const result = await connections.apply(id, [], () => "");
    log(`AIMC ${id} ${why}: ${result.stopped.length} connection(s) stopped`);
  };

  const process = async (id: string) => {
    const aimc = await read(id);
    const role = aimc ? submodelRole(aimc) : undefined;
    if (role === "aimc-unsupported" && !unsupportedReported.has(id)) {
      unsupportedReported.add(id);
      log(
        `submodel ${id} is an AIMC 2.0 (semanticId ${JSON.stringify((aimc!.semanticId as Json | undefined) ?? null)}): not processed, only AIMC 1.0 (${AIMC_SUBMODEL[0]}) is`,
      );
    }
    if (!aimc || role !== "aimc") return forget(id, aimc ? "is no AIMC 1.0 any more" : "was deleted");
    // The resolver is synchronous (the derivation is pure): read what it asked for, then derive again.
    const submodels = new Map<string, Json | undefined>([[id, aimc]]);
    let derived!: DerivedConnections;
    for (let round = 0; round < 4; round++) {
      const missing = new Set<string>();
      derived = deriveAssetConnections({
        aimc,
        processor: config,
        submodel: (wanted) => {
          if (!submodels.has(wanted)) missing.add(wanted);
          return submodels.get(wanted);
        },
      });
      if (missing.size === 0) break;
      for (const wanted of missing) submodels.set(wanted, await read(wanted));
    }
    let applied: ApplyResult | undefined;
    const problems = [...derived.problems];
    try {
      applied = await connections.apply(
        id,
        derived.connections,
        (connection) => `AIMC ${id} [${connection.merged.join(",")}]`,
      );
      problems.push(...applied.problems);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // All or nothing per AIMC, as FA³ST: a clash inside the AIMC's own set leaves its connections as they were.
      problems.push(...error.issues.map((issue) => `not applied: ${issue}`));
    }
    const previous = known.get(id);
    const running = applied
      ? applied.started.length + applied.replaced.length + applied.kept.length
      : (previous?.status.connections ?? 0);
    const status: AssetInterfacesStatus = { aimc: id, connections: running, problems };
    const warnings = applied ? applied.warnings : (previous?.warnings ?? []);
    known.set(id, {
      dependsOn: derived.dependsOn,
      status,
      leftOut: applied ? applied.leftOut.length > 0 : (previous?.leftOut ?? false),
      warnings,
    });
    if (applied && (applied.started.length || applied.replaced.length || applied.stopped.length || !previous)) {
      log(
        `AIMC ${id}: ${status.connections} connection(s) (started ${applied.started.length}, replaced ${applied.replaced.length}, stopped ${applied.stopped.length}, kept ${applied.kept.length})`,
      );
    }
    if (JSON.stringify(problems) !== JSON.stringify(previous?.status.problems ?? []))
      for (const problem of problems) log(`AIMC ${id}: skipped: ${problem}`);
    if (JSON.stringify(warnings) !== JSON.stringify(previous?.warnings ?? [])) for (const line of warnings) warn(line);
  };

  const retryLater = (id: string) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      schedule([id]);
    }, options.retryIntervalMs);
    timer.unref();
    timers.add(timer);
  };

  const drain = async () => {
    while (pending.size > 0 && !stopped) {
      const id = pending.values().next().value as string;
      pending.delete(id);
      try {
        await process(id);
      } catch (error) {
        log(`AIMC ${id}: not processed (${(error as Error).message}); trying again in ${options.retryIntervalMs} ms`);
        retryLater(id);
      }
    }
  };

  const kick = () => {
    if (draining || stopped) return;
    draining = drain().finally(() => {
      draining = undefined;
      if (pending.size > 0) kick();
    });
  };

  function schedule(ids: Iterable<string>) {
    for (const id of ids) pending.add(id);
    kick();
  }

  const affected = (event: ChangeEvent): string[] => {
    if (!event.kind.startsWith("submodel.") && !event.kind.startsWith("element.")) return [];
    // Values the asset connections write never describe interfaces; skipping them keeps polling cheap.
    if (event.origin === ASSET_ORIGIN) return [];
    const ids = [...known]
      .filter(([aimc, state]) => aimc === event.id || state.dependsOn.includes(event.id))
      .map(([aimc]) => aimc);
    if (SUBMODEL_WRITES.has(event.kind) && !known.has(event.id)) {
      const payload = event.payloadOmitted ? undefined : (parsed(event.payload) as Json | undefined);
      // Without the payload the submodel is read to tell; with it, only AIMCs are worth a pass.
      const role = payload ? submodelRole(payload) : "aimc";
      if (role === "aimc" || role === "aimc-unsupported") ids.push(event.id);
    }
    return ids;
  };

  const scan = async () => {
    const ids = new Set<string>(known.keys());
    for (const semanticId of [
      ...AIMC_SUBMODEL,
      "https://admin-shell.io/idta/AssetInterfacesMappingConfiguration/2/0/Submodel",
    ]) {
      let cursor: string | undefined;
      do {
        const reply = await store.execute({
          type: "GetAllSubmodels",
          params: { semanticId, page: { limit: PAGE, ...(cursor ? { cursor } : {}) } },
          origin: ASSET_ORIGIN,
        });
        if (!reply.ok) throw new Error(`listing AIMC submodels: ${reply.error.message}`);
        const page = parsed(reply.value) as Paged<unknown>;
        for (const item of page.items) {
          const id = (parsed(item) as Json).id;
          if (typeof id === "string") ids.add(id);
        }
        cursor = page.cursor;
      } while (cursor);
    }
    schedule(ids);
  };

  const rescan = () =>
    scan().catch((error: unknown) => {
      log(
        `scanning the store for AIMC submodels failed (${(error as Error).message}); trying again in ${options.retryIntervalMs} ms`,
      );
      const timer = setTimeout(() => {
        timers.delete(timer);
        void rescan();
      }, options.retryIntervalMs);
      timer.unref();
      timers.add(timer);
    });

  // Events carry gap-free sequence numbers and the relay's heartbeat the latest one: a jump in
  // either means events were missed, and everything is read again (as after a reconnect).
  let lastSeq: number | undefined;
  /** `seq` is the next event's number (an event) or the last one relayed (a heartbeat, `ahead` 0). */
  const missed = (seq: number, ahead: 0 | 1) => {
    const gap = lastSeq !== undefined && seq > lastSeq + ahead;
    if (lastSeq === undefined || seq > lastSeq) lastSeq = seq;
    return gap;
  };
  // Subscribe before scanning, so nothing committed in between is missed.
  // An AIMC whose providers were left out for elements another owner fed gets them once that owner
  // lets go (its AIMC deleted or changed, the configured connections dropped by /reset).
  connections.onReleased((owner) =>
    schedule([...known].filter(([id, state]) => id !== owner && state.leftOut).map(([id]) => id)),
  );
  const subscription: EventSubscription = await options.bus.subscribe({
    onEvent: (event) => {
      if (missed(event.seq, 1)) void rescan();
      schedule(affected(event));
    },
    onHeartbeat: (heartbeat) => {
      if (missed(heartbeat.seq, 0)) void rescan();
    },
    // Events may have been missed: read everything again.
    onReconnect: () => void rescan(),
  });
  await rescan();
  const idle = async () => {
    while (draining) await draining;
  };
  await idle();

  return {
    status: () => [...known.values()].map((state) => state.status),
    idle,
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await subscription.unsubscribe().catch(() => undefined);
      await draining;
    },
  };
}
