/**
 * The dependency rules of docs/architecture.md §2, as code. `checkImport` judges one import of one
 * file; scripts/lint-deps.ts applies it to every source file and fails CI on a violation.
 */
import { posix } from "node:path";

export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

const SERVICES = ["model-store", "http-gateway", "opcua-gateway"];

/** Which package may import which third-party infrastructure client. */
const OWNED_PACKAGES: { test: (spec: string) => boolean; name: string; allowed: (file: string) => boolean }[] = [
  {
    name: "ioredis",
    test: (s) => s === "ioredis" || s.startsWith("ioredis/"),
    allowed: (f) => f.startsWith("services/model-store/"),
  },
  {
    name: "hono",
    test: (s) => s === "hono" || s.startsWith("hono/") || s.startsWith("@hono/"),
    allowed: (f) => f.startsWith("services/http-gateway/"),
  },
  {
    name: "node-opcua",
    test: (s) => s === "node-opcua" || s.startsWith("node-opcua-") || s.startsWith("node-opcua/"),
    // The model-store may use the OPC UA *client* for asset connections, inside that folder only.
    allowed: (f) =>
      f.startsWith("services/opcua-gateway/") || (f.startsWith("services/model-store/src/asset-connections/") && true),
  },
  { name: "@nats-io", test: (s) => s.startsWith("@nats-io/"), allowed: (f) => f.startsWith("libs/shared/src/bus/") },
  // One certificate library (ADR 0022), behind one folder, so a second one cannot creep back in beside it.
  {
    name: "node-forge",
    test: (s) => s === "node-forge" || s.startsWith("node-forge/"),
    allowed: (f) => f.startsWith("libs/shared/src/certificates/"),
  },
];

/** Packages replaced by another: an old snippet copied back in would bring a second client. */
const RETIRED_PACKAGES: { test: (spec: string) => boolean; rule: string }[] = [
  {
    test: (s) => s === "nats" || s.startsWith("nats/"),
    rule: "'nats' (v2) is superseded by @nats-io/transport-node and @nats-io/nats-core",
  },
];

/** Folders of libs/shared/src and what each may import of ours. */
const SHARED_LAYERS: Record<string, string[]> = {
  aas: ["aas"],
  contracts: ["contracts", "aas"],
  engine: ["engine", "aas", "contracts"],
  bus: ["bus", "contracts", "engine/ports"],
  config: ["config", "contracts", "aas", "operability"],
  // The Principals both gateways build: from contracts and the security configuration's types.
  authentication: ["authentication", "contracts", "config"],
  // Management port, metrics and logs: node:http, prom-client and pino, no infrastructure client.
  operability: ["operability", "contracts", "engine/ports"],
  "test-support": ["test-support", "aas", "contracts", "engine", "bus", "config"],
  // Key stores, self-signed certificates and the lock replicas create them under: node:crypto,
  // node:fs and node-forge; used by the HTTPS endpoint, asset connections and the OPC UA gateway.
  certificates: ["certificates"],
};

function sharedLayer(file: string): string | undefined {
  const m = /^libs\/shared\/src\/([^/]+)\//.exec(file);
  return m?.[1];
}

export function checkImport(file: string, specifier: string, isTypeOnly = false): Violation | undefined {
  const v = (rule: string): Violation => ({ file, specifier, rule });
  const isTest = /\.test\.ts$/.test(file);
  for (const retired of RETIRED_PACKAGES) if (retired.test(specifier)) return v(retired.rule);
  for (const owned of OWNED_PACKAGES) {
    if (
      owned.test(specifier) &&
      !owned.allowed(file) &&
      !(isTest && owned.name === "@nats-io" && file.startsWith("libs/shared/src/"))
    ) {
      return v(`only its owner may import '${owned.name}'`);
    }
  }
  // The web console is a client of the public HTTP API like any other (docs/adr/0033): none of our
  // code reaches the browser, so nothing it shows can bypass the API and its access rules.
  if (file.startsWith("console/") && specifier.startsWith("@twinport/"))
    return v("the web console uses Twinport's public HTTP API only, never its packages");
  if (specifier.startsWith("@twinport/")) {
    const [, pkg, ...rest] = specifier.split("/");
    if (pkg === "shared") {
      const subpath = rest.join("/");
      if (subpath !== "" && !SHARED_SUBPATHS.includes(subpath))
        return v(
          `import @twinport/shared or ${SHARED_SUBPATHS.map((name) => `@twinport/shared/${name}`).join(", ")}, never deep paths`,
        );
      if (subpath === "test-support" && !isTestSupport(file))
        return v("@twinport/shared/test-support is for tests only");
      if (subpath === "command-line" && !file.startsWith("bin/"))
        return v("@twinport/shared/command-line is the launcher's (bin/), for --help without loading a role");
      if (file.startsWith("libs/shared/")) return v("libs/shared imports its own files relatively");
      return undefined;
    }
    if (SERVICES.includes(pkg)) {
      if (rest.length > 0) return v("no deep imports into another package");
      if (file.startsWith("libs/")) return v("libs/ never imports a service");
      if (file.startsWith("services/") && !file.startsWith(`services/${pkg}/`))
        return v("a service never imports another service");
      return undefined;
    }
    return v(`unknown package ${specifier}`);
  }
  if (!specifier.startsWith(".")) return undefined;
  // Tests beside the code may use the contract suites and tests/test-support, like tests/ itself.
  if (isTest) return undefined;
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  // The image leaves test support out (.dockerignore, the build's excludes): production code that
  // imported it would fail there, not here.
  if (isTestSupport(target) && !isTestSupport(file))
    return v("production code never imports test support (test-support/ folders)");
  const fromPackage = packageOf(file);
  const toPackage = packageOf(target);
  if (fromPackage !== toPackage)
    return v(`relative import crosses from ${fromPackage} into ${toPackage}; import the package entry instead`);
  const layer = sharedLayer(file);
  const targetLayer = sharedLayer(target);
  if (layer && targetLayer && SHARED_LAYERS[layer]) {
    const allowed = SHARED_LAYERS[layer];
    const targetKey = target.startsWith("libs/shared/src/engine/ports/") ? "engine/ports" : targetLayer;
    const ok = allowed.includes(targetKey) || (targetKey === "engine/ports" && allowed.includes("engine"));
    if (!ok) return v(`libs/shared/src/${layer} may import only ${allowed.join(", ")}`);
    if (layer === "contracts" && targetLayer === "aas" && !isTypeOnly)
      return v("contracts imports aas types only (use `import type`)");
  }
  return undefined;
}

