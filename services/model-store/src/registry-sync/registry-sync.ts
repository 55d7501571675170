import {
  backoffDelay,
  type ChangeEvent,
  type CoreConfig,
  type EventBus,
  type EventSubscription,
  type HttpEndpointConfig,
  type StoreClient,
} from "@twinport/shared";
import type { ConnectionLease } from "../asset-connections/connection-lease.ts";
import { shellDescriptor, submodelDescriptor } from "./descriptors.ts";
import { type InterfaceBase, interfaceBase } from "./interface-bases.ts";
import { ModelIndex } from "./model-index.ts";
import { type DescriptorKind, RegistryClient } from "./registry-client.ts";
import { RegistryWorker } from "./registry-worker.ts";

export interface RegistrySyncOptions {
  core: Pick<CoreConfig, "aasRegistries" | "submodelRegistries" | "registrySynchronization">;
  /** The HTTP endpoints of the configuration (without @class): where descriptors point. */
  httpEndpoints: readonly Pick<HttpEndpointConfig, "hostname" | "host" | "port" | "sslEnabled" | "profiles">[];
  /** Snapshot reads (all shells and submodels) and reads of events whose payload was left out. */
  store: StoreClient;
  /** Change events of the store. */
  bus: EventBus;
  /** Who registers (distributed: one replica); default: this process, for good. */
  lease?: ConnectionLease;
  log: (line: string) => void;
  /** What an operator must see (a registry refusing or failing); default: `log`. */
  warn?: (line: string) => void;
}

export interface RunningRegistrySync {
  /** The API roots descriptors point at, for the ready line. */
  readonly advertised: string[];
  /** True while this process holds the lease and synchronizes. */
  active(): boolean;
  status(): { url: string; kind: DescriptorKind; pending: number; failures: number; registered: number }[];
  stop(): Promise<void>;
}

const PREFIX = "twinport registry-sync:";

/** The job itself, run by the lease holder: the model index, one worker per registry, the timers. */
class SyncJob {
  private readonly index: ModelIndex;
  private readonly shellWorkers: RegistryWorker[];
  private readonly submodelWorkers: RegistryWorker[];
  private subscription: EventSubscription | undefined;
  private queue: Promise<void> = Promise.resolve();
  private reconcileTimer: NodeJS.Timeout | undefined;
  private reloadRetry: NodeJS.Timeout | undefined;
  private reloadFailures = 0;
  private stopped = false;

  constructor(
    private readonly options: RegistrySyncOptions,
    private readonly bases: readonly InterfaceBase[],
  ) {
    const sync = options.core.registrySynchronization;
    const auth = "auth" in sync ? sync.auth : undefined;
    const authHeader = auth ? { [auth.header.name]: auth.header.value } : {};
    const timing = { retryMinDelayMs: sync.retryMinDelay, retryMaxDelayMs: sync.retryMaxDelay };
    const worker = (kind: DescriptorKind) => (registry: CoreConfig["aasRegistries"][number]) =>
      new RegistryWorker(
        new RegistryClient(
          { url: registry.url, apiRoot: registry.apiRoot, kind, headers: { ...authHeader, ...registry.headers } },
          sync.requestTimeout,
        ),
        timing,
        options.log,
        options.warn ?? options.log,
      );
    this.index = new ModelIndex(options.store);
    // An AAS descriptor without endpoints tells a registry client nothing it can reach: no HTTP
    // endpoint serving the AAS API, no registration (the submodels still go to submodel registries).
    this.shellWorkers = bases.some((b) => b.servesShells) ? options.core.aasRegistries.map(worker("aas")) : [];
    // A submodel descriptor without endpoints is invalid: no HTTP endpoint serving submodels, no registration.
    this.submodelWorkers = bases.some((b) => b.servesSubmodels)
      ? options.core.submodelRegistries.map(worker("submodel"))
      : [];
  }

  workers(): RegistryWorker[] {
    return [...this.shellWorkers, ...this.submodelWorkers];
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue
      .then(task)
      .catch((error: unknown) => this.options.log(`${PREFIX} ${(error as Error).message}`));
  }

