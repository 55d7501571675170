/**
 * docker-compose.yml as data: parsing (with YAML merge keys, as Compose reads them), a normalized
 * view of each service that the Kubernetes comparison uses, and the structural rules the file must
 * keep (Redis AOF, JetStream on a volume, health checks, start order, no host ports on scalable
 * services).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";

/** The services that run the twinport image, and the infrastructure they need. */
export const TWINPORT_SERVICES = ["model-store", "http-gateway", "opcua-gateway"] as const;
export const INFRASTRUCTURE_SERVICES = ["redis", "nats"] as const;

export type ComposeFile = {
  services: Record<string, Record<string, unknown>>;
  volumes?: Record<string, unknown>;
} & Record<string, unknown>;

export function parseCompose(text: string): ComposeFile {
  const doc = parse(text, { merge: true }) as ComposeFile;
  if (!doc || typeof doc !== "object" || typeof doc.services !== "object")
    throw new Error("docker-compose.yml: no services");
  return doc;
}

export function readCompose(file: string): ComposeFile {
  return parseCompose(readFileSync(file, "utf8"));
}

export interface PublishedPort {
  host: number;
  container: number;
}

/** What the comparison with Kubernetes looks at, in the same shape for both. */
export interface ServiceView {
  image: string;
  /** Compose `entrypoint` / Kubernetes `command`; undefined = the image's own. */
  entrypoint?: string[];
  /** Compose `command` / Kubernetes `args`. */
  command?: string[];
  env: Record<string, string | undefined>;
  /** Ports the container listens on. */
  containerPorts: number[];
  /** Ports offered to clients (host ports / Service ports), by container port. */
  published: PublishedPort[];
  /** Path and port of the liveness check, when it is an HTTP check. */
  health?: { path: string; port: number };
}

function stringList(value: unknown, what: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string")
    throw new Error(
      `${what}: write it as a list, not a string (a string is split by a shell-like parser that the Kubernetes side does not share)`,
    );
  if (!Array.isArray(value)) throw new Error(`${what}: expected a list`);
  return value.map(String);
}

/**
 * Compose's interpolation as `docker compose up` applies it with none of the variables set:
 * `${NAME:-default}` and `${NAME-default}` give the default, `${NAME}` nothing, `$$` a `$`.
 */
export function interpolateUnset(text: string): string {
  return text.replace(/\$\$|\$\{(\w+)(?::?-([^}]*))?\}/g, (match, _name, fallback: string | undefined) =>
    match === "$$" ? "$" : (fallback ?? ""),
  );
}

function environment(value: unknown): Record<string, string | undefined> {
  if (value === undefined) return {};
  const entries: [string, string | undefined][] = Array.isArray(value)
    ? value
        .map((entry) => String(entry))
        .map((entry) =>
          entry.includes("=")
            ? [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]
            : [entry, undefined],
        )
    : Object.entries(value as Record<string, unknown>).map(([key, v]) => [key, v === null ? undefined : String(v)]);
  return Object.fromEntries(entries.map(([key, v]) => [key, v === undefined ? undefined : interpolateUnset(v)]));
}

/** "443:8443", "127.0.0.1:443:8443/tcp", { target, published }. Ranges are refused: they defeat a fixed address. */
function publishedPorts(value: unknown, service: string): PublishedPort[] {
  if (value === undefined) return [];
  return (value as unknown[]).map((entry) => {
    if (typeof entry === "object" && entry !== null) {
      const { target, published } = entry as { target?: number; published?: number | string };
      return { host: Number(published), container: Number(target) };
    }
    const parts = String(entry)
      .replace(/\/(tcp|udp)$/, "")
      .split(":");
    if (parts.length < 2) throw new Error(`${service}: port '${entry}' publishes on a random host port`);
    const [host, container] = parts.slice(-2);
    if (/-/.test(host!) || /-/.test(container!)) throw new Error(`${service}: port range '${entry}'`);
    return { host: Number(host), container: Number(container) };
  });
}

/**
 * `bash -c "exec 3<>/dev/tcp/127.0.0.1/${…:-9464} && printf 'GET /health …'"`,
 * `node -e "fetch('http://127.0.0.1:'+(…||9464)+'/health')…"` or any URL with host:port/path.
 */
export function healthFromCommand(command: readonly string[]): { path: string; port: number } | undefined {
  const text = command.join(" ");
  const tcp = /\/dev\/tcp\/(?:127\.0\.0\.1|localhost)\/(?:\$\{\w+:-(\d+)\}|(\d+))[\s\S]*?GET (\/[\w/-]*) HTTP/.exec(
    text,
  );
  if (tcp) return { port: Number(tcp[1] ?? tcp[2]), path: tcp[3]! };
  const fallback = /127\.0\.0\.1:'\s*\+\s*\([^)]*\|\|\s*(\d+)\)\s*\+\s*'(\/[\w/-]*)'/.exec(text);
  if (fallback) return { port: Number(fallback[1]), path: fallback[2]! };
  const plain = /https?:\/\/(?:127\.0\.0\.1|localhost):(\d+)(\/[\w/-]*)/.exec(text);
  return plain ? { port: Number(plain[1]), path: plain[2]! } : undefined;
}