/** Subpaths of @twinport/shared besides its entry (libs/shared/package.json "exports"). */
const SHARED_SUBPATHS = ["test-support", "command-line"];

/**
 * Tests and the code that helps them: *.test.ts files, anything in a folder named test-support
 * (the one naming convention, so .dockerignore and the build exclude it with one pattern), and
 * tests/ and bench/ as a whole.
 */
export function isTestSupport(path: string): boolean {
  return /\.test\.ts$/.test(path) || /(^|\/)test-support(\/|$)/.test(path) || /^(tests|bench)(\/|$)/.test(path);
}

function packageOf(path: string): string {
  const m = /^(libs\/[^/]+|services\/[^/]+|bin|console|tests|bench|scripts)(\/|$)/.exec(path);
  return m?.[1] ?? path;
}

/** `process.env`, signal handlers: only main.ts files, bin/ and the config loader's caller. */
export function checkProcessAccess(file: string, source: string): Violation[] {
  if (
    !/^(libs|services)\//.test(file) ||
    /\.test\.ts$/.test(file) ||
    /(^|\/)main\.ts$/.test(file) ||
    file.startsWith("libs/shared/src/test-support/")
  )
    return [];
  const found: Violation[] = [];
  if (/\bprocess\.env\b/.test(source))
    found.push({
      file,
      specifier: "process.env",
      rule: "only main.ts files and bin/ read the environment (pass it in)",
    });
  if (/\bprocess\.on\(\s*["']SIG/.test(source))
    found.push({ file, specifier: "process.on(SIG…)", rule: "only main.ts files and bin/ install signal handlers" });
  return found;
}

/**
 * node-opcua's packages (node-opcua in the gateway, node-opcua-client and -certificate-manager in
 * the model-store) pinned to one exact version: the address-space build and the `request` hook
 * rely on internals re-checked for that version (ADR 0009, 0016), and two versions would put two
 * copies of node-opcua-debug (process-wide loggers) and of its classes in node_modules.
 */
export function checkNodeOpcuaVersions(
  manifests: { file: string; dependencies?: Record<string, string> }[],
): Violation[] {
  const found: Violation[] = [];
  const versions = new Set<string>();
  for (const { file, dependencies } of manifests) {
    for (const [name, version] of Object.entries(dependencies ?? {})) {
      if (name !== "node-opcua" && !name.startsWith("node-opcua-")) continue;
      if (!/^\d+\.\d+\.\d+$/.test(version))
        found.push({
          file,
          specifier: `${name}@${version}`,
          rule: "node-opcua packages are pinned to an exact version",
        });
      versions.add(version);
    }
  }
  if (versions.size > 1)
    found.push({
      file: "package.json files",
      specifier: [...versions].sort().join(", "),
      rule: "every node-opcua package has the same version",
    });
  return found;
}

/** Import specifiers of a TypeScript source, with whether each is type-only. */
export function importsOf(source: string): { specifier: string; typeOnly: boolean }[] {
  const result: { specifier: string; typeOnly: boolean }[] = [];
  const staticImport = /^\s*(import|export)\s+(type\s+)?[^;]*?\bfrom\s+["']([^"']+)["']/gms;
  for (const m of source.matchAll(staticImport)) result.push({ specifier: m[3], typeOnly: Boolean(m[2]) });
  for (const m of source.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) result.push({ specifier: m[1], typeOnly: false });
  for (const m of source.matchAll(/\b(?:import|require)\(\s*["']([^"']+)["']\s*\)/g))
    result.push({ specifier: m[1], typeOnly: false });
  return result;
}