  async start(): Promise<void> {
    // Subscribed before the snapshot is read: events of writes during the read queue up behind it.
    this.subscription = await this.options.bus.subscribe({
      onEvent: (event) => this.enqueue(() => this.applyEvent(event)),
      onReconnect: () => this.enqueue(() => this.reload(false)),
    });
    this.enqueue(() => this.reload(true));
    for (const worker of this.workers()) worker.start();
    const interval = this.options.core.registrySynchronization.reconcileInterval;
    if (interval > 0) {
      this.reconcileTimer = setInterval(() => this.enqueue(() => this.reconcile()), interval);
      this.reconcileTimer.unref();
    }
  }

  async stop(unregister: boolean, timeoutMs: number): Promise<void> {
    this.stopped = true;
    clearInterval(this.reconcileTimer);
    clearTimeout(this.reloadRetry);
    await this.subscription?.unsubscribe().catch(() => undefined);
    await Promise.all(this.workers().map((w) => w.stop()));
    if (!unregister) return;
    const deadline = Date.now() + timeoutMs;
    const results = await Promise.all(this.workers().map((w) => w.unregisterAll(deadline)));
    const deleted = results.reduce((n, r) => n + r.deleted, 0);
    const left = results.reduce((n, r) => n + r.left, 0);
    (left > 0 ? (this.options.warn ?? this.options.log) : this.options.log)(
      `${PREFIX} unregistered ${deleted} descriptor(s)${left > 0 ? `; ${left} could not be removed (registry unreachable, refusing, or slower than ${timeoutMs} ms)` : ""}`,
    );
  }

  private setShell(id: string, register = false): void {
    const shell = this.index.shells.get(id);
    const descriptor = shell ? shellDescriptor(shell, (sm) => this.index.submodels.get(sm), this.bases) : null;
    for (const worker of this.shellWorkers) worker.set(id, descriptor, register);
  }

  private setSubmodel(id: string, register = false): void {
    const submodel = this.index.submodels.get(id);
    const descriptor = submodel ? (submodelDescriptor(submodel, this.bases) ?? null) : null;
    for (const worker of this.submodelWorkers) worker.set(id, descriptor, register);
  }

  /** Shells nesting a submodel carry a copy of its descriptor: refresh them with it. */
  private refreshNesting(submodelId: string): void {
    for (const [id, shell] of this.index.shells) {
      if (shell.submodels?.some((ref) => ref.keys?.at(-1)?.value === submodelId)) this.setShell(id);
    }
  }

  private async applyEvent(event: ChangeEvent): Promise<void> {
    if (this.stopped) return;
    const changed = await this.index.apply(event);
    if (!changed) return;
    if (changed.entity === "shell") this.setShell(changed.id);
    else {
      this.setSubmodel(changed.id);
      this.refreshNesting(changed.id);
    }
  }

  /** The whole store → desired state; `register`: first requests are POSTs (start-up, takeover). */
  private async reload(register: boolean): Promise<void> {
    if (this.stopped) return;
    try {
      const { goneShells, goneSubmodels } = await this.index.load();
      this.reloadFailures = 0;
      for (const id of this.index.shells.keys()) this.setShell(id, register);
      for (const id of this.index.submodels.keys()) this.setSubmodel(id, register);
      for (const id of goneShells) this.setShell(id);
      for (const id of goneSubmodels) this.setSubmodel(id);
      if (register)
        this.options.log(
          `${PREFIX} registering ${this.index.shells.size} shell(s) with ${this.shellWorkers.length} AAS registr${this.shellWorkers.length === 1 ? "y" : "ies"} and ${this.index.submodels.size} submodel(s) with ${this.submodelWorkers.length} submodel registr${this.submodelWorkers.length === 1 ? "y" : "ies"}`,
        );
    } catch (error) {
      // The store is unreachable (Redis down): try again later; events keep the index current meanwhile.
      const sync = this.options.core.registrySynchronization;
      const delay = backoffDelay(
        { baseMs: sync.retryMinDelay, capMs: sync.retryMaxDelay, jitter: "none" },
        this.reloadFailures++,
      );
      this.options.log(`${PREFIX} reading the store failed (${(error as Error).message}); again in ${delay} ms`);
      this.reloadRetry = setTimeout(() => this.enqueue(() => this.reload(register)), delay);
    }
  }

