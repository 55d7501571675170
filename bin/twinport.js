#!/usr/bin/env node
// The `twinport` command. Production runs the compiled JavaScript (dist/ in each package, built by
// `npm run build`, which `npm ci` and `npm start` run); tests and development run the TypeScript
// sources through tsx by starting node with `--conditions=twinport-source --import=tsx` (scripts/test.sh
// puts both in NODE_OPTIONS, so every process a test spawns does the same). Which of the two this
// is follows from the package exports and the "#…" imports of package.json (docs/adr/0021).
// First, before anything allocates: the heap settings (ADR 0043) hold for the whole process.
import { startUpDone } from "./heap-settings.js";

// Node 20 is past end of life and node-opcua needs Node >= 22.13: refuse older runtimes with a clear
// word instead of a stack trace. npm scripts and npx put the project's own Node 24 (the `node`
// devDependency) first on PATH, so `npm start` works on a machine whose system Node is older.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  process.stderr.write(
    `twinport needs Node.js 24 or later; this is ${process.version}. Run it through npm (npm start, npx twinport), which uses the Node.js 24 that npm ci installs into node_modules, or install Node.js 24.\n`,
  );
  process.exit(1);
}
// --help and --version answer from the command-line parser alone (node:util, no other import):
// loading a role for them costs seconds of CPU. A command line that does not parse goes on to the
// role, which reports the mistake with its exit code.
const { HELP_TEXT, parseCommandLine } = await import("@twinport/shared/command-line");
let commandLine;
try {
  commandLine = parseCommandLine(process.argv.slice(2));
} catch {
  commandLine = undefined;
}
if (commandLine?.help) {
  process.stdout.write(HELP_TEXT);
} else if (commandLine?.version) {
  const { readFileSync } = await import("node:fs");
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`twinport ${version}\n`);
} else {
  await import("#cli");
  // Ready (or failed): from now on the young generation may grow, up to its cap (ADR 0043).
  startUpDone();
}
