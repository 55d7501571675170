// The http-gateway program: `twinport http-gateway [options]` (or this file run with tsx).
import { runRole } from "@twinport/shared";
import { startHttpGateway } from "./http-gateway-process.ts";

await runRole({
  role: "http-gateway",
  argv: process.argv.slice(2),
  io: process,
  start: ({ config, metrics, logger }) => startHttpGateway(config, { metrics, logger }),
});
