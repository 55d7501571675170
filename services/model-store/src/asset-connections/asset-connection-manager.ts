import { createHash } from "node:crypto";
import {
  type AssetConnectionConfig,
  type ChangeEvent,
  type ElementJson,
  type EventBus,
  type EventSubscription,
  type MutableOperationProviderRegistry,
  providerTarget,
  type StoreClient,
} from "@twinport/shared";
import type { AssetConnectionDriver, Log } from "./asset-connection-types.ts";
import { bothReadWarning, valueProviderReads } from "./check-overlapping-providers.ts";
import { type ConnectionLeases, soleOwnerLeases } from "./connection-lease.ts";
import { type AssetConnectionStatus, ConnectionRunner } from "./connection-runner.ts";
import { ElementSync } from "./element-sync.ts";
import type { ForwardedPosition } from "./forwarded-position.ts";
import { canonical, type MergedConnection, mergeConnections, PROVIDER_KINDS } from "./merge-connections.ts";
import { CatchUpWrites, changes, elementIn, SUBMODEL_CHANGES } from "./model-changes.ts";
import { ASSET_ORIGIN, createModelPort } from "./model-port.ts";

/** The owner of the connections written in the configuration file's `assetConnections`. */
export const CONFIG_OWNER = "config";

export interface AssetConnectionManagerOptions {
  /** Where values go and Operation declarations come from: this process's engine. */
  store: StoreClient;
  /** The store's change events: model changes made through an endpoint are forwarded to assets. */
  bus: EventBus;
  /** Operation providers are registered here in every process; the engine finds them on invoke. */
  operationProviders: MutableOperationProviderRegistry;
  /** Who runs each connection's reading and writing; default: this process (embedded on memory). */
  leases?: ConnectionLeases;
  /** core.assetConnectionRetryInterval: first retry delay, doubled up to ten times it. */
  retryIntervalMs: number;
  /** The protocol side of a connection; undefined when this process cannot run it (logged by the factory). */
  createDriver(connection: MergedConnection, owner: string, log: Log): Promise<AssetConnectionDriver | undefined>;
  log: Log;
  /** Lines that mean client writes may not have reached an asset. Default: `log`. */
  warn?: Log;
}

export interface OwnedConnectionStatus extends AssetConnectionStatus {
  /** "config" for hand-configured connections, else the id of the AIMC submodel they were derived from. */
  owner: string;
}

export interface ApplyResult {
  started: string[];
  replaced: string[];
  stopped: string[];
  kept: string[];
  /** Sentences for the log: providers left out, entries merged. */
  problems: string[];
  /** Keys of the providers left out because another owner already feeds their element. */
  leftOut: string[];
  /**
   * Sentences for a warning: a provider kept beside another owner's that reads the asset into the
   * same element (a subscription provider beside a reading value provider, or the reverse).
   */
  warnings: string[];
}

interface Running {
  owner: string;
  name: string;
  /** The full settings, providers included: a change of any of them replaces the connection. */
  fingerprint: string;
  runner: ConnectionRunner;
  disposers: (() => void)[];
  /** `<kind>\0<element>` of each provider, to keep other owners off its elements. */
  providers: string[];
  /** `<kind>\0<element>` → key of each provider that reads the asset into its element. */
  readers: Map<string, string>;
}

function providerMap(config: AssetConnectionConfig, kind: (typeof PROVIDER_KINDS)[number]): Record<string, unknown> {
  const map = (config as Record<string, unknown>)[kind];
  return typeof map === "object" && map !== null ? (map as Record<string, unknown>) : {};
}

function elementOf(key: string): string {
  const target = providerTarget(key);
  return `${target.submodelId}\u0000${target.idShortPath}`;
}

/**
 * Every asset connection of a process, grouped by OWNER: the configuration file ("config") and each
 * AIMC submodel whose mapping derived some. `apply(owner, configs)` makes that owner's running set
 * equal to `configs` and touches no other owner's connections (FA³ST 1.3.0 stopped everything not
 * in the changed AIMC's set, hand-configured ones included). Within an owner, connections are
 * merged as at start-up and compared by their full settings: an unchanged one keeps running, a
 * changed one (another provider, interval, path, …) is stopped and started again, a vanished one
 * stops. Applies are serialised, so two quick changes of one AIMC end in the state of the last.
 */
export class AssetConnectionManager {
  private readonly running = new Map<string, Running>();
  private readonly sync: ElementSync;
  private readonly model;
  private readonly leases: ConnectionLeases;
  private subscription?: EventSubscription;
  /** Change events and catch-ups, one after another in commit order. */
  private events: Promise<void> = Promise.resolve();
  /** Highest seq the bus delivered, change events still in `events`, and the seq up to which all are handed on. */
  private received = 0;
  private queued = 0;
  private processedUpTo = 0;
  private applying: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private readonly releasedListeners: ((owner: string) => void)[] = [];