export function composeServiceView(compose: ComposeFile, name: string): ServiceView {
  const service = compose.services[name];
  if (!service) throw new Error(`docker-compose.yml has no service '${name}'`);
  const published = publishedPorts(service.ports, name);
  const exposed = ((service.expose as unknown[] | undefined) ?? []).map((port) => Number(String(port).split("/")[0]));
  const test = (service.healthcheck as { test?: unknown } | undefined)?.test;
  const healthCommand = Array.isArray(test)
    ? test.slice(1).map((part) => interpolateUnset(String(part)))
    : typeof test === "string"
      ? [interpolateUnset(test)]
      : undefined;
  return {
    image: String(service.image ?? ""),
    entrypoint: stringList(service.entrypoint, `${name}.entrypoint`),
    command: stringList(service.command, `${name}.command`),
    env: environment(service.environment),
    containerPorts: [...new Set([...exposed, ...published.map((port) => port.container)])].sort((a, b) => a - b),
    published,
    health: healthCommand ? healthFromCommand(healthCommand) : undefined,
  };
}

/** The proxy's HAProxy configuration (it travels in the proxy's environment as PROXY_CONFIG). */
export function proxyConfig(compose: ComposeFile, proxy: string): string {
  const config = environment(compose.services[proxy]?.environment).PROXY_CONFIG;
  if (!config) throw new Error(`docker-compose.yml: service '${proxy}' has no PROXY_CONFIG`);
  return config;
}

/**
 * Every service's view, with the ports the proxy publishes for the gateways: host port → proxy
 * listener → backend service and port becomes that service's published port.
 */
export function composeServiceViews(compose: ComposeFile, proxy: string): Record<string, ServiceView> {
  const views = Object.fromEntries(
    [...INFRASTRUCTURE_SERVICES, ...TWINPORT_SERVICES].map((name) => [name, composeServiceView(compose, name)]),
  );
  const proxyView = composeServiceView(compose, proxy);
  for (const route of proxyRoutes(proxyConfig(compose, proxy))) {
    const target = views[route.service];
    for (const published of proxyView.published.filter((port) => port.container === route.listen)) {
      target?.published.push({ host: published.host, container: route.port });
    }
  }
  return views;
}

export interface ProxyRoute {
  /** The port the proxy listens on inside its container. */
  listen: number;
  service: string;
  port: number;
}

/**
 * What the HAProxy configuration forwards where: each `frontend` (`bind :<port>`,
 * `default_backend`) to its `backend`'s `server-template <prefix> <count> <service>:<port>`.
 */
