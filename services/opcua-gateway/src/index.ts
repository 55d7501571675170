// The explicit surface of @twinport/opcua-gateway.

// The AAS address space on a server of one's own (benchmarks, embedding): aasServerOptions(), initialize, attach.
export { AAS_NODESETS, AAS_V3_NAMESPACE_URI } from "./address-space/aas-types.ts";
export {
  type AddressSpaceDeps,
  type AttachedAddressSpace,
  attachAddressSpace,
  isReadOnlyEndpoint,
} from "./address-space/attach-address-space.ts";
export { aasServerOptions } from "./address-space/server-options.ts";
export { type LogLine, routeNodeOpcuaLogsTo } from "./node-opcua-logging.ts";
export { startOpcuaGatewayProcess } from "./opcua-gateway-process.ts";
export { principalOfIdentityToken, principalOfSession } from "./security/session-principal.ts";
export {
  AAS_ENVIRONMENT_BROWSE_NAME,
  type OpcuaGatewayDeps,
  type RunningOpcuaGateway,
  startOpcuaGateway,
} from "./start-opcua-gateway.ts";
