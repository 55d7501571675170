// The explicit surface of @twinport/opcua-gateway.
export { startOpcuaGateway, AAS_ENVIRONMENT_BROWSE_NAME, type OpcuaGatewayDeps, type RunningOpcuaGateway } from "./start-opcua-gateway.ts";
export { routeNodeOpcuaLogsTo, type LogLine } from "./node-opcua-logging.ts";
export { startOpcuaGatewayProcess } from "./opcua-gateway-process.ts";
export { principalOfSession, principalOfIdentityToken } from "./security/session-principal.ts";
// The AAS address space on a server of one's own (benchmarks, embedding): aasServerOptions(), initialize, attach.
export { AAS_NODESETS, AAS_V3_NAMESPACE_URI } from "./address-space/aas-types.ts";
export { aasServerOptions } from "./address-space/server-options.ts";
export { attachAddressSpace, isReadOnlyEndpoint, type AddressSpaceDeps, type AttachedAddressSpace } from "./address-space/attach-address-space.ts";
