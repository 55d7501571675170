#!/usr/bin/env node
// The `twinport` command. The sources are TypeScript run without a build step: register tsx's
// loader first, then hand over to the CLI (a dynamic import, so it resolves after the loader is in).
import { register } from "tsx/esm/api";

register();
// BASIC128RSA15 needs node started with a flag: then the command runs again under it.
const securityRevert = await import("./security-revert.ts");
if (securityRevert.needsRerun(process)) securityRevert.rerunWithSecurityRevert(process);
else await import("./cli.ts");
