// Configuration: one JSON file in the spec's shape, overridden by TWINPORT_* variables and
// `path=value` arguments, validated with zod; every property has the spec's default.
export { ConfigError, formatConfigPath } from "./config-error.ts";
export { loadConfig, type ConfigRole, type LoadConfigOptions, type LoadedConfig } from "./load-config.ts";
export { validateConfig, type TwinportConfig } from "./validate-config.ts";
export { classSuffix } from "./class-names.ts";
export { aasxLimitsOf, DEFAULT_MANAGEMENT_PORT, isoDurationToMs, type CoreConfig } from "./core.ts";
export { registryApiRoot, type RegistryConfig, type RegistrySynchronizationConfig } from "./registries.ts";
export { ENDPOINT_PROFILES, type EndpointProfile } from "./endpoint-common.ts";
export { HTTP_ENDPOINT_CLASS, type HttpEndpointConfig } from "./http-endpoint.ts";
export {
  OPCUA_ENDPOINT_CLASS,
  OPCUA_SECURITY_POLICIES,
  OPCUA_AUTHENTICATIONS,
  type OpcUaEndpointConfig,
  type OpcUaSecurityPolicy,
  type OpcUaAuthentication,
} from "./opcua-endpoint.ts";
export { ENDPOINT_CLASS_BY_KIND, isHttpEndpoint, isOpcUaEndpoint, type EndpointConfig, type EndpointKind } from "./endpoints.ts";
export {
  PERSISTENCE_IN_MEMORY_CLASS,
  PERSISTENCE_REDIS_CLASS,
  type PersistenceConfig,
  type PersistenceInMemoryConfig,
  type PersistenceRedisConfig,
} from "./persistence.ts";
export {
  MESSAGE_BUS_INTERNAL_CLASS,
  MESSAGE_BUS_NATS_CLASS,
  type MessageBusConfig,
  type MessageBusInternalConfig,
  type MessageBusNatsConfig,
} from "./message-bus.ts";
export {
  FILE_STORAGE_IN_MEMORY_CLASS,
  FILE_STORAGE_FILESYSTEM_CLASS,
  FILE_STORAGE_REDIS_CLASS,
  type FileStorageConfig,
  type FileStorageFilesystemConfig,
} from "./file-storage.ts";
export {
  HTTP_ASSET_CONNECTION_CLASS,
  OPCUA_ASSET_CONNECTION_CLASS,
  MQTT_ASSET_CONNECTION_CLASS,
  ASSET_CONNECTION_KNOWN_PROPERTIES,
  type AssetConnectionConfig,
  type HttpAssetConnectionConfig,
  type HttpValueProviderConfig,
  type HttpSubscriptionProviderConfig,
  type HttpOperationProviderConfig,
  type OpcUaAssetConnectionConfig,
  type OpcUaValueProviderConfig,
  type OpcUaSubscriptionProviderConfig,
  type OpcUaOperationProviderConfig,
  type MqttAssetConnectionConfig,
  type MqttValueProviderConfig,
  type MqttSubscriptionProviderConfig,
  MQTT_SERVER_URI_SCHEMES,
  type CertificateConfig,
  type ReadWriteMode,
  type ArgumentValidationMode,
} from "./asset-connections.ts";
export {
  AIMC_PROCESSOR_CLASS,
  derivedAssetConnection,
  type AimcProcessorConfig,
  type SubmodelTemplateProcessorConfig,
} from "./submodel-template-processors.ts";
export { providerTarget, parseReferenceText, ReferenceTextError, type ProviderTarget, type ReferenceKey } from "./asset-connection-reference.ts";
export { parseCommandLine, roleOf, UsageError, HELP_TEXT, ROLES, type CommandLine } from "./command-line.ts";
export {
  selectModelFiles,
  loadModelFiles,
  ModelFileError,
  type ModelFile,
  type ModelSelection,
  type ModelLoader,
  type LoadedModels,
} from "./model-files.ts";
export { runRole, type RoleContext, type RunningRole, type ProcessIo, type RunRoleOptions } from "./run-role.ts";
export { displayUrl } from "./display-url.ts";
export type { SecurityConfig } from "./security.ts";
export type { AuthenticationConfig, BearerConfig } from "./security-authentication.ts";
export type { AccessRule, RoleAssignment } from "./security-rules.ts";
