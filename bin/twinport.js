#!/usr/bin/env node
// The `twinport` command. The sources are TypeScript run without a build step: register tsx's
// loader first, then hand over to the CLI (a dynamic import, so it resolves after the loader is in).
import { register } from "tsx/esm/api";

register();
await import("./cli.ts");
