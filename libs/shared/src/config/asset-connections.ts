import { z } from "zod";
import { providerTarget, ReferenceTextError } from "./asset-connection-reference.ts";
import type { ClassedSection } from "./class-names.ts";

export const HTTP_ASSET_CONNECTION_CLASS = "assetconnection.http.HttpAssetConnection";
export const OPCUA_ASSET_CONNECTION_CLASS = "assetconnection.opcua.OpcUaAssetConnection";
export const MQTT_ASSET_CONNECTION_CLASS = "assetconnection.mqtt.MqttAssetConnection";

/*
 * FA³ST's asset-connection configuration (docs/reference/faaast-asset-connections.md), property for property, so
 * FA³ST users' files load unchanged. Unknown properties follow the rule of the whole file
 * (faaast-options.ts): a FA³ST property Twinport lacks is a warning (FA³ST's own doc examples
 * carry `method` and `template` on subscription providers), anything else an error. FA³ST reads
 * these files with plain Jackson, hence two deliberate differences from the rest of our configuration:
 * - numbers written as strings are accepted ("interval": "500");
 * - null means "not set", so the default applies (Jackson keeps null; for an optional string that
 *   is the same thing, and for a property with a default null would only break at use time).
 * Enum values are matched exactly, case included, as Jackson does.
 *
 * Where FA³ST only fails when a provider is used (a missing or XML format, a blank user name) we
 * refuse the file at start-up.
 */

const nullToUndefined = (value: unknown) => (value === null ? undefined : value);

function numeric<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => {
    if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
    return nullToUndefined(value);
  }, schema);
}

function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(nullToUndefined, schema.optional());
}

function withDefault<T extends z.ZodType>(schema: T, value: z.input<T>) {
  return z.preprocess(nullToUndefined, schema.prefault(value as never));
}

const text = z.string();
const headersSchema = withDefault(z.record(z.string(), z.string()), {});

/** Only JSON exists in FA³ST too (its docs list XML, its code has no XML implementation). */
const formatSchema = z.preprocess(
  nullToUndefined,
  // FA³ST has no default either: without a format its provider fails at the first request. Its
  // documented HTTP subscription example omits it, so the message says exactly what to add.
  z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'add "format": "JSON" (FA³ST has no default either; JSON is the only format)'
          : undefined,
    })
    .refine((value) => value === "JSON", {
      error: (issue) =>
        issue.input === "XML"
          ? 'format "XML" is not implemented (FA³ST has no XML implementation either); use "JSON"'
          : 'the only format is "JSON" (case-sensitive)',
    }),
);

/** FA³ST v1.3.0 ran queries starting with "jq|" as jq (experimental); its main branch dropped them, and so do we. */
const querySchema = optional(text).refine((value) => value === undefined || !value.startsWith("jq|"), {
  error:
    'jq queries ("jq|…") are not supported (FA³ST dropped them after v1.3.0); write a JSONPath such as "$.data.value"',
});

export const READ_WRITE_MODES = ["READ", "WRITE", "READ_WRITE", "NONE"] as const;
export type ReadWriteMode = (typeof READ_WRITE_MODES)[number];
export const ARGUMENT_VALIDATION_MODES = ["NONE", "REQUIRE_PRESENT", "REQUIRE_PRESENT_OR_DEFAULT"] as const;
export type ArgumentValidationMode = (typeof ARGUMENT_VALIDATION_MODES)[number];

const validationModes = {
  inputValidationMode: withDefault(z.enum(ARGUMENT_VALIDATION_MODES), "REQUIRE_PRESENT_OR_DEFAULT"),
  inoutputValidationMode: withDefault(z.enum(ARGUMENT_VALIDATION_MODES), "REQUIRE_PRESENT_OR_DEFAULT"),
  outputValidationMode: withDefault(z.enum(ARGUMENT_VALIDATION_MODES), "REQUIRE_PRESENT_OR_DEFAULT"),
};

/**
 * How often a value provider reads the asset into the model, in ms (0: only when the connection
 * (re)connects). Our extension: FA³ST reads on every API read, which the engine has no hook for
 * (docs/adr/0008-asset-values-are-synchronised-not-read-through.md).
 */
