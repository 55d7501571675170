/**
 * The semanticIds of AID (IDTA 02017) and AIMC (IDTA 02027) a processor navigates by. idShorts in
 * these templates are free, so elements are found by semanticId; every spelling that published
 * templates and specs use is accepted (docs/reference/aid-aimc/DIGEST.md §2.7): the template's
 * "AssetInterfaceDescription" (an "s" missing) for PropertyDefinition, `td:base` beside
 * `td:baseURI`, InteractionMetadata by its AID id or by `td:InteractionAffordance`.
 */

const AID_1_0 = "https://admin-shell.io/idta/AssetInterfacesDescription/1/0/";
const AID_1_0_MISSPELLED = "https://admin-shell.io/idta/AssetInterfaceDescription/1/0/";
const AIMC_1_0 = "https://admin-shell.io/idta/AssetInterfacesMappingConfiguration/1/0/";
const TD = "https://www.w3.org/2019/wot/td#";
const HCTL = "https://www.w3.org/2019/wot/hypermedia#";
const JS = "https://www.w3.org/2019/wot/json-schema#";
const WOTSEC = "https://www.w3.org/2019/wot/security#";
const HTV = "https://www.w3.org/2011/http#";
const MQV = "https://www.w3.org/2019/wot/mqtt#";

export const AID_SUBMODEL = [
  `${AID_1_0}Submodel`,
  "https://admin-shell.io/idta/AssetInterfacesDescription/1/1/Submodel",
  `${AID_1_0_MISSPELLED}Submodel`,
];
export const AIMC_SUBMODEL = [`${AIMC_1_0}Submodel`];
/** AIMC 2.0 restructured the mapping (Sources/Sinks lists); recognised only to say it is not processed. */
export const AIMC_2_SUBMODEL_PREFIX = "https://admin-shell.io/idta/AssetInterfacesMappingConfiguration/2/";

export const SID = {
  interface: [`${AID_1_0}Interface`, `${AID_1_0_MISSPELLED}Interface`],
  endpointMetadata: [`${AID_1_0}EndpointMetadata`, `${AID_1_0_MISSPELLED}EndpointMetadata`],
  interactionMetadata: [
    `${AID_1_0}InteractionMetadata`,
    `${AID_1_0_MISSPELLED}InteractionMetadata`,
    `${TD}InteractionAffordance`,
  ],
  externalDescriptor: [`${AID_1_0}ExternalDescriptor`],
  base: [`${TD}baseURI`, `${TD}base`],
  contentType: [`${HCTL}forContentType`],
  security: [`${TD}hasSecurityConfiguration`],
  securityDefinitions: [`${TD}definesSecurityScheme`],
  scheme: [`${WOTSEC}SecurityScheme`],
  propertyDefinition: [`${AID_1_0}PropertyDefinition`, `${AID_1_0_MISSPELLED}PropertyDefinition`],
  nestedProperty: [`${JS}propertyName`],
  key: [`${AID_1_0}key`, `${AID_1_0_MISSPELLED}key`],
  observable: [`${TD}isObservable`],
  forms: [`${TD}hasForm`],
  href: [`${HCTL}hasTarget`],
  methodName: [`${HTV}methodName`],
  headers: [`${HTV}headers`],
  fieldName: [`${HTV}fieldName`],
  fieldValue: [`${HTV}fieldValue`],
  controlPacket: [`${MQV}ControlPacket`],
  qos: [`${MQV}hasQoSFlag`],
  mappingConfigurations: [`${AIMC_1_0}MappingConfigurations`],
  mappingConfiguration: [`${AIMC_1_0}MappingConfiguration`],
  interfaceReference: [`${AIMC_1_0}InterfaceReference`],
  relations: [`${AIMC_1_0}MappingSourceSinkRelations`],
  relation: [`${AIMC_1_0}MappingSourceSinkRelation`],
} as const;

/** Protocols by the interface's supplementalSemanticId (the WoT binding). */
export const PROTOCOLS: Record<string, string> = {
  "http://www.w3.org/2011/http": "HTTP",
  "http://www.w3.org/2011/mqtt": "MQTT",
  "http://www.w3.org/2011/modbus": "Modbus",
  "http://opcfoundation.org/UA/WoT-Binding/": "OPC UA",
  "http://www.w3.org/2011/bacnet": "BACnet",
};

/** Security schemes by the semanticId of their SMC, for schemes whose `scheme` Property is missing. */
export const SECURITY_SCHEMES: Record<string, string> = {
  [`${WOTSEC}NoSecurityScheme`]: "nosec",
  [`${WOTSEC}BasicSecurityScheme`]: "basic",
  [`${WOTSEC}DigestSecurityScheme`]: "digest",
  [`${WOTSEC}APIKeySecurityScheme`]: "apikey",
  [`${WOTSEC}BearerSecurityScheme`]: "bearer",
  [`${WOTSEC}PSKSecurityScheme`]: "psk",
  [`${WOTSEC}OAuth2SecurityScheme`]: "oauth2",
  [`${WOTSEC}AutoSecurityScheme`]: "auto",
  [`${WOTSEC}ComboSecurityScheme`]: "combo",
};