export function proxyRoutes(config: string): ProxyRoute[] {
  const sections: { kind: string; name: string; lines: string[] }[] = [];
  for (const raw of config.split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const header = /^(global|defaults|frontend|backend|listen|resolvers)\b\s*(\S*)/.exec(line);
    if (header && !raw.startsWith(" ")) sections.push({ kind: header[1]!, name: header[2]!, lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  const backends = new Map(
    sections
      .filter((section) => section.kind === "backend")
      .map((section) => [
        section.name,
        section.lines
          .flatMap((line) => /^server(?:-template\s+\S+\s+\d+|\s+\S+)\s+([\w.-]+):(\d+)/.exec(line) ?? [])
          .slice(1),
      ]),
  );
  return sections
    .filter((section) => section.kind === "frontend")
    .flatMap((section) => {
      const listen = section.lines.map((line) => /^bind\s+\S*:(\d+)/.exec(line)?.[1]).find(Boolean);
      const backend = section.lines.map((line) => /^default_backend\s+(\S+)/.exec(line)?.[1]).find(Boolean);
      const [service, port] = (backend && backends.get(backend)) || [];
      return listen && service && port ? [{ listen: Number(listen), service, port: Number(port) }] : [];
    });
}

function has(list: readonly string[] | undefined, ...items: string[]): boolean {
  if (!list) return false;
  return items.every(
    (item, index) =>
      list.indexOf(item) !== -1 && (index === 0 || list.indexOf(item) === list.indexOf(items[index - 1]!) + 1),
  );
}

function mountTargets(service: Record<string, unknown>): { source: string; target: string }[] {
  return ((service.volumes as unknown[] | undefined) ?? []).map((entry) => {
    if (typeof entry === "object" && entry !== null) {
      const { source, target } = entry as { source?: string; target?: string };
      return { source: String(source ?? ""), target: String(target ?? "") };
    }
    const [source = "", target = ""] = String(entry).split(":");
    return { source, target };
  });
}

/**
 * The rules docker-compose.yml keeps beyond what `docker-compose config` checks; one sentence per
 * broken rule. `proxy` names the service that owns the host ports.
 */
/** Seconds of a compose duration (`10s`, `1m30s`, `500ms`). */
function durationSeconds(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as "ms" | "s" | "m" | "h"];
  return total;
}

export function composeProblems(compose: ComposeFile, options: { proxy: string; configMount: string }): string[] {
  const problems: string[] = [];
  const services = compose.services;
  const namedVolumes = new Set(Object.keys(compose.volumes ?? {}));
  for (const name of [...INFRASTRUCTURE_SERVICES, ...TWINPORT_SERVICES, options.proxy]) {
    if (!services[name]) problems.push(`service '${name}' is missing`);
  }
  if (problems.length > 0) return problems;

  const onNamedVolume = (service: string, target: string) =>
    mountTargets(services[service]!).some((mount) => mount.target === target && namedVolumes.has(mount.source));
  const redis = composeServiceView(compose, "redis");
  if (!has(redis.command, "--appendonly", "yes")) problems.push("redis: AOF is off (--appendonly yes)");
  if (!has(redis.command, "--appendfsync", "always"))
    problems.push("redis: acknowledged writes can be lost (--appendfsync always)");
  if (!onNamedVolume("redis", "/data")) problems.push("redis: /data is not on a named volume");
  const nats = composeServiceView(compose, "nats");
  if (!nats.command?.some((arg) => arg === "-js" || arg === "--jetstream"))
    problems.push("nats: JetStream is off (-js)");
  const storeDirAt = nats.command?.findIndex((arg) => arg === "-sd" || arg === "--store_dir") ?? -1;
  const storeDir = storeDirAt >= 0 ? nats.command![storeDirAt + 1] : undefined;
  if (!storeDir || !onNamedVolume("nats", storeDir))
    problems.push("nats: the JetStream store dir (-sd) is not on a named volume");
  if (!nats.command?.some((arg) => arg === "-m" || arg === "--http_port"))
    problems.push("nats: no monitoring port (-m)");

  for (const name of [...INFRASTRUCTURE_SERVICES, ...TWINPORT_SERVICES]) {
    if (!(services[name]!.healthcheck as { test?: unknown } | undefined)?.test)
      problems.push(`${name}: no healthcheck`);
  }
  const twinportImage = composeServiceView(compose, TWINPORT_SERVICES[0]).image;
  for (const name of TWINPORT_SERVICES) {
    const service = services[name]!;
    const view = composeServiceView(compose, name);
    if (view.image !== twinportImage)
      problems.push(`${name}: image ${view.image}, but the Twinport services share one image (${twinportImage})`);
    if (!view.command?.[0] || view.command[0] !== name)
      problems.push(`${name}: the command must start with the role '${name}'`);
    if (!has(view.command, "-c", options.configMount))
      problems.push(`${name}: does not read the mounted config file (-c ${options.configMount})`);
    if (!mountTargets(service).some((mount) => mount.target === options.configMount))
      problems.push(`${name}: ${options.configMount} is not mounted`);
    if (Object.keys(view.env).filter((key) => key.startsWith("TWINPORT_")).length === 0)
      problems.push(`${name}: not configured through TWINPORT_* environment variables`);
    if (view.published.length > 0)
      problems.push(`${name}: publishes host ports, so --scale ${name}=2 clashes (the proxy owns the host ports)`);
    const dependsOn = service.depends_on;
    const conditions = Array.isArray(dependsOn) ? {} : ((dependsOn ?? {}) as Record<string, { condition?: string }>);
    if (Array.isArray(dependsOn))
      problems.push(`${name}: depends_on without conditions starts it before its dependencies are healthy`);
    if (conditions.nats?.condition !== "service_healthy") problems.push(`${name}: must wait for nats to be healthy`);
    // A check must cost next to nothing and tolerate a loaded host (issue 17: a Node-based check with
    // a 3 s timeout failed while /health answered in 70 ms, and `docker compose up` aborted).
    const check = (service.healthcheck ?? {}) as {
      test?: unknown;
      timeout?: string;
      start_period?: string;
      retries?: number;
    };
    if (Array.isArray(check.test) && /(^|\/)node$/.test(String(check.test[1])))
      problems.push(`${name}: the health check starts a Node process`);
    if (durationSeconds(check.timeout ?? "30s") < 5)
      problems.push(`${name}: health check timeout ${check.timeout} is too tight for a loaded host`);
    if (durationSeconds(check.start_period ?? "0s") < 30)
      problems.push(
        `${name}: health check start_period ${check.start_period ?? "0s"} is too short for a start on a loaded host`,
      );
    if ((check.retries ?? 3) < 3)
      problems.push(`${name}: health check retries ${check.retries} fail a container on one slow answer`);
  }
  // In the foreground haproxy prints every state change on stderr itself: a log target on stdout
  // repeats each line (the proxy logged everything twice).
  if (/^\s*log\s+stdout\b/m.test(proxyConfig(compose, options.proxy)))
    problems.push(
      `${options.proxy}: 'log stdout' repeats every message haproxy already prints on stderr in the foreground`,
    );
  const storeNeeds = (services["model-store"]!.depends_on ?? {}) as Record<string, { condition?: string }>;
  if (storeNeeds.redis?.condition !== "service_healthy")
    problems.push("model-store: must wait for redis to be healthy");
  if (!composeServiceView(compose, "model-store").command?.includes("-m"))
    problems.push("model-store: no model to seed on first start (-m)");
  return problems;
}