  /** Periodic: the store again (a missed event), then every registry compared with what it should hold. */
  private async reconcile(): Promise<void> {
    await this.reload(false);
    // Not awaited: comparing takes one GET per descriptor and must not hold up events.
    for (const worker of this.workers()) void worker.compare();
  }
}

/**
 * Registry synchronization (docs/adr/0012): every shell and submodel registered with every
 * configured AAS and submodel registry, kept current from change events, unregistered on orderly
 * shutdown. Returns undefined when no registry is configured. Starting never waits for a registry
 * or for the lease: both happen in the background.
 */
export function startRegistrySync(options: RegistrySyncOptions): RunningRegistrySync | undefined {
  const { core } = options;
  if (core.aasRegistries.length === 0 && core.submodelRegistries.length === 0) return undefined;
  const bases = options.httpEndpoints.map(interfaceBase);
  if (bases.length === 0)
    options.log(`${PREFIX} no HTTP endpoint is configured: neither shells nor submodels are registered`);
  else {
    if (core.aasRegistries.length > 0 && !bases.some((b) => b.servesShells))
      options.log(
        `${PREFIX} no HTTP endpoint serves the AAS API (profiles AAS_FULL, AAS_READ, AAS_REPOSITORY_FULL or AAS_REPOSITORY_READ): shells are not registered`,
      );
    if (core.submodelRegistries.length > 0 && !bases.some((b) => b.servesSubmodels))
      options.log(`${PREFIX} no HTTP endpoint serves submodels: submodels are not registered`);
  }
  for (const endpoint of options.httpEndpoints) {
    if (endpoint.port === 0 && !/^https?:\/\//i.test(endpoint.hostname ?? ""))
      options.log(
        `${PREFIX} an HTTP endpoint has port 0: descriptors cannot name the port it gets; set hostname to the full external URL`,
      );
  }
  const lease: ConnectionLease = options.lease ?? {
    ttlMs: Number.POSITIVE_INFINITY,
    acquire: async () => true,
    release: async () => {},
  };
  let job: SyncJob | undefined;
  let stopping = false;
  let lastHeld = 0;
  let tick: Promise<void> = Promise.resolve();

  const check = async () => {
    if (stopping) return;
    let held: boolean;
    try {
      held = await lease.acquire();
      if (held) lastHeld = Date.now();
    } catch (error) {
      // Redis did not answer. Our lease still runs until lastHeld + ttl: ride out a blip (a restart
      // would re-register everything), but step back before another replica may take over.
      held = job !== undefined && Date.now() < lastHeld + (lease.ttlMs * 2) / 3;
      if (job && !held)
        options.log(
          `${PREFIX} the lease could not be renewed (${(error as Error).message}); stopping until it is held again`,
        );
    }
    if (stopping) return;
    if (held && !job) {
      const next = new SyncJob(options, bases);
      job = next;
      try {
        await next.start();
      } catch (error) {
        job = undefined;
        await next.stop(false, 0);
        throw error;
      }
    } else if (!held && job) {
      const lost = job;
      job = undefined;
      await lost.stop(false, 0);
    }
  };
  const schedule = () => {
    tick = tick.then(check).catch((error: unknown) => options.log(`${PREFIX} ${(error as Error).message}`));
  };
  schedule();
  const timer = Number.isFinite(lease.ttlMs) ? setInterval(schedule, Math.max(50, lease.ttlMs / 3)) : undefined;

  return {
    advertised: bases.map((b) => b.apiRoot),
    active: () => job !== undefined,
    status: () =>
      job?.workers().map((w) => ({ url: w.client.target.url, kind: w.client.target.kind, ...w.status() })) ?? [],
    async stop() {
      stopping = true;
      clearInterval(timer);
      await tick;
      const running = job;
      job = undefined;
      if (running) {
        const sync = core.registrySynchronization;
        await running.stop(sync.unregisterOnShutdown, sync.shutdownTimeout);
        await lease.release().catch(() => undefined);
      }
    },
  };
}