const readIntervalSchema = withDefault(numeric(z.number().int().min(0)), 1000).transform((ms) =>
  ms === 0 ? 0 : Math.max(ms, 100),
);

/** Key store settings shared by OPC UA certificates and HTTP trusted certificates (FA³ST's CertificateConfig). */
export const certificateSchema = (defaultPath?: string) =>
  z.strictObject({
    keyStoreType: withDefault(z.string(), "PKCS12"),
    keyStorePath: defaultPath === undefined ? optional(text) : withDefault(text, defaultPath),
    keyStorePassword: optional(text),
    keyAlias: optional(text),
    keyPassword: optional(text),
  });

/** A reference key that names an element (checked here, so a typo stops start-up with its reason). */
const providerKeySchema = z.string().superRefine((key, ctx) => {
  try {
    providerTarget(key);
  } catch (error) {
    if (!(error instanceof ReferenceTextError)) throw error;
    ctx.addIssue({ code: "custom", message: `the provider key is not a usable reference: ${error.message}` });
  }
});

/** Provider maps are keyed by references; a bad key is reported with its own reason, beside any value problems. */
function providerMap<T extends z.ZodType>(provider: T) {
  return withDefault(
    z.record(providerKeySchema, provider, {
      error: (issue) =>
        issue.code === "invalid_key" ? (issue.issues[0]?.message ?? "invalid provider key") : undefined,
    }),
    {},
  );
}

// ---- HTTP (docs/reference/faaast-asset-connections.md §3)

/**
 * A request method: an RFC 9110 token (Node's client refuses anything else, but only when the
 * request is made), and not CONNECT, which opens a tunnel instead of sending a payload.
 */
const httpMethod = (fallback: string) =>
  withDefault(
    z
      .string()
      .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: "expected an HTTP method such as PUT, POST or PATCH" })
      .refine((method) => method.toUpperCase() !== "CONNECT", {
        error: "CONNECT opens a tunnel and sends no payload; use PUT, POST or PATCH",
      }),
    fallback,
  );

const httpPath = z.preprocess(nullToUndefined, z.string());

export const httpValueProviderSchema = z.strictObject({
  format: formatSchema,
  path: httpPath,
  query: querySchema,
  template: optional(text),
  writeMethod: httpMethod("PUT"),
  headers: headersSchema,
  readWriteMode: withDefault(z.enum(READ_WRITE_MODES), "READ_WRITE"),
  readInterval: readIntervalSchema,
});

export const httpSubscriptionProviderSchema = z.strictObject({
  format: formatSchema,
  path: httpPath,
  query: querySchema,
  /** Polling period; FA³ST raises values under 100 to 100. */
  interval: withDefault(numeric(z.number().int()), 1000).transform((ms) => Math.max(ms, 100)),
  headers: headersSchema,
});

export const httpOperationProviderSchema = z.strictObject({
  format: formatSchema,
  path: httpPath,
  method: httpMethod("POST"),
  template: optional(text),
  /** Output or inoutput idShort → JSONPath into the response body. */
  queries: withDefault(z.record(z.string(), z.string()), {}),
  headers: headersSchema,
  ...validationModes,
  /** FA³ST main: DIRECT (one request) or ASYNC_AAS (the asset answers 202 + Location and is polled). */
  mode: withDefault(z.enum(["DIRECT", "ASYNC_AAS"]), "DIRECT"),
  asyncPollInterval: withDefault(numeric(z.number().int().min(1)), 1000),
});

const httpBaseUrl = z.preprocess(
  nullToUndefined,
  z.string().refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
    error: "expected an absolute http:// or https:// URL",
  }),
);

