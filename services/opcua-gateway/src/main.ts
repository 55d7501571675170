// The opcua-gateway program: `twinport opcua-gateway [options]` (or this file run with tsx).
import { runRole } from "@twinport/shared";
import { startOpcuaGatewayProcess } from "./opcua-gateway-process.ts";

await runRole({
  role: "opcua-gateway",
  argv: process.argv.slice(2),
  io: process,
  start: ({ config, log, metrics, logger }) => startOpcuaGatewayProcess(config, { log, metrics, logger }),
});
