import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Backends whose connection state a process reports (1 = connected, 0 = not). */
export type Backend = "nats" | "redis";

/** What an OPC UA endpoint reports at scrape time. */
export interface OpcuaLoad {
  sessions: number;
  subscriptions: number;
  /** Shells, submodels and concept descriptions whose nodes below their own are made now (ADR 0036). */
  materializedIdentifiables?: number;
  /** The elements their nodes hold, what maxMaterializedElements bounds (ADR 0036 "Bounded"). */
  materializedElements?: number;
}

/** What a read cache (docs/adr/0014) reports at scrape time. */
export interface ReadCacheLoad {
  /** Accounted bytes: answers and their bookkeeping, bounded by readCacheMaxBytes. */
  bytes: number;
  entries: number;
  /** Rows of its tag index (tags with at least one entry). */
  tags: number;
}

/**
 * The Prometheus metrics of one process, behind methods named in AAS/Twinport terms so callers
 * never touch prom-client (and a later switch to OpenTelemetry touches this file only).
 */
export interface ProcessMetrics {
  readonly registry: Registry;
  /** `route` is the route template (e.g. /submodels/:submodelIdentifier), never the raw path. */
  observeHttpRequest(method: string, route: string, status: number, seconds: number): void;
  /** One command served; `failureCode` is the reply's error code when it failed. */
  countCommand(type: string, failureCode?: string): void;
  /** Time from the commit (`event.time`) to delivery at a subscriber of this process. */
  observeEventLag(seconds: number): void;
  /**
   * One commit script call to Redis (the model-store, or embedded with Redis persistence): how long
   * it took from sending to the decoded answer, how many commits it carried (group commit, ADR 0019
   * and 0048), and whether Redis answered at all (`failed`: an error, a timeout, a lost connection).
   */
  observeCommitCall(commits: number, seconds: number, failed: boolean): void;
  setBackendUp(backend: Backend, up: boolean): void;
  /** Sampled at every scrape; several endpoints in one process add up. Returns a disposer. */
  addOpcuaSource(read: () => OpcuaLoad): () => void;
  /** Sampled at every scrape; several caches in one process add up. Returns a disposer. */
  addReadCacheSource(read: () => ReadCacheLoad): () => void;
  /** The text exposition format for GET /metrics. */
  render(): Promise<{ contentType: string; body: string }>;
}