  constructor(private readonly options: AssetConnectionManagerOptions) {
    this.model = createModelPort(options.store);
    this.sync = new ElementSync(this.model, (line) => options.log(`twinport asset-connections: ${line}`));
    this.leases = options.leases ?? soleOwnerLeases;
  }

  /**
   * Makes `owner`'s connections those of `configs` (already validated). `nameOf` names a merged
   * connection in logs and status. Throws a ConfigError when the configs clash among themselves
   * (two providers of one kind for one element, an operation provider beside a value provider).
   */
  apply(
    owner: string,
    configs: readonly AssetConnectionConfig[],
    nameOf: (connection: MergedConnection) => string,
  ): Promise<ApplyResult> {
    const next = this.applying.then(() => this.applyNow(owner, configs, nameOf));
    this.applying = next.catch(() => undefined);
    return next;
  }

  status(): OwnedConnectionStatus[] {
    return [...this.running.values()].map(({ owner, runner }) => ({ ...runner.status(), owner }));
  }

  owners(): string[] {
    return [...new Set([...this.running.values()].map((r) => r.owner))];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.applying;
    await this.subscription?.unsubscribe().catch(() => undefined);
    this.subscription = undefined;
    await Promise.all([...this.running.keys()].map((key) => this.stopOne(key)));
  }

  private async applyNow(
    owner: string,
    configs: readonly AssetConnectionConfig[],
    nameOf: (connection: MergedConnection) => string,
  ): Promise<ApplyResult> {
    const result: ApplyResult = {
      started: [],
      replaced: [],
      stopped: [],
      kept: [],
      problems: [],
      leftOut: [],
      warnings: [],
    };
    if (this.stopped) return result;
    const usable = owner === CONFIG_OWNER ? configs : this.withoutClashes(owner, configs, result);
    const merged = mergeConnections(usable, (line) => result.problems.push(line));
    const wanted = new Map<string, MergedConnection>();
    for (const connection of merged) {
      // Derived connections get their own lease per owner: the same asset in the file and in an AIMC are two runners.
      const id =
        owner === CONFIG_OWNER
          ? connection.id
          : createHash("sha256").update(`${owner}\u0000${connection.id}`).digest("base64url").slice(0, 22);
      wanted.set(id, connection);
    }
    for (const [id, running] of [...this.running]) {
      if (running.owner !== owner || wanted.has(id)) continue;
      await this.stopOne(id);
      result.stopped.push(running.name);
    }
    for (const [id, connection] of wanted) {
      const fingerprint = JSON.stringify(canonical(connection.config));
      const current = this.running.get(id);
      if (current && current.fingerprint === fingerprint) {
        result.kept.push(current.name);
        continue;
      }
      if (current) await this.stopOne(id);
      const name = nameOf(connection);
      if (await this.startOne(owner, id, name, fingerprint, connection))
        (current ? result.replaced : result.started).push(name);
    }
    // Elements this owner fed may be free now: owners whose providers were left out for them try again.
    if (result.stopped.length > 0 || result.replaced.length > 0)
      for (const listener of this.releasedListeners) listener(owner);
    return result;
  }

  /**
   * Told after an apply that stopped or replaced connections of `owner`: providers of other owners
   * left out because it fed their elements may run now, and are only started by applying their
   * owner again (nothing else would: their own sources did not change).
   */
  onReleased(listener: (owner: string) => void): void {
    this.releasedListeners.push(listener);
  }

  /**
   * Providers another owner already has for the same element are left out, each with a sentence.
   * A connection left with no provider at all is dropped: it would take a lease and hold a session
   * to the asset (in every replica that wins it) with nothing to read or write. Its owner is applied
   * again once the other owner lets go (`onReleased`), and it starts then.
   */
  private withoutClashes(
    owner: string,
    configs: readonly AssetConnectionConfig[],
    result: ApplyResult,
  ): AssetConnectionConfig[] {
    const taken = new Map<string, string>();
    const reading = new Map<string, string>();
    for (const running of this.running.values()) {
      if (running.owner === owner) continue;
      for (const provider of running.providers) taken.set(provider, running.name);
      for (const [provider, key] of running.readers)
        reading.set(provider, `${running.name}.${provider.split("\u0000")[0]}[${JSON.stringify(key)}]`);
    }
    const usable: AssetConnectionConfig[] = [];
    for (const config of configs) {
      const copy = { ...config } as Record<string, unknown>;
      let providers = 0;
      for (const kind of PROVIDER_KINDS) {
        const kept: Record<string, unknown> = {};
        for (const [key, provider] of Object.entries(providerMap(config, kind))) {
          const element = elementOf(key);
          const clash = taken.get(`${kind}\u0000${element}`) ?? taken.get(`operationProviders\u0000${element}`);
          if (clash) {
            result.problems.push(
              `${key}: left out, ${clash} already has a ${kind.replace("Providers", " provider")} for it`,
            );
            result.leftOut.push(key);
            continue;
          }
          kept[key] = provider;
          providers++;
          this.warnBothRead(owner, config, kind, key, provider, reading, result);
        }
        copy[kind] = kept;
      }
      if (providers > 0) usable.push(copy as AssetConnectionConfig);
    }
    return usable;
  }

