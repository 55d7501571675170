// Configuration: one JSON file in the spec's shape, overridden by TWINPORT_* variables and
// `path=value` arguments, validated with zod; every property has the spec's default.

export {
  type ProviderTarget,
  parseReferenceText,
  providerTarget,
  type ReferenceKey,
  ReferenceTextError,
} from "./asset-connection-reference.ts";
export {
  type ArgumentValidationMode,
  type AssetConnectionConfig,
  type CertificateConfig,
  HTTP_ASSET_CONNECTION_CLASS,
  type HttpAssetConnectionConfig,
  type HttpOperationProviderConfig,
  type HttpSubscriptionProviderConfig,
  type HttpValueProviderConfig,
  MQTT_ASSET_CONNECTION_CLASS,
  MQTT_SERVER_URI_SCHEMES,
  type MqttAssetConnectionConfig,
  type MqttSubscriptionProviderConfig,
  type MqttValueProviderConfig,
  OPCUA_ASSET_CONNECTION_CLASS,
  type OpcUaAssetConnectionConfig,
  type OpcUaOperationProviderConfig,
  type OpcUaSubscriptionProviderConfig,
  type OpcUaValueProviderConfig,
  type ReadWriteMode,
} from "./asset-connections.ts";
export { classSuffix } from "./class-names.ts";
export { type CommandLine, HELP_TEXT, parseCommandLine, ROLES, roleOf, UsageError } from "./command-line.ts";
export { ConfigError, formatConfigPath } from "./config-error.ts";
export { aasxLimitsOf, type CoreConfig, DEFAULT_MANAGEMENT_PORT, isoDurationToMs } from "./core.ts";
export { displayUrl } from "./display-url.ts";
export { ENDPOINT_PROFILES, type EndpointProfile } from "./endpoint-common.ts";
export {
  ENDPOINT_CLASS_BY_KIND,
  type EndpointConfig,
  type EndpointKind,
  isHttpEndpoint,
  isOpcUaEndpoint,
} from "./endpoints.ts";
export { type EventsConfig, eventsConfigOf, eventsSchema } from "./events.ts";
export {
  FILE_STORAGE_FILESYSTEM_CLASS,
  FILE_STORAGE_IN_MEMORY_CLASS,
  FILE_STORAGE_REDIS_CLASS,
  type FileStorageConfig,
  type FileStorageFilesystemConfig,
} from "./file-storage.ts";
export {
  BUFFERED_BODIES_PER_MAX,
  DEFAULT_MAX_CONNECTIONS,
  HTTP_ENDPOINT_CLASS,
  type HttpEndpointConfig,
} from "./http-endpoint.ts";
export { type ConfigRole, type LoadConfigOptions, type LoadedConfig, loadConfig } from "./load-config.ts";
export {
  MESSAGE_BUS_INTERNAL_CLASS,
  MESSAGE_BUS_NATS_CLASS,
  type MessageBusConfig,
  type MessageBusInternalConfig,
  type MessageBusMqttConfig,
  type MessageBusNatsConfig,
} from "./message-bus.ts";
export {
  MESSAGE_BUS_MQTT_CLASS,
  type MqttKeyStoreConfig,
  type MqttPublishingConfig,
  mqttPublishingFor,
  mqttPublishingOf,
} from "./message-bus-mqtt.ts";
export {
  type LoadedModels,
  loadModelFiles,
  type ModelFile,
  ModelFileError,
  type ModelLoader,
  type ModelSelection,
  selectModelFiles,
} from "./model-files.ts";
export {
  OPCUA_AUTHENTICATIONS,
  OPCUA_ENDPOINT_CLASS,
  OPCUA_SECURITY_POLICIES,
  type OpcUaAuthentication,
  type OpcUaEndpointConfig,
  type OpcUaSecurityPolicy,
} from "./opcua-endpoint.ts";
export { openHttpAccessInWords } from "./open-access.ts";
export {
  PERSISTENCE_IN_MEMORY_CLASS,
  PERSISTENCE_REDIS_CLASS,
  type PersistenceConfig,
  type PersistenceInMemoryConfig,
  type PersistenceRedisConfig,
} from "./persistence.ts";
export { type RegistryConfig, type RegistrySynchronizationConfig, registryApiRoot } from "./registries.ts";
export { type ProcessIo, type RoleContext, type RunningRole, type RunRoleOptions, runRole } from "./run-role.ts";
export type { SecurityConfig } from "./security.ts";
export type { AuthenticationConfig, BearerConfig } from "./security-authentication.ts";
export type { AccessRule, RoleAssignment } from "./security-rules.ts";
export {
  AIMC_PROCESSOR_CLASS,
  type AimcCertificateCredentials,
  type AimcCredentials,
  type AimcProcessorConfig,
  derivedAssetConnection,
  type SubmodelTemplateProcessorConfig,
} from "./submodel-template-processors.ts";
export { type TwinportConfig, validateConfig, validateConfigWithWarnings } from "./validate-config.ts";
