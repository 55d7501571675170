// The explicit surface of @twinport/opcua-gateway.
export { startOpcuaGateway, AAS_ENVIRONMENT_BROWSE_NAME, type OpcuaGatewayDeps, type RunningOpcuaGateway } from "./start-opcua-gateway.ts";
export { routeNodeOpcuaLogs, type LogLine } from "./node-opcua-logging.ts";
export { startOpcuaGatewayProcess } from "./opcua-gateway-process.ts";