export const httpAssetConnectionSchema = z.strictObject({
  "@class": z.literal(HTTP_ASSET_CONNECTION_CLASS),
  baseUrl: httpBaseUrl,
  username: optional(text),
  password: optional(text),
  headers: headersSchema,
  /** Extra certificates to trust (self-signed assets); the usual CAs stay trusted. */
  trustedCertificates: optional(certificateSchema()),
  /** Our extension: a key store with the key and certificate this client shows an HTTPS asset (mutual TLS). */
  clientCertificate: optional(certificateSchema()),
  /** FA³ST main, code only. Accepted; our client speaks HTTP/1.1. */
  httpVersion: optional(z.enum(["HTTP_1_1", "HTTP_2"])),
  valueProviders: providerMap(httpValueProviderSchema),
  subscriptionProviders: providerMap(httpSubscriptionProviderSchema),
  operationProviders: providerMap(httpOperationProviderSchema),
});

// ---- OPC UA (docs/reference/faaast-asset-connections.md §4)

const nodeIdSchema = z.preprocess(nullToUndefined, z.string().min(1));
const arrayIndexSchema = optional(
  z.string().regex(/^(\[\d+\])+$/, { error: 'expected one or more "[n]" groups, e.g. "[2]" or "[1][0]"' }),
);

export const opcuaValueProviderSchema = z.strictObject({
  nodeId: nodeIdSchema,
  arrayIndex: arrayIndexSchema,
  readWriteMode: withDefault(z.enum(READ_WRITE_MODES), "READ_WRITE"),
  readInterval: readIntervalSchema,
});

export const opcuaSubscriptionProviderSchema = z.strictObject({
  nodeId: nodeIdSchema,
  arrayIndex: arrayIndexSchema,
  /** The monitored item's sampling interval in ms (FA³ST parses it and ignores it). */
  interval: withDefault(numeric(z.number().int().min(0)), 1000),
});

const argumentMappingSchema = withDefault(
  z.array(z.strictObject({ idShort: z.string().min(1), argumentName: z.string().min(1) })),
  [],
);

export const opcuaOperationProviderSchema = z.strictObject({
  nodeId: nodeIdSchema,
  /** The object the method is called on; empty or absent: found by browsing the method's parent. */
  parentNodeId: z.preprocess((value) => (value === null || value === "" ? undefined : value), z.string().optional()),
  inputArgumentMapping: argumentMappingSchema,
  outputArgumentMapping: argumentMappingSchema,
  ...validationModes,
});

export const OPCUA_ASSET_SECURITY_POLICIES = [
  "None",
  "Basic128Rsa15",
  "Basic256",
  "Basic256Sha256",
  "Aes128_Sha256_RsaOaep",
  "Aes256_Sha256_RsaPss",
] as const;
export const OPCUA_ASSET_SECURITY_MODES = ["None", "Sign", "SignAndEncrypt"] as const;
const TRANSPORT_PROFILES = [
  "TCP_UASC_UABINARY",
  "HTTPS_UABINARY",
  "HTTPS_UAXML",
  "HTTPS_UAJSON",
  "WSS_UASC_UABINARY",
  "WSS_UAJSON",
] as const;

