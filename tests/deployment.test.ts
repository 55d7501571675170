/**
 * Static checks of the deployment files (Dockerfile, .dockerignore, docker-compose.yml, k8s/): no
 * Docker engine and no cluster here, so each file goes through the tool that reads it for real
 * (docker-compose 1.29, kubectl's kustomize, haproxy -c, kubernetes-models' schemas and types, our
 * configuration loader, redis-server and nats-server for the infrastructure command lines), and
 * every checker is shown to fail on a deliberately broken copy.
 */

import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { isBuiltin } from "node:module";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { test } from "node:test";
import { isOpcUaEndpoint } from "@twinport/shared";
import { spawnTwinport } from "../bin/test-support/spawn-twinport.ts";
import {
  composeProblems,
  composeServiceViews,
  INFRASTRUCTURE_SERVICES,
  interpolateUnset,
  parseCompose,
  proxyConfig,
  proxyRoutes,
  readCompose,
  type ServiceView,
  TWINPORT_SERVICES,
} from "./test-support/deployment-compose.ts";
import { containerConfig, containerConfigProblems, DEFAULT_MANAGEMENT_PORT } from "./test-support/deployment-config.ts";
import {
  dockerIgnored,
  healthcheckCommand,
  lintDockerfile,
  parseDockerfile,
} from "./test-support/deployment-dockerfile.ts";
import {
  allowedClients,
  type K8sObject,
  k8sProblems,
  k8sServiceView,
  kustomizationDirs,
  oldKustomizeProblems,
  opcuaCertificateProblems,
  renderKustomization,
  schemaProblems,
  unknownFieldProblems,
} from "./test-support/deployment-k8s.ts";
import { parityProblems } from "./test-support/deployment-parity.ts";
import { runTool } from "./test-support/deployment-tools.ts";
import { freePort, serverBinary } from "./test-support/servers.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const at = (path: string) => join(ROOT, path);
const read = (path: string) => readFileSync(at(path), "utf8");