// Latencies of a loopback gateway are milliseconds; outages push them to the request timeout (s).
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createProcessMetrics(role: string): ProcessMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ role });
  // Process CPU, memory, event-loop lag and GC: the first things an operator looks at.
  collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: "twinport_http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "twinport_http_request_duration_seconds",
    help: "HTTP request latency, by method, route template and status",
    labelNames: ["method", "route", "status"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const commands = new Counter({
    name: "twinport_commands_total",
    help: "Commands served by the engine, by command type",
    labelNames: ["type"],
    registers: [registry],
  });
  const commandFailures = new Counter({
    name: "twinport_command_failures_total",
    help: "Commands answered with an error, by command type and error code",
    labelNames: ["type", "code"],
    registers: [registry],
  });
  const eventLag = new Histogram({
    name: "twinport_event_lag_seconds",
    help: "Time from the commit of a change event to its delivery at a subscriber in this process",
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  // Made at the first call: only a process with a Redis store has them (a gateway would show empty
  // series of a store it does not have). A script call with `appendfsync always` is an fsync and a
  // few hundred µs of script, so the buckets start below a millisecond; a large commit (a model load)
  // may take up to its 120 s timeout.
  let commitMetrics:
    | { answered: Histogram.Internal<"outcome">; failed: Histogram.Internal<"outcome">; size: Histogram }
    | undefined;
  const makeCommitMetrics = () => {
    const calls = new Histogram({
      name: "twinport_store_commit_call_seconds",
      help: "Commit script calls to Redis, from sending to the answer, by outcome (answered or failed)",
      labelNames: ["outcome"],
      buckets: [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30, 120],
      registers: [registry],
    });
    // Its _sum over its _count is the mean group size: how many writes share one script call and fsync.
    const size = new Histogram({
      name: "twinport_store_commits_per_call",
      help: "Commits carried by one commit script call to Redis (group commit)",
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      registers: [registry],
    });
    return { answered: calls.labels({ outcome: "answered" }), failed: calls.labels({ outcome: "failed" }), size };
  };
  const backendUp = new Gauge({
    name: "twinport_backend_up",
    help: "1 while the connection to the backend is up",
    labelNames: ["backend"],
    registers: [registry],
  });

  const opcuaSources = new Set<() => OpcuaLoad>();
  const sum = (pick: (load: OpcuaLoad) => number) => [...opcuaSources].reduce((total, read) => total + pick(read()), 0);
  new Gauge({
    name: "twinport_opcua_sessions",
    help: "Open OPC UA sessions",
    registers: [registry],
    collect() {
      this.set(sum((load) => load.sessions));
    },
  });
  new Gauge({
    name: "twinport_opcua_subscriptions",
    help: "OPC UA subscriptions",
    registers: [registry],
    collect() {
      this.set(sum((load) => load.subscriptions));
    },
  });
  new Gauge({
    name: "twinport_opcua_materialized_identifiables",
    help: "Shells, submodels and concept descriptions whose OPC UA nodes are made (in use, ADR 0036)",
    registers: [registry],
    collect() {
      this.set(sum((load) => load.materializedIdentifiables ?? 0));
    },
  });
  new Gauge({
    name: "twinport_opcua_materialized_elements",
    help: "Submodel elements whose OPC UA nodes are made, bounded by maxMaterializedElements (ADR 0036)",
    registers: [registry],
    collect() {
      this.set(sum((load) => load.materializedElements ?? 0));
    },
  });

  const readCacheSources = new Set<() => ReadCacheLoad>();
  const readCacheGauge = (name: string, help: string, pick: (load: ReadCacheLoad) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set([...readCacheSources].reduce((total, read) => total + pick(read()), 0));
      },
    });
  readCacheGauge(
    "twinport_read_cache_bytes",
    "Bytes the HTTP read cache accounts for (answers and their bookkeeping), bounded by readCacheMaxBytes",
    (load) => load.bytes,
  );
  readCacheGauge("twinport_read_cache_entries", "Answers held by the HTTP read cache", (load) => load.entries);
  readCacheGauge("twinport_read_cache_tags", "Rows of the HTTP read cache's tag index", (load) => load.tags);

  // The label children of each series, made once: finding them by a labels object hashes it on
  // every request (profiled: a few percent of a GET $value). Routes are templates, so few series.
  // Found by route, then status, then method: each a string or number the caller holds already, so
  // no key is built (and hashed afresh) per request (docs/adr/0046).
  type HttpSeries = { requests: { inc(): void }; duration: { observe(value: number): void } };
  const httpSeries = new Map<string, Map<number, Map<string, HttpSeries>>>();
  const commandSeries = new Map<string, { inc(): void }>();

  return {
    registry,
    observeHttpRequest(method, route, status, seconds) {
      let byStatus = httpSeries.get(route);
      if (!byStatus) httpSeries.set(route, (byStatus = new Map()));
      let byMethod = byStatus.get(status);
      if (!byMethod) byStatus.set(status, (byMethod = new Map()));
      let series = byMethod.get(method);
      if (!series) {
        const labels = { method, route, status: String(status) };
        byMethod.set(
          method,
          (series = { requests: httpRequests.labels(labels), duration: httpDuration.labels(labels) }),
        );
      }
      series.requests.inc();
      series.duration.observe(seconds);
    },
    countCommand(type, failureCode) {
      let series = commandSeries.get(type);
      if (!series) commandSeries.set(type, (series = commands.labels({ type })));
      series.inc();
      if (failureCode !== undefined) commandFailures.inc({ type, code: failureCode });
    },
    observeEventLag(seconds) {
      // Clocks of different hosts disagree a little; a negative lag is noise, not time travel.
      eventLag.observe(Math.max(0, seconds));
    },
    observeCommitCall(commits, seconds, failed) {
      commitMetrics ??= makeCommitMetrics();
      (failed ? commitMetrics.failed : commitMetrics.answered).observe(seconds);
      commitMetrics.size.observe(commits);
    },
    setBackendUp(backend, up) {
      backendUp.set({ backend }, up ? 1 : 0);
    },
    addOpcuaSource(read) {
      opcuaSources.add(read);
      return () => void opcuaSources.delete(read);
    },
    addReadCacheSource(read) {
      readCacheSources.add(read);
      return () => void readCacheSources.delete(read);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