export const opcuaAssetConnectionSchema = z
  .looseObject({
    "@class": z.literal(OPCUA_ASSET_CONNECTION_CLASS),
    // An opc.tcp:// URL with a host: anything else was accepted and retried for ever ("not a url",
    // an http:// URL the client has no transport for), as the HTTP and MQTT connections refuse it.
    host: z.preprocess(
      nullToUndefined,
      z
        .string()
        .min(1)
        .refine((value) => /^opc\.tcp:\/\/(\[[0-9A-Fa-f:.]+\]|[^\s/:?#[\]]+)(:\d{1,5})?(\/\S*)?$/i.test(value), {
          message: 'expected an opc.tcp:// URL such as "opc.tcp://plc-7:4840"',
        }),
    ),
    securityPolicy: withDefault(z.enum(OPCUA_ASSET_SECURITY_POLICIES), "None"),
    securityMode: withDefault(z.enum(OPCUA_ASSET_SECURITY_MODES), "None"),
    transportProfile: withDefault(z.enum(TRANSPORT_PROFILES), "TCP_UASC_UABINARY").refine(
      (value) => value === "TCP_UASC_UABINARY",
      {
        error: "only TCP_UASC_UABINARY (opc.tcp://) is supported by the OPC UA client",
      },
    ),
    userTokenType: withDefault(z.enum(["Anonymous", "UserName", "Certificate", "IssuedToken"]), "Anonymous").refine(
      (value) => value !== "IssuedToken",
      {
        error: "IssuedToken is not supported (FA³ST refuses it too); use Anonymous, UserName or Certificate",
      },
    ),
    username: optional(text),
    password: optional(text),
    authenticationCertificate: withDefault(certificateSchema("authentication.p12"), {}),
    applicationCertificate: withDefault(certificateSchema("application.p12"), {}),
    /** Base of relative key store paths and of the PKI tree (pki/trusted/certs, pki/rejected, …). */
    securityBaseDir: withDefault(text.min(1), "."),
    requestTimeout: withDefault(numeric(z.number().int().min(1)), 3000),
    acknowledgeTimeout: withDefault(numeric(z.number().int().min(1)), 10000),
    /** In FA³ST's config class and compared when merging, but used nowhere; so here too. */
    retries: withDefault(numeric(z.number().int().min(0)), 1),
    valueProviders: providerMap(opcuaValueProviderSchema),
    subscriptionProviders: providerMap(opcuaSubscriptionProviderSchema),
    operationProviders: providerMap(opcuaOperationProviderSchema),
  })
  .superRefine((connection, ctx) => {
    if (connection.userTokenType === "UserName" && (connection.username ?? "").trim() === "") {
      ctx.addIssue({
        code: "custom",
        path: ["username"],
        message: 'userTokenType "UserName" needs a non-blank username',
      });
    }
    // FA³ST would look for such an endpoint forever; no server offers one.
    if ((connection.securityPolicy === "None") !== (connection.securityMode === "None")) {
      ctx.addIssue({
        code: "custom",
        path: ["securityMode"],
        message: `securityPolicy "${connection.securityPolicy}" with securityMode "${connection.securityMode}" matches no OPC UA endpoint: use None with None, or a policy with Sign or SignAndEncrypt`,
      });
    }
  });

// ---- MQTT (docs/reference/faaast-asset-connections.md §5)

/** Paho's schemes (FA³ST) plus the mqtt:// and mqtts:// that other MQTT tools write. */
export const MQTT_SERVER_URI_SCHEMES = ["tcp", "ssl", "ws", "wss", "mqtt", "mqtts"] as const;

const mqttServerUri = z.preprocess(
  nullToUndefined,
  z
    .string()
    .refine(
      (value) => {
        if (!URL.canParse(value)) return false;
        const url = new URL(value);
        return (
          (MQTT_SERVER_URI_SCHEMES as readonly string[]).includes(url.protocol.slice(0, -1)) && url.hostname !== ""
        );
      },
      {
        error: `expected a broker URI such as tcp://host:1883 or ssl://host:8883 (schemes: ${MQTT_SERVER_URI_SCHEMES.join(", ")})`,
      },
    )
    .refine((value) => !URL.canParse(value) || (new URL(value).username === "" && new URL(value).password === ""), {
      // Paho ignores them; silently dropping credentials would be worse than saying so.
      error: "put the credentials in username and password, not in serverUri",
    }),
);

/** A topic a message is published to: wildcards belong to subscriptions only (MQTT 3.1.1 §4.7.1). */
const mqttTopicName = z.preprocess(
  nullToUndefined,
  z
    .string()
    .min(1, { error: "the topic must not be empty" })
    .refine((topic) => !/[+#\u0000]/.test(topic), { error: 'a publish topic cannot contain the wildcards "+" or "#"' }),
);

/** A topic filter: "+" fills one whole level, "#" only the last whole level (MQTT 3.1.1 §4.7.1). */
const mqttTopicFilter = z.preprocess(
  nullToUndefined,
  z
    .string()
    .min(1, { error: "the topic must not be empty" })
    .refine(
      (filter) => {
        const levels = filter.split("/");
        return (
          !filter.includes("\u0000") &&
          levels.every(
            (level, i) =>
              (level.includes("+") ? level === "+" : true) &&
              (level.includes("#") ? level === "#" && i === levels.length - 1 : true),
          )
        );
      },
      {
        error:
          'invalid topic filter: "+" must fill a whole level and "#" must be the whole last level (e.g. "plant/+/telemetry", "plant/#")',
      },
    ),
);

export const mqttValueProviderSchema = z.strictObject({
  format: formatSchema,
  topic: mqttTopicName,
  template: optional(text),
  /** In FA³ST's config class (inherited) but never used: an MQTT value provider cannot read. */
  query: querySchema,
  /** FA³ST main. READ_WRITE and WRITE publish model changes; READ and NONE do nothing (nothing is read either way). */
  readWriteMode: withDefault(z.enum(READ_WRITE_MODES), "READ_WRITE"),
});

export const mqttSubscriptionProviderSchema = z.strictObject({
  format: formatSchema,
  topic: mqttTopicFilter,
  query: querySchema,
});

export const mqttAssetConnectionSchema = z.strictObject({
  "@class": z.literal(MQTT_ASSET_CONNECTION_CLASS),
  serverUri: mqttServerUri,
  /** Absent or blank: a random one (a UUID without dashes, as FA³ST), new at each start. */
  clientId: optional(text),
  username: optional(text),
  password: optional(text),
  /** Our extension (FA³ST has no TLS options): certificates to trust for ssl:// and wss:// besides the usual CAs. */
  trustedCertificates: optional(certificateSchema()),
  /** Our extension: a key store with the key and certificate this client shows the broker over ssl:// or wss://. */
  clientCertificate: optional(certificateSchema()),
  valueProviders: providerMap(mqttValueProviderSchema),
  subscriptionProviders: providerMap(mqttSubscriptionProviderSchema),
  // FA³ST throws when one is registered; refused here, so the file is fixed before anything starts.
  operationProviders: withDefault(
    z.record(z.string(), z.unknown()).refine((providers) => Object.keys(providers).length === 0, {
      error:
        "MQTT asset connections have no operation providers (FA³ST does not support them either); use an HTTP or OPC UA connection for Operations",
    }),
    {},
  ),
});

export type HttpValueProviderConfig = z.output<typeof httpValueProviderSchema>;
export type HttpSubscriptionProviderConfig = z.output<typeof httpSubscriptionProviderSchema>;
export type HttpOperationProviderConfig = z.output<typeof httpOperationProviderSchema>;
export type HttpAssetConnectionConfig = z.output<typeof httpAssetConnectionSchema>;
export type OpcUaValueProviderConfig = z.output<typeof opcuaValueProviderSchema>;
export type OpcUaSubscriptionProviderConfig = z.output<typeof opcuaSubscriptionProviderSchema>;
export type OpcUaOperationProviderConfig = z.output<typeof opcuaOperationProviderSchema>;
export type OpcUaAssetConnectionConfig = z.output<typeof opcuaAssetConnectionSchema>;
export type MqttValueProviderConfig = z.output<typeof mqttValueProviderSchema>;
export type MqttSubscriptionProviderConfig = z.output<typeof mqttSubscriptionProviderSchema>;
export type MqttAssetConnectionConfig = z.output<typeof mqttAssetConnectionSchema>;
export type CertificateConfig = z.output<ReturnType<typeof certificateSchema>>;

export type AssetConnectionConfig = HttpAssetConnectionConfig | OpcUaAssetConnectionConfig | MqttAssetConnectionConfig;

export const assetConnectionSection: ClassedSection = {
  what: "asset connection",
  known: [HTTP_ASSET_CONNECTION_CLASS, OPCUA_ASSET_CONNECTION_CLASS, MQTT_ASSET_CONNECTION_CLASS],
  schemaFor(suffix) {
    switch (suffix) {
      case HTTP_ASSET_CONNECTION_CLASS:
        return httpAssetConnectionSchema;
      case OPCUA_ASSET_CONNECTION_CLASS:
        return opcuaAssetConnectionSchema;
      case MQTT_ASSET_CONNECTION_CLASS:
        return mqttAssetConnectionSchema;
      default:
        return undefined;
    }
  },
};