const PROXY = "proxy";
const CONFIG_MOUNT = "/etc/twinport/config.json";
const OPCUA_CERTIFICATE_SECRET = "opcua-server-certificate";
const ALL_SERVICES = [...INFRASTRUCTURE_SERVICES, ...TWINPORT_SERVICES];
const GATEWAYS = ["http-gateway", "opcua-gateway"];
const K8S_RULES = {
  namespace: "twinport",
  services: TWINPORT_SERVICES,
  gateways: GATEWAYS,
  stateful: INFRASTRUCTURE_SERVICES,
};
/** Image paths the deployments use, and where the repository has them (Dockerfile: COPY examples /app/examples). */
const IMAGE_FILES = { "/app/examples/model.json": at("examples/model.json") };
/** The manifests of the root package.json's workspaces ("libs/*", "console", …). */
const WORKSPACE_MANIFESTS = (JSON.parse(read("package.json")).workspaces as string[]).flatMap((pattern) =>
  pattern.endsWith("/*")
    ? readdirSync(at(pattern.slice(0, -2)), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${pattern.slice(0, -2)}/${entry.name}/package.json`)
    : [`${pattern}/package.json`],
);

function tempDir(t: { after(fn: () => void): void }, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `twinport-${prefix}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Rendered once per kustomization folder; every k8s test reads the same objects. */
const renders = new Map<string, K8sObject[]>();
function rendered(dir: string): K8sObject[] {
  if (!renders.has(dir)) renders.set(dir, renderKustomization(at(dir)));
  return structuredClone(renders.get(dir)!);
}
const K8S_DIRS = kustomizationDirs(at("k8s")).map((dir) => dir.slice(ROOT.length + 1));
/** The deployable kustomizations: k8s/ itself and each overlay (k8s/base is part of both). */
const DEPLOYABLE = K8S_DIRS.filter((dir) => dir !== "k8s/base");

function k8sViews(objects: readonly K8sObject[]): Record<string, ServiceView> {
  return Object.fromEntries(ALL_SERVICES.map((name) => [name, k8sServiceView(objects, name)]));
}

/**
 * The plain JavaScript files of bin/ that run in production: bin/twinport.js and every "./x.js" it
 * imports, plus every "../bin/x.js" the CLI (bin/*.ts, compiled to dist/) imports.
 */
function launcherFiles(): string[] {
  const files = new Set(["bin/twinport.js"]);
  for (const match of read("bin/twinport.js").matchAll(/from "\.\/([\w.-]+\.js)"/g)) files.add(`bin/${match[1]}`);
  for (const name of readdirSync(at("bin")).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts")))
    for (const match of read(`bin/${name}`).matchAll(/from "\.\.\/bin\/([\w.-]+\.js)"/g)) files.add(`bin/${match[1]}`);
  return [...files].sort();
}

test("Dockerfile: multi-stage on node:24-slim, compiled in a build stage, a runtime with production dependencies and compiled output only, numeric non-root user, a cheap HEALTHCHECK, ports, exec-form entry point", () => {
  const expect = {
    ports: [8443, 4840, DEFAULT_MANAGEMENT_PORT],
    manifests: WORKSPACE_MANIFESTS,
    launcherFiles: launcherFiles(),
  };
  assert.ok(expect.launcherFiles.includes("bin/heap-settings.js"), JSON.stringify(expect.launcherFiles));
  const dockerfiles = readdirSync(ROOT).filter((name) => /^Dockerfile(\..+)?$/.test(name));
  assert.ok(dockerfiles.length > 0, "no Dockerfile");
  for (const name of dockerfiles) assert.deepEqual(lintDockerfile(read(name), expect), [], name);

  const text = read("Dockerfile");
  const broken: [string, (text: string) => string, RegExp][] = [
    [
      "single stage",
      (t) => t.replace(/^FROM node:24-slim AS build[\s\S]*?(?=^FROM node:24-slim AS runtime)/m, ""),
      /not multi-stage/,
    ],
    [
      "full node image",
      (t) => t.replace("FROM node:24-slim AS runtime", "FROM node:24 AS runtime"),
      /FROM node:24: every stage must be based on node:24-slim/,
    ],
    [
      "an old Node",
      (t) => t.replace("FROM node:24-slim AS build", "FROM node:20-slim AS build"),
      /FROM node:20-slim: every stage must be based on node:24-slim/,
    ],
    [
      "dev dependencies in the runtime",
      (t) => t.replace("npm ci --omit=dev ", "npm ci "),
      /installs dev dependencies into the runtime's node_modules/,
    ],
    ["npm install", (t) => t.replace("npm ci --omit=dev", "npm install --omit=dev"), /use 'npm ci'/],
    [
      "node_modules from the build stage",
      (t) =>
        t.replace(
          "COPY --from=deps /app/node_modules node_modules",
          "COPY --from=build /app/node_modules node_modules",
        ),
      /installs dev dependencies into the runtime's node_modules/,
    ],
    [
      "no build",
      (t) => t.replace(/^RUN node scripts\/build\.ts[^\n]*(\n\s+&&[^\n]*)*$/m, ""),
      /no stage compiles the TypeScript/,
    ],
    ["no compiled output", (t) => t.replace(/^COPY --from=build .*$/gm, ""), /copies no compiled output/],
    [
      "TypeScript sources in the runtime",
      (t) => t.replace("COPY examples examples", "COPY examples examples\nCOPY libs libs"),
      /the runtime gets no TypeScript sources, tests or test support \(libs\)/,
    ],
    [
      "test support in the runtime",
      (t) => t.replace("COPY examples examples", "COPY examples examples\nCOPY bin/test-support bin/test-support"),
      /the runtime gets no TypeScript sources, tests or test support \(bin\/test-support\)/,
    ],
    [
      "the whole context",
      (t) => t.replace("COPY examples examples", "COPY . ."),
      /the runtime gets no TypeScript sources, tests or test support \(\.\)/,
    ],
    ["root user", (t) => t.replace(/^USER .*$/m, "USER root"), /must not be root/],
    ["named user", (t) => t.replace(/^USER .*$/m, "USER node"), /numeric user/],
    ["no user", (t) => t.replace(/^USER .*$/m, ""), /no USER/],
    ["no healthcheck", (t) => t.replace(/^HEALTHCHECK[\s\S]*?\n(?=ENTRYPOINT)/m, ""), /no HEALTHCHECK/],
    [
      "a Node health check",
      (t) => t.replace(/CMD \["bash".*$/m, `CMD ["node", "-e", "fetch('http://127.0.0.1:9464/health')"]`),
      /HEALTHCHECK starts a Node process/,
    ],
    ["a tight timeout", (t) => t.replace("--timeout=10s", "--timeout=3s"), /--timeout=3s is too tight/],
    ["no start period", (t) => t.replace("--start-period=60s ", ""), /--start-period=\(default\) is too tight/],
    ["missing port", (t) => t.replace(/^EXPOSE .*$/m, "EXPOSE 8443 4840"), /port 9464 is not EXPOSEd/],
    [
      "shell-form entry point",
      (t) => t.replace(/^ENTRYPOINT .*$/m, "ENTRYPOINT node /app/bin/twinport.js"),
      /SIGTERM never reaches node/,
    ],
    [
      "workspace manifest not copied",
      (t) => t.replace(/^COPY services\/opcua-gateway\/package\.json.*$/m, ""),
      /services\/opcua-gateway\/package\.json is not copied before 'npm ci' in stage build/,
    ],
    [
      "a launcher import left out",
      (t) =>
        t.replace(/^COPY bin\/twinport\.js bin\/heap-settings\.js bin\/$/m, "COPY bin/twinport.js bin/twinport.js"),
      /bin\/heap-settings\.js: the launcher loads it at run time, but the final stage does not copy it/,
    ],
    [
      "node_modules from the host",
      (t) => t.replace("COPY --from=deps /app/node_modules node_modules", "COPY node_modules node_modules"),
      /copies node_modules from the build context/,
    ],
  ];
  for (const [what, breakIt, expected] of broken) {
    const changed = breakIt(text);
    assert.notEqual(changed, text, `${what}: the mutation did not apply`);
    const problems = lintDockerfile(changed, expect);
    assert.ok(
      problems.some((problem) => expected.test(problem)),
      `${what}: expected ${expected}, got ${JSON.stringify(problems)}`,
    );
  }
});

/**
 * The image's /app as the final stage builds it, without a Docker engine: each COPY of the final
 * stage done here, from the build context (this checkout), from the build stage (this checkout's
 * compiled output, built by npm test) or from the dependency stage (this checkout's node_modules,
 * its workspace links pointing into the copy, so the copied packages are the ones loaded).
 */
function runtimeImage(dir: string): string {
  const final = parseDockerfile(read("Dockerfile")).at(-1)!;
  let workdir = "/";
  let app: string | undefined;
  for (const instruction of final.instructions) {
    if (instruction.keyword === "WORKDIR") workdir = instruction.args;
    if (instruction.keyword !== "COPY") continue;
    // The folder of the first COPY is the application's (/app): the entry point runs from there.
    app ??= join(dir, workdir);
    const from = /--from=(\S+)/.exec(instruction.args)?.[1];
    const parts = instruction.args.split(/\s+/).filter((part) => !part.startsWith("--"));
    const dest = join(dir, workdir, parts.at(-1)!);
    const sources = parts.slice(0, -1);
    mkdirSync(parts.at(-1)!.endsWith("/") || sources.length > 1 ? dest : join(dest, ".."), { recursive: true });
    for (const source of sources) {
      const target = parts.at(-1)!.endsWith("/") || sources.length > 1 ? join(dest, basename(source)) : dest;
      if (from === "deps") {
        assert.equal(source, `${workdir}/node_modules`, instruction.args);
        linkedNodeModules(target);
      } else {
        assert.ok(from === undefined || from === "build", `COPY ${instruction.args}: an unknown stage`);
        // The build stage's folder is the same WORKDIR, its files this checkout's (npm test built them).
        cpSync(from === undefined ? at(source) : at(source.slice(workdir.length + 1)), target, { recursive: true });
      }
    }
  }
  assert.ok(app, "the final stage copies nothing");
  return app;
}

/** node_modules of links: packages to this checkout's, workspace packages to their copies in the image. */
function linkedNodeModules(target: string): void {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(at("node_modules"))) {
    if (entry !== "@twinport") {
      symlinkSync(at(`node_modules/${entry}`), join(target, entry));
      continue;
    }
    mkdirSync(join(target, entry));
    // npm's workspace links are relative ("../../libs/shared"): the same link resolves inside the image.
    for (const member of readdirSync(at("node_modules/@twinport")))
      symlinkSync(readlinkSync(at(`node_modules/@twinport/${member}`)), join(target, entry, member));
  }
}

test("the image's files alone start its entry point: embedded with both endpoints comes up and serves the example model", async (t) => {
  const dir = tempDir(t, "image");
  const app = runtimeImage(dir);
  const data = join(dir, "data");
  mkdirSync(data);
  const [httpPort, opcuaPort] = [await freePort(), await freePort()];
  const config = join(data, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      core: { stateDir: join(data, "state") },
      endpoints: [
        { "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: false },
        { "@class": "endpoint.opcua.OpcUaEndpoint", tcpPort: opcuaPort, host: "127.0.0.1", hostname: "localhost" },
      ],
    }),
  );
  // The image's ENTRYPOINT, with what production runs: no tsx, no source condition from npm test.
  const twinport = spawnTwinport(["-c", config, "-m", join(app, "examples/model.json")], {
    bin: join(app, "bin/twinport.js"),
    cwd: data,
    env: { NODE_OPTIONS: "" },
    readyTimeoutMs: 60_000,
  });
  t.after(() => {
    if (twinport.child.exitCode === null) twinport.child.kill("SIGKILL");
  });
  await twinport.ready;
  const shells = await fetch(`http://127.0.0.1:${httpPort}/api/v3.0/shells`);
  assert.equal(shells.status, 200);
  assert.ok(((await shells.json()) as { result: unknown[] }).result.length > 0, "the example model's shells");
  assert.equal(await twinport.stop(), 0, twinport.stderr());
});

test(".dockerignore sends the manifests, the sources to compile and the build script, and keeps tests, test support, local state, build output and node_modules out", () => {
  const patterns = read(".dockerignore");
  const reach = [
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "scripts/build.ts",
    "bin/twinport.js",
    "bin/cli.ts",
    "libs/shared/src/index.ts",
    "libs/shared/tsconfig.build.json",
    "services/opcua-gateway/src/address-space/twinport-aas-v3.NodeSet2.xml",
    "examples/model.json",
    "examples/config-container.json",
    // The web console's sources, built in the image (docs/adr/0033).
    "console/index.html",
    "console/vite.config.ts",
    "console/src/main.tsx",
    ...WORKSPACE_MANIFESTS,
  ];
  for (const path of reach) assert.equal(dockerIgnored(patterns, path), false, `${path} must reach the build`);
  const out = [
    "node_modules/yaml/package.json",
    "libs/shared/node_modules/x",
    ".git/HEAD",
    "tests/deployment.test.ts",
    "bin/cli.test.ts",
    "libs/shared/src/config/core.test.ts",
    ".twinport/https-key.pem",
    "k8s/base/config.json",
    "scripts/test.sh",
    "dist/cli.js",
    "libs/shared/dist/index.js",
    "console/dist/index.html",
    // One naming convention for test support, wherever it is.
    "bin/test-support/spawn-twinport.ts",
    "libs/shared/src/test-support/index.ts",
    "libs/shared/src/engine/handlers/test-support/files.ts",
    "services/http-gateway/src/test-support/call.ts",
    "bench/test-support/load.ts",
  ];
  for (const path of out) assert.equal(dockerIgnored(patterns, path), true, `${path} must stay out of the build`);
  // Every test-support folder the repository has is covered by the pattern.
  const folders = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((path) => /(^|\/)test-support\//.test(path));
  assert.ok(folders.length > 10, "found too few test-support files to judge");
  assert.deepEqual(
    folders.filter((path) => !dockerIgnored(patterns, path)),
    [],
  );
  // The matcher itself: a re-include wins over an earlier exclude, and a folder pattern covers its files.
  assert.equal(dockerIgnored("tests\n!tests/keep.ts", "tests/keep.ts"), false);
  assert.equal(dockerIgnored("docs", "docs/adr/0005.md"), true);
});

test("the image runs with production dependencies only: every runtime import is a production dependency", () => {
  const patterns = read(".dockerignore");
  const root = JSON.parse(read("package.json")) as { dependencies?: Record<string, string> };
  const problems: string[] = [];
  const walk = (folder: string): string[] =>
    readdirSync(at(folder), { withFileTypes: true }).flatMap((entry) => {
      const path = `${folder}/${entry.name}`;
      if (dockerIgnored(patterns, path)) return [];
      return entry.isDirectory() ? walk(path) : /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
    });
  // console/: its sources never run in the image; Vite bundles them in the build stage into static
  // files (docs/adr/0033), so its packages are build-time (dev) dependencies.
  const packageFolders = WORKSPACE_MANIFESTS.map((manifest) => manifest.replace(/\/package\.json$/, "")).filter(
    (folder) => folder !== "console",
  );
  const files = ["bin", ...packageFolders].flatMap(walk);
  assert.ok(files.length > 20, "found too few source files to judge");
  for (const file of files) {
    const owner = packageFolders.find((folder) => file.startsWith(`${folder}/`));
    const own = owner
      ? (JSON.parse(read(`${owner}/package.json`)) as { dependencies?: Record<string, string> }).dependencies
      : {};
    const allowed = new Set([...Object.keys(root.dependencies ?? {}), ...Object.keys(own ?? {})]);
    for (const name of importedPackages(read(file))) {
      if (!allowed.has(name))
        problems.push(
          `${file} imports ${name}, which is not a production dependency of ${owner ?? "the root package"}`,
        );
    }
  }
  assert.deepEqual(problems, []);
  // The scanner sees static, dynamic and side-effect imports, and skips type-only ones and builtins.
  const sample =
    'import { parse } from "yaml";\nimport type { IPod } from "typescript";\nimport "reflect-metadata";\nimport { readFileSync } from "node:fs";\nconst m = await import("kubernetes-models/apps/v1");\nimport { x } from "./local.ts";\nimport { y } from "@scope/pkg/deep";';
  assert.deepEqual(importedPackages(sample), ["yaml", "reflect-metadata", "kubernetes-models", "@scope/pkg"]);
});

/** Packages a source file needs at run time (type-only imports vanish; builtins and workspaces are no dependency). */
function importedPackages(text: string): string[] {
  const source = text.replace(/^\s*import\s+type\s[^;]+;/gm, "").replace(/^\s*export\s+type\s[^;]+;/gm, "");
  const names: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"'./][^"']*)["']/gm)) {
    const specifier = match[1]!;
    // Builtins, our workspaces and package.json "#…" imports are no dependency.
    if (isBuiltin(specifier) || specifier.startsWith("@twinport/") || specifier.startsWith("#")) continue;
    const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

test("docker-compose.yml: docker-compose 1.29 accepts it, and it keeps the deployment rules", (t) => {
  const run = runTool("docker-compose", ["-f", at("docker-compose.yml"), "config", "-q"], { cwd: ROOT });
  assert.equal(run.status, 0, run.stderr);
  const compose = readCompose(at("docker-compose.yml"));
  assert.deepEqual(composeProblems(compose, { proxy: PROXY, configMount: CONFIG_MOUNT }), []);

  // docker-compose itself refuses a broken copy...
  const dir = tempDir(t, "compose");
  const brokenFile = join(dir, "docker-compose.yml");
  writeFileSync(
    brokenFile,
    read("docker-compose.yml").replace(
      "      model-store: { condition: service_healthy }\n",
      "      model-storage: { condition: service_healthy }\n",
    ),
  );
  const refused = runTool("docker-compose", ["-f", brokenFile, "config", "-q"], { cwd: dir });
  assert.notEqual(refused.status, 0, "docker-compose accepted a dependency on a service that does not exist");
  assert.match(refused.stderr, /model-storage/);

  // ...and our rules name what docker-compose cannot know.
  const text = read("docker-compose.yml");
  const broken: [string, string, string, RegExp][] = [
    [
      "fsync per second",
      '"--appendfsync", "always"',
      '"--appendfsync", "everysec"',
      /redis: acknowledged writes can be lost/,
    ],
    ["JetStream off", '"-js", ', "", /nats: JetStream is off/],
    [
      "a gateway on a host port",
      '    expose: ["8443", "9464"]\n',
      '    expose: ["8443", "9464"]\n    ports: ["443:8443"]\n',
      /http-gateway: publishes host ports/,
    ],
    ["no seed model", ', "-m", "/app/examples/model.json"]', "]", /model-store: no model to seed/],
    [
      "start without waiting",
      "      redis: { condition: service_healthy }\n",
      "      redis: { condition: service_started }\n",
      /model-store: must wait for redis/,
    ],
    [
      "config not read",
      '["http-gateway", "-c", "/etc/twinport/config.json"]',
      '["http-gateway"]',
      /http-gateway: does not read the mounted config file/,
    ],
    [
      "a Node health check",
      'test: ["CMD", "bash", "-c", ',
      'test: ["CMD", "node", "-e", ',
      /model-store: the health check starts a Node process/,
    ],
    [
      "a tight health check",
      "    timeout: 10s\n",
      "    timeout: 3s\n",
      /opcua-gateway: health check timeout 3s is too tight/,
    ],
    ["no start period", "    start_period: 60s\n", "", /http-gateway: health check start_period 0s is too short/],
    [
      "the proxy logging twice",
      "  global\n",
      "  global\n    log stdout format raw local0 notice\n",
      /proxy: 'log stdout' repeats every message/,
    ],
  ];
  for (const [what, from, to, expected] of broken) {
    assert.ok(text.includes(from), `${what}: the mutation did not apply`);
    const problems = composeProblems(parseCompose(text.replace(from, to)), { proxy: PROXY, configMount: CONFIG_MOUNT });
    assert.ok(
      problems.some((problem) => expected.test(problem)),
      `${what}: expected ${expected}, got ${JSON.stringify(problems)}`,
    );
  }
});

test("the compose proxy: haproxy accepts its configuration, and it forwards 443 and 4840 to the gateways' ports", (t) => {
  const compose = readCompose(at("docker-compose.yml"));
  const config = proxyConfig(compose, PROXY);
  const dir = tempDir(t, "proxy");
  writeFileSync(join(dir, "haproxy.cfg"), config);
  const checked = runTool("haproxy", ["-c", "-f", join(dir, "haproxy.cfg")]);
  assert.equal(checked.status, 0, checked.stderr + checked.stdout);

  const views = composeServiceViews(compose, PROXY);
  assert.deepEqual(
    proxyRoutes(config)
      .map((route) => `${route.service}:${route.port}`)
      .sort(),
    ["http-gateway:8443", "opcua-gateway:4840"],
  );
  assert.deepEqual(views["http-gateway"]!.published, [{ host: 443, container: 8443 }]);
  assert.deepEqual(views["opcua-gateway"]!.published, [{ host: 4840, container: 4840 }]);

  writeFileSync(join(dir, "broken.cfg"), config.replace("balance leastconn", "balance fastest"));
  assert.notEqual(
    runTool("haproxy", ["-c", "-f", join(dir, "broken.cfg")]).status,
    0,
    "haproxy accepted an unknown balance algorithm",
  );
});

/** Runs haproxy in the foreground as the compose proxy does until `until` shows in its output; the lines it printed. */
async function runHaproxy(
  file: string,
  until: (output: string) => boolean,
): Promise<{ stdout: string[]; stderr: string[] }> {
  const child = spawn("haproxy", ["-W", "-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 15_000;
  while (!until(stdout + stderr) && child.exitCode === null && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  child.kill("SIGTERM");
  await exited;
  return { stdout: stdout.split("\n").filter(Boolean), stderr: stderr.split("\n").filter(Boolean) };
}

test("the compose proxy prints each event once (haproxy in the foreground prints it on stderr; no second copy on stdout)", async (t) => {
  const config = proxyConfig(readCompose(at("docker-compose.yml")), PROXY);
  // The real configuration, moved onto loopback: free ports for the listeners, and every backend
  // server on a port where nothing listens, so haproxy reports both backends down.
  const closed = await freePort();
  const https = await freePort();
  const opcua = await freePort();
  const local = (text: string) =>
    text
      .replace(/^(\s*)bind :8443$/m, `$1bind 127.0.0.1:${https}`)
      .replace(/^(\s*)bind :4840$/m, `$1bind 127.0.0.1:${opcua}`)
      .replace(/^\s*resolvers docker\n[\s\S]*?(?=^\s*frontend )/m, "") // Docker's DNS is not here
      .replace(/ resolvers docker init-addr none/g, "")
      .replace(/check port 9464 inter 2s/g, `check port ${closed} inter 100ms`)
      .replace(/server-template (\w+) \d+ [\w-]+:\d+/g, `server $1 127.0.0.1:${closed}`);
  const dir = tempDir(t, "proxy-logs");
  const events = (output: { stdout: string[]; stderr: string[] }) =>
    // stderr lines carry "[WARNING]  (pid) : "; what follows is the message.
    [...output.stdout, ...output.stderr.map((line) => line.replace(/^\[\w+\]\s+\(\d+\) : /, ""))].filter((line) =>
      /is DOWN|has no server available/.test(line),
    );

  writeFileSync(join(dir, "haproxy.cfg"), local(config));
  assert.notEqual(local(config), config, "the loopback rewrite did not apply");
  const output = await runHaproxy(
    join(dir, "haproxy.cfg"),
    (text) => (text.match(/has no server available/g)?.length ?? 0) >= 2,
  );
  const seen = events(output);
  assert.ok(seen.length >= 4, `haproxy reported no backend down: ${JSON.stringify(output)}`);
  assert.deepEqual(
    seen.filter((line, index) => seen.indexOf(line) !== index),
    [],
    "a message printed twice",
  );

  // The configuration as it was (a log target on stdout): every message twice, which the check names.
  const twice = local(config)
    .replace(/^(\s*)global$/m, "$1global\n$1  log stdout format raw local0 notice")
    .replace(/^(\s*)defaults$/m, "$1defaults\n$1  log global");
  writeFileSync(join(dir, "twice.cfg"), twice);
  const doubled = events(
    await runHaproxy(join(dir, "twice.cfg"), (text) => (text.match(/has no server available/g)?.length ?? 0) >= 4),
  );
  assert.ok(
    doubled.some((line, index) => doubled.indexOf(line) !== index),
    `expected duplicates: ${JSON.stringify(doubled)}`,
  );
});

test("the HEALTHCHECK command (Dockerfile and compose), run by a real bash, succeeds only when /health answers 200 on the management port", async (t) => {
  const command = healthcheckCommand(read("Dockerfile"));
  assert.ok(command, "no exec-form HEALTHCHECK");
  assert.equal(command[0], "bash", "the check runs in bash (node:24-slim has it; no Node process)");
  const compose = readCompose(at("docker-compose.yml"));
  for (const name of TWINPORT_SERVICES) {
    // Compose reads `$$` as `$`: the check it runs is the image's, word for word.
    const test = (compose.services[name]!.healthcheck as { test: string[] }).test.map(interpolateUnset);
    assert.deepEqual(test, ["CMD", ...command], `${name}: the compose healthcheck differs from the image's`);
  }
  const runCheck = (managementPort: number) =>
    new Promise<{ code: number | null; ms: number }>((resolve) => {
      const startedAt = Date.now();
      const [program, ...args] = command;
      const child = spawn(program!, args, {
        env: { PATH: process.env.PATH, TWINPORT_CORE_MANAGEMENTPORT: String(managementPort) },
        stdio: "ignore",
      });
      child.on("exit", (code) => resolve({ code, ms: Date.now() - startedAt }));
    });

  // A stand-in server: what the check asks, and each answer it must judge.
  let status = 200;
  let asked = "";
  let hang = false;
  const server = createHttpServer((request, response) => {
    asked = `${request.method} ${request.url}`;
    if (!hang) response.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  try {
    assert.equal((await runCheck(port)).code, 0);
    assert.equal(asked, "GET /health");
    status = 503;
    assert.notEqual((await runCheck(port)).code, 0, "503 must fail the check");
    status = 204;
    assert.notEqual((await runCheck(port)).code, 0, "only 200 passes");
    hang = true;
    const hung = await runCheck(port);
    assert.notEqual(hung.code, 0, "a server that never answers must fail the check");
    assert.ok(hung.ms < 9_000, `the check gave up after ${hung.ms} ms, past the HEALTHCHECK timeout`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  assert.notEqual((await runCheck(port)).code, 0, "a closed port must fail the check");

  // A real twinport process (the compiled entry, as in the image), its management port moved by
  // the same variable the check reads.
  const dir = tempDir(t, "healthcheck");
  const managementPort = await freePort();
  const httpPort = await freePort();
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      core: { stateDir: join(dir, "state") },
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: false }],
    }),
  );
  const twinport = spawnTwinport(["-c", join(dir, "config.json"), "--empty-model"], {
    cwd: dir,
    env: { NODE_OPTIONS: "", TWINPORT_CORE_MANAGEMENTPORT: String(managementPort) },
    readyTimeoutMs: 60_000,
  });
  try {
    await twinport.ready;
    const check = await runCheck(managementPort);
    assert.equal(check.code, 0, twinport.stderr());
    assert.ok(check.ms < 2_000, `the check took ${check.ms} ms`);
  } finally {
    assert.equal(await twinport.stop(), 0, twinport.stderr());
  }
  assert.notEqual((await runCheck(managementPort)).code, 0, "a stopped process must fail the check");
});

test("k8s/: every kustomization renders with kubectl kustomize and stays within old kustomize's subset", (t) => {
  assert.ok(
    K8S_DIRS.includes("k8s") && K8S_DIRS.includes("k8s/base") && K8S_DIRS.includes("k8s/overlays/single-node"),
    JSON.stringify(K8S_DIRS),
  );
  for (const dir of K8S_DIRS) {
    assert.ok(rendered(dir).length > 10, `${dir} rendered too few objects`);
    assert.deepEqual(oldKustomizeProblems(at(dir)), [], dir);
  }
  // A broken copy: kustomize refuses a missing file, and the subset check names newer syntax.
  const copy = join(tempDir(t, "k8s"), "k8s");
  cpSync(at("k8s"), copy, { recursive: true });
  const overlay = join(copy, "overlays/single-node/kustomization.yaml");
  const overlayText = readFileSync(overlay, "utf8");
  writeFileSync(overlay, overlayText.replace("  - volumes.yaml\n", "  - volumes.yaml\n  - storage.yaml\n"));
  assert.throws(() => renderKustomization(join(copy, "overlays/single-node")), /storage\.yaml/);
  writeFileSync(overlay, overlayText.replace("bases:\n", "resources:\n").replace("patchesStrategicMerge:", "patches:"));
  const problems = oldKustomizeProblems(join(copy, "overlays/single-node"));
  assert.ok(
    problems.some((problem) => /directory '\.\.\/\.\.\/base' under resources/.test(problem)),
    JSON.stringify(problems),
  );
  assert.ok(
    problems.some((problem) => /'patches' is unknown to old kustomize/.test(problem)),
    JSON.stringify(problems),
  );
});

test("k8s/: every rendered object validates against the Kubernetes schemas and names no unknown field", async () => {
  const objects = DEPLOYABLE.flatMap((dir) => rendered(dir));
  assert.deepEqual(await schemaProblems(objects), []);

  const deployment = structuredClone(objects.find((object) => object.kind === "Deployment")!);
  deployment.spec.template.spec.containers[0].ports[0].containerPort = "https";
  const wrongType = await schemaProblems([deployment]);
  assert.ok(
    wrongType.some((problem) => /containerPort must be integer/.test(problem)),
    JSON.stringify(wrongType),
  );
  assert.ok(
    (await schemaProblems([{ apiVersion: "apps/v9", kind: "Deployment", metadata: { name: "x" } }])).length === 1,
  );

  // One compiler run: the real objects must be clean, the misspelled copy must be named.
  const misspelled = structuredClone(objects.find((object) => object.kind === "Deployment")!);
  const container = misspelled.spec.template.spec.containers[0];
  container.readinesProbe = container.readinessProbe;
  delete container.readinessProbe;
  misspelled.metadata.name = "misspelled";
  const unknown = unknownFieldProblems([...objects, misspelled]);
  assert.equal(unknown.length, 1, JSON.stringify(unknown));
  assert.match(unknown[0]!, /^Deployment\/misspelled: .*readinesProbe.* does not exist in type 'IContainer'/);
});

test("k8s/: namespace, probes, resources, PodDisruptionBudgets, autoscalers, Services, persistent StatefulSets, NetworkPolicies, no service links", () => {
  for (const dir of DEPLOYABLE) {
    const objects = rendered(dir);
    assert.deepEqual(k8sProblems(objects, K8S_RULES), [], dir);
    // Only the services reach Redis and NATS; no gateway reaches Redis (docs/architecture.md §3).
    assert.deepEqual(allowedClients(objects, "redis"), ["model-store"], dir);
    assert.deepEqual(allowedClients(objects, "nats"), ["http-gateway", "model-store", "opcua-gateway"], dir);
    const services = objects.filter((object) => object.kind === "Service");
    assert.equal(services.find((service) => service.metadata.name === "http-gateway")?.spec.type, "ClusterIP", dir);
    assert.equal(
      services.find((service) => service.metadata.name === "opcua-gateway")?.spec.ports[0].protocol,
      "TCP",
      dir,
    );
  }
  const single = rendered("k8s/overlays/single-node");
  for (const hpa of single.filter((object) => object.kind === "HorizontalPodAutoscaler"))
    assert.equal(hpa.spec.minReplicas, 1, hpa.metadata.name);

  const objects = rendered("k8s");
  const broken: [string, (objects: K8sObject[]) => void, RegExp][] = [
    [
      "service links on",
      (o) =>
        (o.find(
          (x) => x.metadata.name === "http-gateway" && x.kind === "Deployment",
        )!.spec.template.spec.enableServiceLinks = true),
      /Deployment\/http-gateway: enableServiceLinks must be false/,
    ],
    [
      "no budget",
      (o) =>
        o.splice(
          o.findIndex((x) => x.kind === "PodDisruptionBudget" && x.metadata.name === "model-store"),
          1,
        ),
      /Deployment\/model-store: no PodDisruptionBudget/,
    ],
    [
      "no autoscaler",
      (o) =>
        o.splice(
          o.findIndex((x) => x.kind === "HorizontalPodAutoscaler" && x.metadata.name === "opcua-gateway"),
          1,
        ),
      /Deployment\/opcua-gateway: no HorizontalPodAutoscaler/,
    ],
    [
      "fixed replicas",
      (o) => (o.find((x) => x.metadata.name === "model-store" && x.kind === "Deployment")!.spec.replicas = 3),
      /sets replicas/,
    ],
    [
      "no readiness probe",
      (o) =>
        delete o.find((x) => x.metadata.name === "http-gateway" && x.kind === "Deployment")!.spec.template.spec
          .containers[0].readinessProbe,
      /no readinessProbe/,
    ],
    [
      "no shutdown delay",
      (o) => {
        const container = o.find((x) => x.metadata.name === "opcua-gateway" && x.kind === "Deployment")!.spec.template
          .spec.containers[0];
        container.env = container.env.filter((entry: { name: string }) => entry.name !== "TWINPORT_CORE_SHUTDOWNDELAY");
      },
      /Deployment\/opcua-gateway: no TWINPORT_CORE_SHUTDOWNDELAY/,
    ],
    [
      "grace period shorter than delay and shutdown",
      (o) =>
        (o.find(
          (x) => x.metadata.name === "http-gateway" && x.kind === "Deployment",
        )!.spec.template.spec.terminationGracePeriodSeconds = 30),
      /Deployment\/http-gateway: terminationGracePeriodSeconds 30 does not cover the shutdown delay \(5 s\)/,
    ],
    [
      "Redis on an emptyDir",
      (o) => delete o.find((x) => x.metadata.name === "redis" && x.kind === "StatefulSet")!.spec.volumeClaimTemplates,
      /StatefulSet\/redis: its data is not on a persistent volume claim/,
    ],
    [
      "no policy for NATS",
      (o) =>
        o.splice(
          o.findIndex((x) => x.kind === "NetworkPolicy" && x.metadata.name === "nats"),
          1,
        ),
      /StatefulSet\/nats: no NetworkPolicy/,
    ],
    [
      "config map missing",
      (o) =>
        o.splice(
          o.findIndex((x) => x.kind === "ConfigMap" && x.metadata.name.startsWith("twinport-settings")),
          1,
        ),
      /reads twinport-settings-\w+\/opcua-hostname/,
    ],
  ];
  for (const [what, breakIt, expected] of broken) {
    const copy = structuredClone(objects);
    breakIt(copy);
    const problems = k8sProblems(copy, K8S_RULES);
    assert.ok(
      problems.some((problem) => expected.test(problem)),
      `${what}: expected ${expected}, got ${JSON.stringify(problems)}`,
    );
  }
  const opened = structuredClone(objects);
  opened
    .find((x) => x.kind === "NetworkPolicy" && x.metadata.name === "redis")!
    .spec.ingress[0].from.push({ podSelector: { matchLabels: { "app.kubernetes.io/name": "http-gateway" } } });
  assert.deepEqual(allowedClients(opened, "redis"), ["http-gateway", "model-store"]);
});

test("docker-compose.yml and k8s/ agree on every service's image, command, environment keys, ports and health check", (t) => {
  const compose = composeServiceViews(readCompose(at("docker-compose.yml")), PROXY);
  for (const dir of DEPLOYABLE) {
    assert.deepEqual(parityProblems(compose, k8sViews(rendered(dir)), { published: TWINPORT_SERVICES }), [], dir);
  }
  const k8s = k8sViews(rendered("k8s"));

  // A compose file that drifted: renamed variable, changed command, moved port.
  const dir = tempDir(t, "parity");
  const drifted = read("docker-compose.yml")
    .replace(
      '["http-gateway", "-c", "/etc/twinport/config.json"]\n    environment:\n      TWINPORT_MESSAGEBUS_URL: nats://nats:4222\n',
      '["http-gateway", "-c", "/etc/twinport/config.json"]\n    environment:\n      TWINPORT_MESSAGEBUS_SERVERS: nats://nats:4222\n',
    )
    .replace(
      '["opcua-gateway", "-c", "/etc/twinport/config.json"]',
      '["opcua-gateway", "-c", "/etc/twinport/opcua.json"]',
    )
    .replace('"443:8443"', '"8443:8443"');
  writeFileSync(join(dir, "docker-compose.yml"), drifted);
  const problems = parityProblems(composeServiceViews(readCompose(join(dir, "docker-compose.yml")), PROXY), k8s, {
    published: TWINPORT_SERVICES,
  });
  for (const expected of [
    /^http-gateway: environment TWINPORT_MESSAGEBUS_SERVERS only in docker-compose\.yml$/,
    /^http-gateway: environment TWINPORT_MESSAGEBUS_URL only in k8s\/$/,
    /^opcua-gateway: command .*opcua\.json.* in docker-compose\.yml, args .*config\.json.* in k8s\/$/,
    /^http-gateway: offered to clients as \["8443->8443"\] in docker-compose\.yml, \["443->8443"\] in k8s\/$/,
  ]) {
    assert.ok(
      problems.some((problem) => expected.test(problem)),
      `expected ${expected}, got ${JSON.stringify(problems)}`,
    );
  }
  // Manifests that drifted: another container port, another image, another liveness path.
  const objects = rendered("k8s");
  const nats = objects.find((x) => x.kind === "StatefulSet" && x.metadata.name === "nats")!;
  nats.spec.template.spec.containers[0].ports[1].containerPort = 8223;
  nats.spec.template.spec.containers[0].image = "nats:2.9-alpine";
  const store = objects.find((x) => x.kind === "Deployment" && x.metadata.name === "model-store")!;
  store.spec.template.spec.containers[0].livenessProbe.httpGet.path = "/healthz";
  const k8sProblemsFound = parityProblems(
    composeServiceViews(readCompose(at("docker-compose.yml")), PROXY),
    k8sViews(objects),
    { published: TWINPORT_SERVICES },
  );
  for (const expected of [
    /^nats: container ports \[4222,8222\] in docker-compose\.yml, \[4222,8223\] in k8s\/$/,
    /^nats: image nats:2\.10-alpine in docker-compose\.yml, nats:2\.9-alpine in k8s\/$/,
    /^model-store: health check .*\/health.* liveness probe .*\/healthz/,
  ]) {
    assert.ok(
      k8sProblemsFound.some((problem) => expected.test(problem)),
      `expected ${expected}, got ${JSON.stringify(k8sProblemsFound)}`,
    );
  }
});

test("each Twinport container loads its configuration without warnings, binds every interface and reaches redis and nats by service name", (t) => {
  const compose = composeServiceViews(readCompose(at("docker-compose.yml")), PROXY);
  const composeFiles = { ...IMAGE_FILES, [CONFIG_MOUNT]: at("examples/config-container.json") };
  for (const name of TWINPORT_SERVICES) {
    assert.deepEqual(
      containerConfigProblems(name, compose[name]!, {
        files: composeFiles,
        services: compose,
        writableRoot: "/data",
        opcuaHostname: name === "opcua-gateway" ? "localhost" : undefined,
      }),
      [],
      `compose ${name}`,
    );
  }
  // Kubernetes mounts the ConfigMap's config.json, which must be examples/config-container.json.
  const dir = tempDir(t, "k8s-config");
  for (const kustomization of DEPLOYABLE) {
    const objects = rendered(kustomization);
    const configMap = objects.find(
      (object) => object.kind === "ConfigMap" && object.metadata.name.startsWith("twinport-config-"),
    )!;
    assert.deepEqual(
      JSON.parse(configMap.data["config.json"]),
      JSON.parse(read("examples/config-container.json")),
      `${kustomization}: k8s/base/config.json differs from examples/config-container.json`,
    );
    const file = join(dir, `${kustomization.replace(/\//g, "-")}.json`);
    writeFileSync(file, configMap.data["config.json"]);
    const views = k8sViews(objects);
    const hostname = objects.find(
      (object) => object.kind === "ConfigMap" && object.metadata.name.startsWith("twinport-settings-"),
    )!.data["opcua-hostname"];
    for (const name of TWINPORT_SERVICES) {
      const deployment = objects.find((object) => object.kind === "Deployment" && object.metadata.name === name)!;
      const configVolume = deployment.spec.template.spec.volumes.find(
        (volume: any) => volume.configMap?.name === configMap.metadata.name,
      );
      const mount = deployment.spec.template.spec.containers[0].volumeMounts.find(
        (entry: any) => entry.name === configVolume?.name,
      );
      assert.equal(
        mount?.mountPath,
        "/etc/twinport",
        `${kustomization} ${name}: the config is not mounted at /etc/twinport`,
      );
      assert.deepEqual(
        containerConfigProblems(name, views[name]!, {
          files: { ...IMAGE_FILES, [CONFIG_MOUNT]: file },
          services: views,
          writableRoot: "/data",
          opcuaHostname: name === "opcua-gateway" ? hostname : undefined,
        }),
        [],
        `${kustomization} ${name}`,
      );
    }
  }
  // Every OPC UA replica serves the one certificate from the Secret (docs/architecture.md §8), found where
  // the gateway looks for it with the host name each kustomization advertises.
  for (const kustomization of DEPLOYABLE) {
    const objects = rendered(kustomization);
    const file = join(dir, `${kustomization.replace(/\//g, "-")}.json`);
    const endpoint = containerConfig(k8sViews(objects)["opcua-gateway"]!, {
      ...IMAGE_FILES,
      [CONFIG_MOUNT]: file,
    }).endpoints.find(isOpcUaEndpoint)!;
    assert.deepEqual(
      opcuaCertificateProblems(
        objects,
        { hostname: endpoint.hostname!, serverCertificateBasePath: endpoint.serverCertificateBasePath },
        OPCUA_CERTIFICATE_SECRET,
      ),
      [],
      kustomization,
    );
  }
  const moved = rendered("k8s/overlays/single-node");
  moved.find((object) => object.kind === "ConfigMap" && object.metadata.name.startsWith("twinport-settings-"))!.data[
    "opcua-hostname"
  ] = "edge-box.example";
  const movedEndpoint = containerConfig(k8sViews(moved)["opcua-gateway"]!, {
    ...IMAGE_FILES,
    [CONFIG_MOUNT]: at("examples/config-container.json"),
  }).endpoints.find(isOpcUaEndpoint)!;
  assert.equal(movedEndpoint.hostname, "edge-box.example");
  const stale = opcuaCertificateProblems(
    moved,
    { hostname: movedEndpoint.hostname!, serverCertificateBasePath: movedEndpoint.serverCertificateBasePath },
    OPCUA_CERTIFICATE_SECRET,
  );
  assert.ok(
    stale.some((problem) =>
      /the gateway looks for "Twinport AAS OPC UA Server@edge-box\.example_2048\.der"/.test(problem),
    ),
    JSON.stringify(stale),
  );

  // The checker fails for real reasons: an override that names no setting, a loopback bind, a wrong address.
  const http = structuredClone(compose["http-gateway"]!);
  http.env.TWINPORT_MESSAGEBUS_URLS = "nats://nats:4222";
  http.env.TWINPORT_ENDPOINTS_0_HOST = "127.0.0.1";
  http.env.TWINPORT_MESSAGEBUS_URL = "nats://message-bus:4222";
  const problems = containerConfigProblems("http-gateway", http, {
    files: composeFiles,
    services: compose,
    writableRoot: "/data",
  });
  for (const expected of [
    /Ignoring environment variable TWINPORT_MESSAGEBUS_URLS/,
    /binds 127\.0\.0\.1/,
    /does not name the nats service/,
  ]) {
    assert.ok(
      problems.some((problem) => expected.test(problem)),
      `expected ${expected}, got ${JSON.stringify(problems)}`,
    );
  }
});

/** Starts a server binary with a deployment's command line plus local overrides appended (the last value of a flag wins). */
async function startWith(
  command: readonly string[],
  extra: string[],
  cwd: string,
  port: number,
): Promise<ChildProcess> {
  const binary = serverBinary(command[0] as "redis-server" | "nats-server");
  const child = spawn(binary, [...command.slice(1), ...extra], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command[0]} exited with ${child.exitCode}: ${stderr}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return child;
    if (Date.now() > until) throw new Error(`${command[0]} did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

function redisCommand(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString();
      // CONFIG GET answers an array of two bulk strings: *2, $n, name, $n, value.
      if (data.split("\r\n").length >= 6) {
        socket.destroy();
        resolve(data.split("\r\n")[4]!);
      }
    });
    socket.on("error", reject);
    socket.write(`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join("")}`);
  });
}

test("the redis and nats command lines of the deployments start the real servers with AOF fsync always and JetStream on the data folder", async (t) => {
  const compose = composeServiceViews(readCompose(at("docker-compose.yml")), PROXY);
  const dir = tempDir(t, "infra");

  const redisPort = await freePort();
  const redis = await startWith(
    compose.redis!.command!,
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", ""],
    dir,
    redisPort,
  );
  try {
    assert.equal(await redisCommand(redisPort, "CONFIG", "GET", "appendonly"), "yes");
    assert.equal(await redisCommand(redisPort, "CONFIG", "GET", "appendfsync"), "always");
    // The image's working directory (/data, the volume) is where Redis keeps its files.
    assert.equal(await redisCommand(redisPort, "CONFIG", "GET", "dir"), dir);
  } finally {
    await stopProcess(redis);
  }

  const natsPort = await freePort();
  const monitorPort = await freePort();
  const store = join(dir, "js");
  const command = compose.nats!.command!;
  const nats = await startWith(
    command,
    ["-a", "127.0.0.1", "-p", String(natsPort), "-m", String(monitorPort), "-sd", store],
    dir,
    natsPort,
  );
  try {
    const varz = (await (await fetch(`http://127.0.0.1:${monitorPort}/varz`)).json()) as {
      server_name: string;
      jetstream?: { config?: { store_dir?: string } };
    };
    assert.equal(varz.server_name, command[command.indexOf("--name") + 1]);
    assert.equal(varz.jetstream?.config?.store_dir, join(store, "jetstream"));
    assert.equal((await fetch(`http://127.0.0.1:${monitorPort}/healthz`)).status, 200);
  } finally {
    await stopProcess(nats);
  }
  // The same command lines as the manifests carry them.
  const k8s = k8sViews(rendered("k8s"));
  assert.deepEqual(k8s.redis!.command, compose.redis!.command);
  assert.deepEqual(k8s.nats!.command, compose.nats!.command);
});