  /**
   * The start-up warning of check-overlapping-providers.ts across owners: a kept provider reads the
   * asset into an element another owner's provider of the other reading kind reads into too (a
   * configured polling value provider and an AIMC's subscription provider), so the element holds
   * whichever reading came last. Both run, as within the configuration file (FA³ST allows the pair).
   */
  private warnBothRead(
    owner: string,
    config: AssetConnectionConfig,
    kind: (typeof PROVIDER_KINDS)[number],
    key: string,
    provider: unknown,
    reading: ReadonlyMap<string, string>,
    result: ApplyResult,
  ): void {
    const element = elementOf(key);
    const here = `AIMC ${owner} ${kind}[${JSON.stringify(key)}]`;
    const target = providerTarget(key);
    const into = `${target.submodelId} ${target.idShortPath}`;
    if (kind === "subscriptionProviders") {
      const value = reading.get(`valueProviders\u0000${element}`);
      if (value) result.warnings.push(bothReadWarning(value, here, into));
    } else if (kind === "valueProviders" && valueProviderReads(config, provider)) {
      const subscription = reading.get(`subscriptionProviders\u0000${element}`);
      if (subscription) result.warnings.push(bothReadWarning(here, subscription, into));
    }
  }

  private async startOne(
    owner: string,
    id: string,
    name: string,
    fingerprint: string,
    connection: MergedConnection,
  ): Promise<boolean> {
    const log: Log = (line) => this.options.log(`twinport asset-connection ${name}: ${line}`);
    const warn: Log = (line) => (this.options.warn ?? this.options.log)(`twinport asset-connection ${name}: ${line}`);
    const driver = await this.options.createDriver(connection, owner, log);
    if (!driver) return false;
    const config = connection.config as Record<string, Record<string, unknown>>;
    const drive = driver as AssetConnectionDriver<never>;
    const values = Object.entries(config.valueProviders ?? {}).map(([key, provider]) =>
      drive.valueProvider(providerTarget(key), provider as never),
    );
    const subscriptions = Object.entries(config.subscriptionProviders ?? {}).map(([key, provider]) =>
      drive.subscriptionProvider(providerTarget(key), provider as never),
    );
    const operations = Object.entries(config.operationProviders ?? {});
    const disposers: (() => void)[] = [];
    for (const [key, provider] of operations) {
      const target = providerTarget(key);
      disposers.push(
        this.options.operationProviders.register(
          target.submodelId,
          target.idShortPath,
          drive.operationProvider(target, provider as never),
        ),
      );
    }
    const lease = this.leases.lease(id);
    const forwarded = lease.forwarded;
    const runner: ConnectionRunner = new ConnectionRunner({
      name,
      driver,
      values,
      subscriptions,
      operationCount: operations.length,
      sync: this.sync,
      lease,
      retryIntervalMs: this.options.retryIntervalMs,
      log,
      ...(forwarded ? { catchUp: (epoch: number) => this.catchUp(runner, forwarded, epoch, log, warn) } : {}),
      processedUpTo: () => this.processedUpTo,
    });
    const providers = PROVIDER_KINDS.flatMap((kind) =>
      Object.keys(config[kind] ?? {}).map((key) => `${kind}\u0000${elementOf(key)}`),
    );
    const readers = new Map<string, string>();
    for (const [key, provider] of Object.entries(config.valueProviders ?? {}))
      if (valueProviderReads(connection.config, provider)) readers.set(`valueProviders\u0000${elementOf(key)}`, key);
    for (const key of Object.keys(config.subscriptionProviders ?? {}))
      readers.set(`subscriptionProviders\u0000${elementOf(key)}`, key);
    this.running.set(id, { owner, name, fingerprint, runner, disposers, providers, readers });
    await this.subscribe();
    runner.start();
    return true;
  }

  private async stopOne(id: string): Promise<void> {
    const running = this.running.get(id);
    if (!running) return;
    this.running.delete(id);
    for (const dispose of running.disposers) dispose();
    await running.runner.stop();
  }

