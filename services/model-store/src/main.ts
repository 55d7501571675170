// The model-store program: `twinport model-store [options]` (or this file run with tsx).
import { runRole } from "@twinport/shared";
import { startModelStore } from "./model-store-process.ts";

await runRole({
  role: "model-store",
  argv: process.argv.slice(2),
  io: process,
  start: ({ config, models, validateOnLoad, log, metrics, logger, fail }) =>
    startModelStore(config, { models, validateOnLoad, log, metrics, logger, fail }),
});
