/**
 * npm run build (also run by `npm ci` through `prepare`, and before `npm start`): compiles every
 * package to JavaScript with tsc's build mode (tsconfig.build.json; incremental, so a build with
 * nothing changed takes about a second) and copies the files the code reads at run time (the
 * OPC UA nodeset XML, …) beside the output, at the same relative place as in src/. Production runs
 * only this output (docs/adr/0021). Plain erasable TypeScript: Node 24 runs it without tsx, which
 * the Docker build stage relies on. Last, Vite builds the web console (console/ → console/dist,
 * docs/adr/0033) when its sources changed since its last build.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
/** Source folders and where their output goes (tsconfig.build.json and the packages' tsconfig.build.json). */
const PACKAGES = [
  { src: "libs/shared/src", dist: "libs/shared/dist" },
  { src: "services/model-store/src", dist: "services/model-store/dist" },
  { src: "services/http-gateway/src", dist: "services/http-gateway/dist" },
  { src: "services/opcua-gateway/src", dist: "services/opcua-gateway/dist" },
];
/** Never shipped: tests and test support (the same rule as .dockerignore and the tsconfig excludes). */
const TEST_ONLY = /(^|\/)test-support(\/|$)|\.test\.[^/]+$/;

let tsc: string;
try {
  tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
} catch {
  // `npm ci --omit=dev` runs `prepare` too, without the compiler: a production install of a
  // checkout has nothing to build with, and must not fail for it (the image builds in its own stage).
  if (process.env.npm_lifecycle_event === "prepare") {
    console.log("build: typescript is not installed (production install), nothing compiled");
    process.exit(0);
  }
  throw new Error("build: typescript is not installed; run npm ci");
}
const build = spawnSync(process.execPath, [tsc, "-b", join(root, "tsconfig.build.json")], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

function* assets(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (TEST_ONLY.test(path)) continue;
    if (entry.isDirectory()) yield* assets(path);
    else if (!/\.[cm]?ts$/.test(entry.name)) yield path;
  }
}
let copied = 0;
for (const { src, dist } of PACKAGES) {
  for (const file of assets(join(root, src))) {
    const target = join(root, dist, relative(join(root, src), file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
    copied++;
  }
}
console.log(`build: compiled to dist/, ${copied} runtime asset(s) copied`);

/** The newest modification time among the console's sources (src/, index.html, its config and manifest). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "dist" || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}
const consoleDir = join(root, "console");
const consoleIndex = join(consoleDir, "dist/index.html");
if (existsSync(consoleIndex) && statSync(consoleIndex).mtimeMs >= newestSource(consoleDir)) {
  console.log("build: web console up to date (console/dist)");
} else {
  // Vite is a dev dependency like the compiler: present wherever the compiler was found above.
  const { build: viteBuild } = await import("vite");
  await viteBuild({ root: consoleDir, configFile: join(consoleDir, "vite.config.ts"), logLevel: "warn" });
  console.log("build: web console built (console/dist)");
}