  /** One event subscription for all connections, made when the first one starts. */
  private async subscribe(): Promise<void> {
    if (this.subscription) return;
    this.subscription = await this.options.bus.subscribe({
      onEvent: (event) => {
        this.received = Math.max(this.received, event.seq);
        // An asset's own value coming back is not forwarded (forward() would drop it): at ingest
        // rates that is nearly every event, so it costs no promise here.
        if (event.origin === ASSET_ORIGIN) {
          if (this.queued === 0) this.processedUpTo = this.received;
          return;
        }
        // Events arrive in commit order; they are handled one after another, so writes keep that order.
        this.queued++;
        this.events = this.events
          .then(() => this.forward(event))
          .catch((error: unknown) =>
            this.options.log(`twinport asset-connections: forwarding a change failed: ${(error as Error).message}`),
          )
          .finally(() => {
            this.queued--;
            this.processedUpTo = this.queued === 0 ? this.received : Math.max(this.processedUpTo, event.seq);
          });
      },
    });
  }

  private async forward(event: ChangeEvent): Promise<void> {
    if (event.origin === ASSET_ORIGIN) return;
    const runners = [...this.running.values()].map((r) => r.runner).filter((runner) => runner.accepts(event.seq));
    for (const runner of runners) {
      for (const target of runner.targets()) {
        if (!changes(event, target)) continue;
        if (SUBMODEL_CHANGES.has(event.kind)) {
          void runner.modelChanged(target, await this.model.read(target), event.seq);
          continue;
        }
        const element = elementIn(event, target) ?? (await this.model.read(target));
        // Not awaited: a slow asset must not hold up the events behind it (each element keeps its own order).
        if (element) void runner.modelChanged(target, element, event.seq);
      }
    }
  }

  /**
   * A runner took its connection's lease (activation `epoch`): forwards what the event log holds
   * after the saved forwarded position, in the event chain, so no live event of those elements
   * overtakes it and the live ones it covered are not forwarded twice. The first holder ever (no
   * position saved) starts at the store's current seq: history is not written to the asset.
   */
  private catchUp(
    runner: ConnectionRunner,
    forwarded: ForwardedPosition,
    epoch: number,
    log: Log,
    warn: Log,
  ): Promise<void> {
    const step = this.events.then(() => this.catchUpNow(runner, forwarded, epoch, log, warn));
    this.events = step.catch(() => undefined);
    return step;
  }

  private async catchUpNow(
    runner: ConnectionRunner,
    forwarded: ForwardedPosition,
    epoch: number,
    log: Log,
    warn: Log,
  ): Promise<void> {
    const { store } = this.options;
    const current = await store.execute({ type: "GetSequence", params: {} });
    if (!current.ok) throw new Error(`reading the store's seq: ${current.error.message}`);
    const latest = current.value.seq;
    const saved = await forwarded.read();
    if (saved === undefined || saved > latest) {
      // No holder before (or a store whose seq went back): nothing committed here waits for the asset.
      await forwarded.save(latest, { restart: true });
      runner.caughtUp(epoch, latest);
      return;
    }
    const writes = new CatchUpWrites(runner.writtenTargets());
    let after = saved;
    for (;;) {
      const reply = await store.execute({ type: "GetEvents", params: { after, limit: 1000 } });
      if (!reply.ok) throw new Error(`reading the event log: ${reply.error.message}`);
      const { events, reset } = reply.value;
      const first = events[0];
      if (reset && (first === undefined || first.seq > after + 1)) {
        const missing = first ? first.seq - 1 : reset.latest;
        // A warning: client writes among them were acknowledged but may never reach the device, and
        // the first readings bring those elements back to the asset's value (ADR 0059).
        if (missing > after)
          warn(
            `changes seq ${after + 1}..${missing} are no longer in the event log (events.retentionMaxEvents, events.retentionMaxAgeMs); client writes among them were not forwarded to the asset and the elements show the asset's values: check the elements this connection writes and write again what the device is missing, and raise the retention if no process held the lease for that long`,
          );
      }
      if (events.length === 0) break;
      writes.add(events);
      after = events.at(-1)!.seq;
      // What is committed from here on comes as live events, forwarded after this step.
      if (after >= latest) break;
    }
    for (const { target, event } of writes.writes()) {
      // The element as it is now, not as the event carried it: one deleted since (with its
      // submodel, by /reset) has nothing left to write to the asset; otherwise the model still
      // holds that last client change (a later asset change would have made it skip the element).
      const element = await this.model.read(target);
      // Not awaited, as in forward(): the runner's element queues keep the order.
      if (element) void runner.modelChanged(target, element, event.seq);
    }
    if (writes.writes().length > 0)
      log(`forwarding ${writes.writes().length} change(s) committed while this process did not hold the lease`);
    runner.caughtUp(epoch, after);
  }
}
