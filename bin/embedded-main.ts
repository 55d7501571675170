// The embedded program: `twinport` or `twinport embedded`: everything in one process.
import { runRole } from "@twinport/shared";
import { startEmbedded } from "./embedded.ts";

await runRole({ role: "embedded", argv: process.argv.slice(2), io: process, start: startEmbedded });
