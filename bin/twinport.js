#!/usr/bin/env node
// The `twinport` command. The sources are TypeScript run without a build step: register tsx's
// loader first, then hand over to the CLI (a dynamic import, so it resolves after the loader is in).
// Node 20 is past end of life and node-opcua needs Node >= 22.13: refuse older runtimes with a clear
// word instead of a stack trace. npm scripts and npx put the project's own Node 24 (the `node`
// devDependency) first on PATH, so `npm start` works on a machine whose system Node is older.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  process.stderr.write(`twinport needs Node.js 24 or later; this is ${process.version}. Run it through npm (npm start, npx twinport), which uses the Node.js 24 that npm ci installs into node_modules, or install Node.js 24.\n`);
  process.exit(1);
}
const { register } = await import("tsx/esm/api");

register();
// BASIC128RSA15 needs node started with a flag: then the command runs again under it.
const securityRevert = await import("./security-revert.ts");
if (securityRevert.needsRerun(process)) securityRevert.rerunWithSecurityRevert(process);
else await import("./cli.ts");
