import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { displayUrl } from "./display-url.ts";
import {
  ConfigError,
  type HttpEndpointConfig,
  isoDurationToMs,
  loadConfig,
  type OpcUaEndpointConfig,
} from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "twinport-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
function configFile(content: unknown): string {
  const file = join(dir, `config-${fileCount++}.json`);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a ConfigError");
}

const FAAAST = "de.fraunhofer.iosb.ilt.faaast.service";

const HTTP_DEFAULTS = {
  "@class": "endpoint.http.HttpEndpoint",
  profiles: [],
  corsAllowCredentials: false,
  corsAllowedHeaders: "*",
  corsAllowedMethods: "GET, POST, HEAD",
  corsAllowedOrigin: "*",
  corsEnabled: false,
  corsExposedHeaders: "",
  corsMaxAge: 3600,
  includeErrorDetails: false,
  port: 443,
  sniEnabled: true,
  sslEnabled: true,
  pathPrefix: "/api/v3.0",
  host: "0.0.0.0",
  maxRequestBodySize: 67108864,
  maxConnections: 8192,
  maxBufferedRequestBodySize: 268435456,
  consoleEnabled: true,
  openApiEnabled: true,
};

const OPCUA_DEFAULTS = {
  "@class": "endpoint.opcua.OpcUaEndpoint",
  profiles: [],
  discoveryServerUrl: "",
  secondsTillShutdown: 2,
  serverCertificateBasePath: "PKI/CA",
  supportedAuthentications: ["Anonymous"],
  supportedSecurityPolicies: ["NONE", "BASIC256SHA256", "AES128_SHA256_RSAOAEP", "AES256_SHA256_RSAPSS"],
  tcpPort: 4840,
  userMap: {},
  userCertificateBasePath: "USERS_PKI/CA",
  host: "0.0.0.0",
  releaseUnusedNodesAfterMs: 300_000,
  maxMaterializedElements: 100_000,
  maxSessions: 100,
  maxMonitoredItems: 100000,
};

const CORE_DEFAULTS = {
  assetConnectionRetryInterval: 1000,
  assetConnectionReadTimeout: 5000,
  validationOnLoad: true,
  validationOnCreate: true,
  validationOnUpdate: true,
  minInflateRatio: 0.01,
  aasxMaxEntries: 1000,
  aasxMaxTotalSize: 256 * 1024 * 1024,
  aasxMaxEntrySize: 128 * 1024 * 1024,
  aasxMaxModelSize: 2 * 1024 ** 3,
  importMaxIdentifiableSize: 64 * 1024 * 1024,
  maxNestingDepth: 64,
  operationHandleTtl: "PT1H",
  maxRunningOperations: 1000,
  idempotencyWindow: "PT24H",
  shutdownDelay: "PT0S",
  stateDir: ".twinport",
  aasRegistries: [],
  submodelRegistries: [],
  registrySynchronization: {
    retryMinDelay: 1000,
    retryMaxDelay: 60_000,
    requestTimeout: 10_000,
    reconcileInterval: 300_000,
    unregisterOnShutdown: true,
    shutdownTimeout: 3000,
  },
  logLevel: "info",
  logFormat: "auto",
  progressIntervalMs: 3000,
};

describe("defaults", () => {
  test("no file, embedded: both endpoints with the spec's defaults, memory, internal bus", () => {
    const { config, warnings } = loadConfig({ role: "embedded" });
    assert.deepEqual(warnings, []);
    assert.deepEqual(config, {
      core: CORE_DEFAULTS,
      endpoints: [HTTP_DEFAULTS, OPCUA_DEFAULTS],
      persistence: { "@class": "persistence.memory.PersistenceInMemory" },
      messageBus: {
        "@class": "messagebus.internal.MessageBusInternal",
        readCacheMaxAgeMs: 5000,
        readCacheMaxBytes: 67108864,
      },
      fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
      assetConnections: [],
      events: {
        retentionMaxEvents: 100_000,
        retentionMaxAgeMs: 86_400_000,
        heartbeatIntervalMs: 15_000,
        maxBufferedBytes: 1_048_576,
        maxQueuedEvents: 10_000,
        maxStreams: 500,
      },
      submodelTemplateProcessors: [],
    });
  });

  for (const role of ["model-store", "http-gateway", "opcua-gateway"] as const) {
    test(`no file, ${role}: Redis, NATS and Redis file storage with their defaults`, () => {
      const { config } = loadConfig({ role });
      assert.deepEqual(config.persistence, {
        "@class": "persistence.redis.PersistenceRedis",
        url: "redis://127.0.0.1:6379",
        keyPrefix: "tp",
      });
      assert.deepEqual(config.messageBus, {
        "@class": "messagebus.nats.MessageBusNats",
        url: "nats://127.0.0.1:4222",
        requestTimeoutMs: 5000,
        readCacheMaxAgeMs: 5000,
        readCacheMaxBytes: 67108864,
      });
      assert.deepEqual(config.fileStorage, { "@class": "filestorage.redis.FileStorageRedis" });
      assert.deepEqual(config.endpoints, [HTTP_DEFAULTS, OPCUA_DEFAULTS]);
    });
  }

  test("a file naming persistence and bus keeps them in a distributed role; other sections get defaults", () => {
    const file = configFile({
      persistence: { "@class": `${FAAAST}.persistence.memory.PersistenceInMemory` },
      messageBus: { "@class": `${FAAAST}.messagebus.internal.MessageBusInternal` },
    });
    const { config } = loadConfig({ role: "model-store", configFile: file });
    assert.equal(config.persistence["@class"], "persistence.memory.PersistenceInMemory");
    assert.equal(config.messageBus["@class"], "messagebus.internal.MessageBusInternal");
    assert.deepEqual(config.core, CORE_DEFAULTS);
    assert.deepEqual(config.endpoints, [HTTP_DEFAULTS, OPCUA_DEFAULTS]);
  });

  test("an explicit empty endpoints list stays empty", () => {
    const { config } = loadConfig({ role: "embedded", configFile: configFile({ endpoints: [] }) });
    assert.deepEqual(config.endpoints, []);
  });

  test("embedded on Redis keeps its files in Redis too, unless fileStorage says otherwise", () => {
    const redis = { "@class": "persistence.redis.PersistenceRedis", url: "redis://127.0.0.1:6379" };
    const onRedis = loadConfig({ role: "embedded", configFile: configFile({ persistence: redis }) }).config;
    assert.deepEqual(onRedis.fileStorage, { "@class": "filestorage.redis.FileStorageRedis" });
    const faaastName = { ...redis, "@class": `${FAAAST}.persistence.redis.PersistenceRedis` };
    assert.equal(
      loadConfig({ role: "embedded", configFile: configFile({ persistence: faaastName }) }).config.fileStorage[
        "@class"
      ],
      "filestorage.redis.FileStorageRedis",
    );
    const chosen = configFile({
      persistence: redis,
      fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
    });
    assert.equal(
      loadConfig({ role: "embedded", configFile: chosen }).config.fileStorage["@class"],
      "filestorage.memory.FileStorageInMemory",
    );
    assert.equal(
      loadConfig({ role: "embedded" }).config.fileStorage["@class"],
      "filestorage.memory.FileStorageInMemory",
    );
    // Redis chosen by the environment alone: the files follow, unless fileStorage is named too.
    const env = { TWINPORT_PERSISTENCE_CLASS: "persistence.redis.PersistenceRedis" };
    assert.equal(
      loadConfig({ role: "embedded", env }).config.fileStorage["@class"],
      "filestorage.redis.FileStorageRedis",
    );
    const both = { ...env, TWINPORT_FILESTORAGE_CLASS: "filestorage.memory.FileStorageInMemory" };
    assert.equal(
      loadConfig({ role: "embedded", env: both }).config.fileStorage["@class"],
      "filestorage.memory.FileStorageInMemory",
    );
    const cli = loadConfig({ role: "embedded", overrides: ["persistence.@class=persistence.redis.PersistenceRedis"] });
    assert.equal(cli.config.fileStorage["@class"], "filestorage.redis.FileStorageRedis");
  });

  test("FileStorageFilesystem without path stores under core.stateDir", () => {
    const file = configFile({
      core: { stateDir: "/var/lib/tp" },
      fileStorage: { "@class": "filestorage.filesystem.FileStorageFilesystem" },
    });
    assert.deepEqual(loadConfig({ role: "embedded", configFile: file }).config.fileStorage, {
      "@class": "filestorage.filesystem.FileStorageFilesystem",
      path: "/var/lib/tp/files",
    });
  });
});

describe("FA³ST compatibility", () => {
  test("full Java class names and short ones load and are reduced to the short form", () => {
    const file = configFile({
      core: { requestHandlerThreadPoolSize: 2 },
      endpoints: [
        { "@class": `${FAAAST}.endpoint.http.HttpEndpoint`, port: 8443, isCorsEnabled: true },
        { "@class": "endpoint.opcua.OpcUaEndpoint", tcpPort: 4841 },
      ],
      persistence: { "@class": `${FAAAST}.persistence.redis.PersistenceRedis`, url: "redis://r:6379" },
      messageBus: { "@class": "messagebus.nats.MessageBusNats" },
      fileStorage: { "@class": `${FAAAST}.filestorage.filesystem.FileStorageFilesystem`, path: "/data" },
      assetConnections: [
        {
          "@class": `${FAAAST}.assetconnection.opcua.OpcUaAssetConnection`,
          host: "opc.tcp://x:4840",
          valueProviders: { "(Submodel)urn:x, (Property)p": { nodeId: "ns=2;s=a" } },
        },
        { "@class": "assetconnection.http.HttpAssetConnection", baseUrl: "http://x" },
        { "@class": "assetconnection.mqtt.MqttAssetConnection", serverUri: "tcp://x:1883" },
      ],
    });
    const { config } = loadConfig({ role: "embedded", configFile: file });
    const [http, opcua] = config.endpoints as [HttpEndpointConfig, OpcUaEndpointConfig];
    assert.deepEqual(http, { ...HTTP_DEFAULTS, port: 8443, corsEnabled: true });
    assert.equal(opcua["@class"], "endpoint.opcua.OpcUaEndpoint");
    assert.equal(opcua.tcpPort, 4841);
    assert.equal(config.core.requestHandlerThreadPoolSize, 2);
    assert.deepEqual(config.persistence, {
      "@class": "persistence.redis.PersistenceRedis",
      url: "redis://r:6379",
      keyPrefix: "tp",
    });
    assert.deepEqual(config.fileStorage, { "@class": "filestorage.filesystem.FileStorageFilesystem", path: "/data" });
    assert.deepEqual(
      config.assetConnections.map((c) => c["@class"]),
      [
        "assetconnection.opcua.OpcUaAssetConnection",
        "assetconnection.http.HttpAssetConnection",
        "assetconnection.mqtt.MqttAssetConnection",
      ],
    );
    assert.deepEqual(config.assetConnections[0]!.valueProviders, {
      "(Submodel)urn:x, (Property)p": { nodeId: "ns=2;s=a", readWriteMode: "READ_WRITE", readInterval: 1000 },
    });
  });

  test("isCorsEnabled and corsEnabled disagreeing is an error", () => {
    const file = configFile({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", corsEnabled: true, isCorsEnabled: false }],
    });
    assert.match(
      configError(() => loadConfig({ role: "embedded", configFile: file })).message,
      /endpoints\[0\]\.isCorsEnabled'.*corsEnabled and its older name isCorsEnabled/,
    );
  });

  test("maxBufferedRequestBodySize defaults to 4 × maxRequestBodySize and may not be smaller than it", () => {
    const http = (endpoint: Record<string, unknown>) =>
      loadConfig({
        role: "embedded",
        configFile: configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", ...endpoint }] }),
      }).config.endpoints[0] as HttpEndpointConfig;
    assert.equal(http({ maxRequestBodySize: 1000 }).maxBufferedRequestBodySize, 4000);
    assert.equal(http({ maxRequestBodySize: 1000, maxBufferedRequestBodySize: 1000 }).maxBufferedRequestBodySize, 1000);
    assert.match(
      configError(() => http({ maxRequestBodySize: 1000, maxBufferedRequestBodySize: 999 })).message,
      /endpoints\[0\]\.maxBufferedRequestBodySize'.*smaller than maxRequestBodySize/,
    );
  });

  test("a file's quoted numbers and booleans are read as numbers and booleans where the setting takes one (as FA³ST's Jackson does)", () => {
    const { config } = loadConfig({
      role: "embedded",
      configFile: configFile({
        core: { requestHandlerThreadPoolSize: "2", assetConnectionRetryInterval: "250", validationOnLoad: "false" },
        endpoints: [
          {
            "@class": "de.fraunhofer.iosb.ilt.faaast.service.endpoint.http.HttpEndpoint",
            port: "18500",
            sslEnabled: "false",
            corsEnabled: "true",
            corsMaxAge: "100",
            host: "127.0.0.1",
          },
        ],
        persistence: { "@class": "persistence.redis.PersistenceRedis", url: "redis://r:6379", keyPrefix: "0042" },
      }),
    });
    const http = config.endpoints[0] as HttpEndpointConfig;
    assert.deepEqual([http.port, http.sslEnabled, http.corsEnabled, http.corsMaxAge], [18500, false, true, 100]);
    assert.equal(config.core.assetConnectionRetryInterval, 250);
    assert.equal(config.core.validationOnLoad, false);
    // Text stays text, and a string that is no number is still refused, naming the setting.
    assert.equal(
      config.persistence["@class"] === "persistence.redis.PersistenceRedis" && config.persistence.keyPrefix,
      "0042",
    );
    assert.match(
      configError(() =>
        loadConfig({
          role: "embedded",
          configFile: configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: "80x" }] }),
        }),
      ).message,
      /endpoints\[0\]\.port/,
    );
  });

  test("FA³ST's environment variables (faaast_config_extension_<path>, [i] for an index) are read; TWINPORT_* win", () => {
    const { config, warnings } = loadConfig({
      role: "embedded",
      env: {
        "faaast_config_extension_endpoints[0]_port": "18501",
        faaast_config_extension_core_requestHandlerThreadPoolSize: "42",
        "faaast_config_extension_endpoints[0]_host": "10.0.0.1",
        TWINPORT_ENDPOINTS_0_HOST: "127.0.0.1",
        faaast_config_extension_core_nope: "1",
      },
    });
    const http = config.endpoints[0] as HttpEndpointConfig;
    assert.equal(http.port, 18501);
    assert.equal(http.host, "127.0.0.1");
    assert.equal(config.core.requestHandlerThreadPoolSize, 42);
    assert.ok(
      warnings.some((w) => w.startsWith("Ignoring environment variable faaast_config_extension_core_nope")),
      warnings.join("\n"),
    );
  });

  test("FA³ST's validation objects map to on/off", () => {
    const file = configFile({
      core: {
        validationOnLoad: { validateConstraints: true, idShortUniqueness: true, identifierUniqueness: true },
        validationOnCreate: { validateConstraints: false, idShortUniqueness: true },
        validationOnUpdate: { validateConstraints: false, idShortUniqueness: false, identifierUniqueness: false },
      },
    });
    const { core } = loadConfig({ role: "embedded", configFile: file }).config;
    assert.deepEqual([core.validationOnLoad, core.validationOnCreate, core.validationOnUpdate], [true, true, false]);
    // The names FA³ST's setters bind (validateIdShortUniqueness, validateIdentifierUniqueness) too.
    const setterNames = loadConfig({
      role: "embedded",
      configFile: configFile({
        core: {
          validationOnLoad: {
            validateConstraints: true,
            validateIdShortUniqueness: true,
            validateIdentifierUniqueness: true,
          },
          validationOnUpdate: { validateConstraints: false, validateIdShortUniqueness: false },
        },
      }),
    }).config.core;
    assert.deepEqual([setterNames.validationOnLoad, setterNames.validationOnUpdate], [true, false]);
    // A wrong switch names the allowed ones.
    assert.match(
      configError(() =>
        loadConfig({ role: "embedded", configFile: configFile({ core: { validationOnLoad: { foo: true } } }) }),
      ).message,
      /Unknown key 'core\.validationOnLoad\.foo'\. Allowed: validateConstraints, idShortUniqueness/,
    );
  });

  test("every documented property of the file is accepted", () => {
    const file = configFile({
      core: { minInflateRatio: 0.001, operationHandleTtl: "P1DT2H", stateDir: "state", validationOnLoad: false },
      endpoints: [
        {
          "@class": "endpoint.http.HttpEndpoint",
          profiles: ["AAS_READ", "SUBMODEL_READ"],
          certificate: { keyStorePath: "ks.p12", keyStorePassword: "pw", keyAlias: "a", keyPassword: "kp" },
          corsAllowCredentials: true,
          corsAllowedHeaders: "X-A",
          corsAllowedMethods: "GET",
          corsAllowedOrigin: "https://a",
          corsEnabled: true,
          corsExposedHeaders: "ETag",
          corsMaxAge: 10,
          hostname: "aas.example",
          includeErrorDetails: true,
          port: 8443,
          sniEnabled: false,
          sslEnabled: false,
          host: "127.0.0.1",
          maxRequestBodySize: 1024,
          openApiEnabled: true,
        },
        {
          "@class": "endpoint.opcua.OpcUaEndpoint",
          discoveryServerUrl: "opc.tcp://lds:4840",
          secondsTillShutdown: 0,
          serverCertificateBasePath: "pki",
          supportedAuthentications: ["Anonymous", "UserName", "Certificate"],
          supportedSecurityPolicies: ["NONE", "BASIC128RSA15", "BASIC256"],
          tcpPort: 4841,
          userMap: { alice: "secret" },
          userCertificateBasePath: "upki",
          hostname: "opc.example",
          host: "127.0.0.1",
        },
      ],
    });
    const { config } = loadConfig({ role: "embedded", configFile: file });
    const http = config.endpoints[0] as HttpEndpointConfig;
    assert.deepEqual(http.certificate, {
      keyStoreType: "PKCS12",
      keyStorePath: "ks.p12",
      keyStorePassword: "pw",
      keyAlias: "a",
      keyPassword: "kp",
    });
    assert.equal(http.sslEnabled, false);
    assert.equal((config.endpoints[1] as OpcUaEndpointConfig).userMap.alice, "secret");
    assert.equal(config.core.validationOnLoad, false);
  });
});

describe("precedence: file < environment < command line", () => {
  const file = () => configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: 1001 }] });
  const port = (options: Parameters<typeof loadConfig>[0]) =>
    (loadConfig(options).config.endpoints[0] as HttpEndpointConfig).port;

  test("file alone", () => assert.equal(port({ role: "embedded", configFile: file() }), 1001));
  test("environment over file", () =>
    assert.equal(port({ role: "embedded", configFile: file(), env: { TWINPORT_ENDPOINTS_0_PORT: "1002" } }), 1002));
  test("command line over environment", () =>
    assert.equal(
      port({
        role: "embedded",
        configFile: file(),
        env: { TWINPORT_ENDPOINTS_0_PORT: "1002" },
        overrides: ["endpoints[0].port=1003"],
      }),
      1003,
    ));
  test("TWINPORT_CONFIG names the file; configFile wins over it", () => {
    assert.equal(port({ role: "embedded", env: { TWINPORT_CONFIG: file() } }), 1001);
    const other = configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: 2001 }] });
    assert.equal(port({ role: "embedded", configFile: other, env: { TWINPORT_CONFIG: file() } }), 2001);
  });
});

describe("environment overrides", () => {
  test("segments match keys case-insensitively; digits are indexes; CLASS names @class", () => {
    const { config, warnings } = loadConfig({
      role: "embedded",
      env: {
        TWINPORT_ENDPOINTS_1_TCPPORT: "4850",
        TWINPORT_endpoints_0_sslenabled: "false",
        TWINPORT_PERSISTENCE_CLASS: "persistence.redis.PersistenceRedis",
        TWINPORT_PERSISTENCE_URL: "redis://10.0.0.1:6380",
        TWINPORT_CORE_MININFLATERATIO: "0.5",
        TWINPORT_ENDPOINTS_1_USERMAP_alice: "pw",
      },
    });
    assert.deepEqual(warnings, []);
    assert.equal((config.endpoints[1] as OpcUaEndpointConfig).tcpPort, 4850);
    assert.deepEqual((config.endpoints[1] as OpcUaEndpointConfig).userMap, { alice: "pw" });
    assert.equal((config.endpoints[0] as HttpEndpointConfig).sslEnabled, false);
    assert.deepEqual(config.persistence, {
      "@class": "persistence.redis.PersistenceRedis",
      url: "redis://10.0.0.1:6380",
      keyPrefix: "tp",
    });
    assert.equal(config.core.minInflateRatio, 0.5);
  });

  test("text settings keep digits as text, read a JSON string as its text; lists of names accept commas", () => {
    const { config } = loadConfig({
      role: "model-store",
      env: { TWINPORT_PERSISTENCE_KEYPREFIX: "0042", TWINPORT_ENDPOINTS_0_PROFILES: "AAS_READ, SUBMODEL_READ" },
    });
    assert.equal(
      config.persistence["@class"] === "persistence.redis.PersistenceRedis" && config.persistence.keyPrefix,
      "0042",
    );
    assert.deepEqual((config.endpoints[0] as HttpEndpointConfig).profiles, ["AAS_READ", "SUBMODEL_READ"]);
    // The quotes of a JSON string are its syntax, not part of the host (as `--help` says: JSON when it parses).
    const quoted = loadConfig({ role: "embedded", overrides: ['endpoints[0].host="127.0.0.1"'] }).config;
    assert.equal((quoted.endpoints[0] as HttpEndpointConfig).host, "127.0.0.1");
    const env = loadConfig({ role: "embedded", env: { TWINPORT_ENDPOINTS_0_HOST: '"::1"' } }).config;
    assert.equal((env.endpoints[0] as HttpEndpointConfig).host, "::1");
    const half = loadConfig({ role: "embedded", overrides: ['endpoints[0].host="127.0.0.1'] }).config;
    assert.equal((half.endpoints[0] as HttpEndpointConfig).host, '"127.0.0.1', "not JSON: kept as written");
  });

  test("a variable naming constructor or prototype is ignored with a warning and sets nothing", () => {
    const { config, warnings } = loadConfig({
      role: "embedded",
      env: {
        TWINPORT_ENDPOINTS_1_USERMAP_CONSTRUCTOR_PROTOTYPE_POLLUTED: "1",
        TWINPORT_PROTOTYPE_SERVICE_HOST: "10.0.0.9",
      },
    });
    assert.deepEqual(warnings, [
      "Ignoring environment variable TWINPORT_ENDPOINTS_1_USERMAP_CONSTRUCTOR_PROTOTYPE_POLLUTED: 'CONSTRUCTOR' cannot be part of a configuration path (it reaches JavaScript's object prototype)",
      "Ignoring environment variable TWINPORT_PROTOTYPE_SERVICE_HOST: 'PROTOTYPE' cannot be part of a configuration path (it reaches JavaScript's object prototype)",
    ]);
    assert.equal(Object.hasOwn((config.endpoints[1] as OpcUaEndpointConfig).userMap ?? {}, "CONSTRUCTOR"), false);
    assert.equal(Object.hasOwn(Object.prototype, "POLLUTED"), false);
  });

  test("unknown TWINPORT_* variables are warnings, reserved ones are not overrides", () => {
    const { config, warnings } = loadConfig({
      role: "embedded",
      env: {
        TWINPORT_SERVICE_HOST: "10.0.0.9",
        TWINPORT_ENDPOINTS_0_PROT: "1",
        TWINPORT_ENDPOINTS_7_PORT: "1",
        TWINPORT_MODEL: "a.json,b.json",
        PATH: "/bin",
      },
    });
    assert.equal(warnings.length, 3);
    assert.match(
      warnings.find((w) => w.includes("TWINPORT_SERVICE_HOST"))!,
      /Unknown key 'service'\. Allowed: core, endpoints, persistence, messageBus, fileStorage, assetConnections/,
    );
    assert.match(
      warnings.find((w) => w.includes("TWINPORT_ENDPOINTS_0_PROT"))!,
      /Unknown key 'endpoints\[0\]\.prot'\. Did you mean 'port'\? Allowed: @class, profiles, .*port/,
    );
    assert.match(warnings.find((w) => w.includes("TWINPORT_ENDPOINTS_7_PORT"))!, /has 2 entries/);
    assert.equal(config.endpoints.length, 2);
  });

  test("a refused value says where it came from: the variable, or the command line; a file's value says nothing more", () => {
    const message = (options: { env?: NodeJS.ProcessEnv; overrides?: string[]; configFile?: string }) =>
      configError(() => loadConfig({ role: "embedded", ...options })).message;
    const refused = `Invalid value "verbose" at 'core.logLevel'. Allowed: fatal, error, warn, info, debug, trace`;
    assert.equal(message({ env: { TWINPORT_CORE_LOGLEVEL: "verbose" } }), `${refused} (from TWINPORT_CORE_LOGLEVEL)`);
    assert.equal(message({ overrides: ["core.logLevel=verbose"] }), `${refused} (from the command line)`);
    assert.equal(message({ configFile: configFile({ core: { logLevel: "verbose" } }) }), refused);
    // The command line wins over the variable, and so does its origin.
    assert.equal(
      message({ env: { TWINPORT_CORE_LOGLEVEL: "info" }, overrides: ["core.logLevel=verbose"] }),
      `${refused} (from the command line)`,
    );
    // A whole section set at once: its parts are from there too.
    assert.match(
      message({ env: { TWINPORT_CORE: '{"logLevel":"verbose"}' } }),
      /^Invalid value "verbose" at 'core\.logLevel'\..* \(from TWINPORT_CORE\)$/,
    );
    assert.match(
      message({ env: { TWINPORT_PERSISTENCE_CLASS: "x.y.Z" } }),
      /^Unknown @class 'x\.y\.Z' at persistence\..* \(from TWINPORT_PERSISTENCE_CLASS\)$/,
    );
  });

  test("a known setting with a bad value is an error, not a warning", () => {
    assert.equal(
      configError(() => loadConfig({ role: "embedded", env: { TWINPORT_ENDPOINTS_0_PORT: "eighty" } })).message,
      `Invalid value at 'endpoints[0].port': expected number, got string "eighty" (from TWINPORT_ENDPOINTS_0_PORT)`,
    );
  });
});

describe("CORS settings (FA³ST's comma-separated texts)", () => {
  const http = (overrides: string[], env: NodeJS.ProcessEnv = {}) =>
    loadConfig({ role: "embedded", endpointKinds: ["http"], overrides, env }).config.endpoints[0] as HttpEndpointConfig;
  test("lists of methods, header names and origins load as written", () => {
    const endpoint = http([
      "endpoints[0].corsAllowedMethods=GET, PATCH,DELETE",
      "endpoints[0].corsAllowedHeaders=Content-Type, Authorization",
      "endpoints[0].corsExposedHeaders=ETag",
      "endpoints[0].corsAllowedOrigin=https://app.example.com, http://localhost:3000",
      "endpoints[0].corsAllowCredentials=true",
    ]);
    assert.equal(endpoint.corsAllowedMethods, "GET, PATCH,DELETE");
    assert.equal(endpoint.corsAllowedOrigin, "https://app.example.com, http://localhost:3000");
    assert.equal(http(["endpoints[0].corsAllowedHeaders="]).corsAllowedHeaders, "");
    // FA³ST's own example writes a bare host: it loads, with a warning that it lets no page in.
    const loaded = loadConfig({
      role: "embedded",
      endpointKinds: ["http"],
      overrides: ["endpoints[0].corsAllowedOrigin=localhost"],
    });
    assert.match(
      loaded.warnings.join("\n"),
      /'endpoints\[0\]\.corsAllowedOrigin' names 'localhost', which has no scheme/,
    );
  });
  test("anything else is refused from the command line, the environment and a file, naming the key and the form", () => {
    assert.equal(
      configError(() => http(['endpoints[0].corsAllowedMethods=["GET","PATCH"]'])).message,
      `Invalid value at 'endpoints[0].corsAllowedMethods': expected comma-separated HTTP methods, such as "GET, POST, HEAD" (got string ${JSON.stringify('["GET","PATCH"]')}) (from the command line)`,
    );
    assert.match(
      configError(() => http([], { TWINPORT_ENDPOINTS_0_CORSALLOWEDHEADERS: "Content-Type; Accept" })).message,
      /^Invalid value at 'endpoints\[0\]\.corsAllowedHeaders': expected nothing or comma-separated header names/,
    );
    assert.match(
      configError(() => http(["endpoints[0].corsExposedHeaders=ETag,,Link"])).message,
      /^Invalid value at 'endpoints\[0\]\.corsExposedHeaders': expected nothing or comma-separated header names/,
    );
    assert.match(configError(() => http(["endpoints[0].corsAllowedMethods="])).message, /corsAllowedMethods/);
    for (const origin of [
      "https://app.example.com/",
      "https://app.example.com/api",
      "*, https://a.example",
      "HTTPS://A.EXAMPLE",
      "null",
    ]) {
      const file = configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", corsAllowedOrigin: origin }] });
      assert.match(
        configError(() => loadConfig({ role: "embedded", configFile: file })).message,
        /^Invalid value at 'endpoints\[0\]\.corsAllowedOrigin': expected "\*" or comma-separated origins as browsers send them \(scheme:\/\/host\[:port\]/,
        origin,
      );
    }
  });
  test("corsAllowCredentials with origin * is refused: browsers reject that answer", () => {
    assert.equal(
      configError(() => http(["endpoints[0].corsAllowCredentials=true"])).message,
      `Invalid value at 'endpoints[0].corsAllowCredentials': corsAllowCredentials true needs the origins named in corsAllowedOrigin: browsers refuse a credentialed answer that allows origin "*" (got boolean true) (from the command line)`,
    );
  });
});

describe("OPC UA endpoint settings nobody could connect with", () => {
  const load = (...overrides: string[]) => loadConfig({ role: "embedded", endpointKinds: ["opcua"], overrides });
  test("no security policy, or no authentication, is refused", () => {
    assert.equal(
      configError(() => load("endpoints[0].supportedSecurityPolicies=[]")).message,
      "Invalid value at 'endpoints[0].supportedSecurityPolicies': no security policy listed, so the endpoint offers no way to connect; list at least one of NONE, BASIC128RSA15, BASIC256, BASIC256SHA256, AES128_SHA256_RSAOAEP, AES256_SHA256_RSAPSS (from the command line)",
    );
    assert.equal(
      configError(() => load("endpoints[0].supportedAuthentications=[]")).message,
      "Invalid value at 'endpoints[0].supportedAuthentications': no authentication listed, so no client can open a session; list at least one of Anonymous, UserName, Certificate (from the command line)",
    );
  });
  test("UserName or Certificate with NONE as the only policy is refused (docs/opcua.md), even beside Anonymous", () => {
    assert.equal(
      configError(() =>
        load('endpoints[0].supportedAuthentications=["UserName"]', 'endpoints[0].supportedSecurityPolicies=["NONE"]'),
      ).message,
      "Invalid value at 'endpoints[0].supportedSecurityPolicies': supportedAuthentications lists UserName, which needs a security policy besides NONE (the password or user certificate is protected with it): with NONE alone no client can log in that way. Add one, e.g. BASIC256SHA256 (from the command line)",
    );
    assert.match(
      configError(() =>
        load(
          "endpoints[0].supportedAuthentications=Anonymous,Certificate",
          "endpoints[0].supportedSecurityPolicies=NONE",
        ),
      ).message,
      /supportedAuthentications lists Certificate, which needs a security policy besides NONE/,
    );
    // Anonymous alone on NONE, and logins beside a policy that protects them, load.
    load("endpoints[0].supportedSecurityPolicies=NONE");
    load(
      "endpoints[0].supportedAuthentications=UserName",
      "endpoints[0].supportedSecurityPolicies=BASIC256SHA256",
      'endpoints[0].userMap={"operator":"secret"}',
    );
  });
  test("UserName as the only way in with no user in userMap is refused where OPC UA is served, naming the key", () => {
    const userNameOnly = [
      "endpoints[0].supportedAuthentications=UserName",
      "endpoints[0].supportedSecurityPolicies=BASIC256SHA256",
    ];
    const message = (index: number) =>
      `Missing 'endpoints[${index}].userMap': supportedAuthentications lists UserName only, and a UserName login is checked against userMap, which names no user, so no client could ever open a session. ` +
      `Add users (user name → password, e.g. TWINPORT_ENDPOINTS_${index}_USERMAP='{"operator":"a long password"}'), or list Anonymous or Certificate too`;
    assert.equal(configError(() => load(...userNameOnly)).message, message(0));
    assert.equal(configError(() => load(...userNameOnly, "endpoints[0].userMap={}")).message, message(0));
    // The default endpoints: OPC UA is endpoints[1].
    const secondEndpoint = userNameOnly.map((override) => override.replace("[0]", "[1]"));
    assert.equal(
      configError(() => loadConfig({ role: "opcua-gateway", overrides: secondEndpoint })).message,
      message(1),
    );
    // The model-store and the http-gateway read the same file without the users: they serve no OPC UA.
    for (const role of ["model-store", "http-gateway"] as const) {
      const { warnings } = loadConfig({ role, overrides: secondEndpoint });
      assert.deepEqual(warnings, [], role);
    }
  });
  test("UserName beside another authentication with no user in userMap loads with a warning", () => {
    const { warnings } = load(
      'endpoints[0].supportedAuthentications=["Anonymous","UserName"]',
      "endpoints[0].supportedSecurityPolicies=BASIC256SHA256",
    );
    assert.deepEqual(warnings, [
      "'endpoints[0].userMap' names no user, so every UserName login on this OPC UA endpoint is refused; clients get in with Anonymous only. Add users to userMap, or drop UserName from supportedAuthentications",
    ]);
  });
  test("a user with an empty password loads with a warning naming the user (where UserName is served)", () => {
    const { warnings } = load(
      'endpoints[0].supportedAuthentications=["UserName"]',
      "endpoints[0].supportedSecurityPolicies=BASIC256SHA256",
      'endpoints[0].userMap={"operator":"a long password","bob":""}',
    );
    assert.deepEqual(warnings, [
      "'endpoints[0].userMap' gives 'bob' an empty password: a UserName login with that name and no password opens a session on this OPC UA endpoint. Give every user a password",
    ]);
    assert.deepEqual(
      load('endpoints[0].supportedAuthentications=["Anonymous"]', 'endpoints[0].userMap={"bob":""}').warnings,
      [],
    );
  });
});

describe("folders under /proc or /sys (the kernel's views, where Node's recursive mkdir loops forever)", () => {
  const under = (setting: string, path: string, origin = " (from the command line)") =>
    `Invalid value at '${setting}': '${path}' is under ${path.split("/")[1] === "sys" ? "/sys" : "/proc"}, the kernel's view of processes and devices, where no folder can be made or file kept; choose a folder on a disk or volume${origin}`;
  test("fileStorage.path, core.stateDir and the OPC UA certificate folders are refused there, naming the setting", () => {
    const filesystem = (path: string) =>
      `fileStorage={"@class":"filestorage.filesystem.FileStorageFilesystem","path":"${path}"}`;
    assert.equal(
      configError(() => loadConfig({ role: "embedded", overrides: [filesystem("/proc/1/x")] })).message,
      under("fileStorage.path", "/proc/1/x"),
    );
    assert.equal(
      configError(() => loadConfig({ role: "model-store", overrides: [filesystem("/var/../proc/self/files")] }))
        .message,
      under("fileStorage.path", "/var/../proc/self/files"),
    );
    // The default fileStorage.path lies in core.stateDir: that one is named, once.
    assert.equal(
      configError(() =>
        loadConfig({
          role: "embedded",
          overrides: [
            "core.stateDir=/sys/kernel/twinport",
            'fileStorage={"@class":"filestorage.filesystem.FileStorageFilesystem"}',
          ],
        }),
      ).message,
      under("core.stateDir", "/sys/kernel/twinport"),
    );
    assert.equal(
      configError(() =>
        loadConfig({
          role: "opcua-gateway",
          env: { TWINPORT_ENDPOINTS_1_SERVERCERTIFICATEBASEPATH: "/proc/pki" },
        }),
      ).message,
      under(
        "endpoints[1].serverCertificateBasePath",
        "/proc/pki",
        " (from TWINPORT_ENDPOINTS_1_SERVERCERTIFICATEBASEPATH)",
      ),
    );
    // Beside them, and relative paths that resolve elsewhere, load.
    loadConfig({ role: "embedded", overrides: [filesystem("/processes/x"), "core.stateDir=proc/state"] });
  });

  test("a path that reaches /proc through a symbolic link is refused too (it hung the start)", () => {
    const dir = mkdtempSync(join(tmpdir(), "twinport-kernel-link-"));
    try {
      symlinkSync("/proc", join(dir, "plink"));
      const stateDir = join(dir, "plink", "x");
      assert.equal(
        configError(() => loadConfig({ role: "embedded", overrides: [`core.stateDir=${stateDir}`] })).message,
        under("core.stateDir", stateDir),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the web console switch (consoleEnabled)", () => {
  const consoleEnabled = (options: Parameters<typeof loadConfig>[0]) =>
    (loadConfig(options).config.endpoints[0] as HttpEndpointConfig).consoleEnabled;
  test("on by default; off from a file, the environment or the command line; anything but a boolean refused", () => {
    assert.equal(consoleEnabled({ role: "embedded" }), true);
    const file = configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", consoleEnabled: false }] });
    assert.equal(consoleEnabled({ role: "embedded", configFile: file }), false);
    assert.equal(consoleEnabled({ role: "embedded", env: { TWINPORT_ENDPOINTS_0_CONSOLEENABLED: "false" } }), false);
    assert.equal(consoleEnabled({ role: "embedded", overrides: ["endpoints[0].consoleEnabled=false"] }), false);
    assert.equal(
      configError(() => loadConfig({ role: "embedded", overrides: ["endpoints[0].consoleEnabled=maybe"] })).message,
      `Invalid value at 'endpoints[0].consoleEnabled': expected boolean (true or false), got string "maybe" (from the command line)`,
    );
  });
});

describe("command-line overrides", () => {
  test("unknown key names the full path and the allowed keys", () => {
    assert.equal(
      configError(() => loadConfig({ role: "embedded", overrides: ["endpoints[0].prot=8081"] })).message,
      "Unknown key 'endpoints[0].prot'. Did you mean 'port'? Allowed: @class, profiles, certificate, corsAllowCredentials, corsAllowedHeaders, corsAllowedMethods, " +
        "corsAllowedOrigin, corsEnabled, isCorsEnabled, corsExposedHeaders, corsMaxAge, hostname, includeErrorDetails, port, sniEnabled, sslEnabled, pathPrefix, host, maxRequestBodySize, maxConnections, maxBufferedRequestBodySize, consoleEnabled, openApiEnabled",
    );
    assert.equal(
      configError(() => loadConfig({ role: "embedded", overrides: ["cor.stateDir=x"] })).message,
      "Unknown key 'cor'. Did you mean 'core'? Allowed: core, endpoints, persistence, messageBus, fileStorage, assetConnections, submodelTemplateProcessors, security, events",
    );
  });

  test("keys are case-sensitive on the command line", () => {
    assert.match(
      configError(() => loadConfig({ role: "embedded", overrides: ["endpoints[0].PORT=1"] })).message,
      /^Unknown key 'endpoints\[0\]\.PORT'/,
    );
  });

  test("values are JSON when they parse, text otherwise; $. prefix and dotted indexes work", () => {
    const { config } = loadConfig({
      role: "embedded",
      overrides: [
        "$.endpoints[0].port=8081",
        "endpoints.0.hostname=aas.local",
        'endpoints[1].userMap={"bob":"pw"}',
        "core.stateDir=123",
      ],
    });
    const http = config.endpoints[0] as HttpEndpointConfig;
    assert.equal(http.port, 8081);
    assert.equal(http.hostname, "aas.local");
    assert.deepEqual((config.endpoints[1] as OpcUaEndpointConfig).userMap, { bob: "pw" });
    assert.equal(config.core.stateDir, "123");
  });

  test("booleans accept only true and false (in any case, as Jackson: TRUE, False)", () => {
    assert.equal(
      (
        loadConfig({ role: "embedded", overrides: ["endpoints[0].sslEnabled=false"] }).config
          .endpoints[0] as HttpEndpointConfig
      ).sslEnabled,
      false,
    );
    assert.equal(
      (
        loadConfig({ role: "embedded", overrides: ["endpoints[0].sslEnabled=FALSE"] }).config
          .endpoints[0] as HttpEndpointConfig
      ).sslEnabled,
      false,
    );
    for (const text of ["yes", "1"]) {
      assert.match(
        configError(() => loadConfig({ role: "embedded", overrides: [`endpoints[0].sslEnabled=${text}`] })).message,
        /^Invalid value at 'endpoints\[0\]\.sslEnabled': expected boolean \(true or false\), got /,
      );
    }
  });

  test("an entry can be appended by setting its @class first; a gap is an error", () => {
    const { config } = loadConfig({
      role: "embedded",
      overrides: ["endpoints[2].@class=endpoint.http.HttpEndpoint", "endpoints[2].port=9000"],
    });
    assert.equal((config.endpoints[2] as HttpEndpointConfig).port, 9000);
    assert.match(
      configError(() => loadConfig({ role: "embedded", overrides: ["endpoints[5].port=1"] })).message,
      /endpoints' has 2 entries/,
    );
  });

  test("a whole section can be replaced with JSON", () => {
    const { config } = loadConfig({
      role: "embedded",
      overrides: ['messageBus={"@class":"messagebus.nats.MessageBusNats","url":"nats://n:4222"}'],
    });
    assert.deepEqual(config.messageBus, {
      "@class": "messagebus.nats.MessageBusNats",
      url: "nats://n:4222",
      requestTimeoutMs: 5000,
      readCacheMaxAgeMs: 5000,
      readCacheMaxBytes: 67108864,
    });
  });

  test("malformed overrides", () => {
    for (const text of ["endpoints[0].port", "=1", "endpoints[x].port=1", "a..b=1"]) {
      assert.match(
        configError(() => loadConfig({ role: "embedded", overrides: [text] })).message,
        /^Invalid override '.*': expected path=value/,
      );
    }
  });

  test("a path through __proto__, constructor or prototype is refused and Object.prototype stays clean", () => {
    const overrides = [
      "assetConnections[0].__proto__.polluted=1",
      "assetConnections[0].valueProviders.__proto__.polluted=1",
      "assetConnections[0].constructor.prototype.polluted=1",
      "endpoints[1].userMap.__proto__.polluted=1",
      "$.core.__proto__.polluted=1",
      "__proto__.polluted=1",
    ];
    for (const override of overrides) {
      const message = configError(() => loadConfig({ role: "embedded", overrides: [override] })).message;
      assert.match(
        message,
        /^Invalid override '.*': '(__proto__|constructor)' cannot be part of a configuration path \(it reaches JavaScript's object prototype\)$/,
        override,
      );
      assert.equal(Object.hasOwn(Object.prototype, "polluted"), false, override);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, override);
    }
  });

  test("persistence.cluster names Redis Cluster nodes; a list from the environment, unknown keys and bad nodes refused", () => {
    const { config } = loadConfig({
      role: "model-store",
      env: { TWINPORT_PERSISTENCE_CLUSTER_NODES: "redis://10.0.0.1:7000,redis://10.0.0.2:7000" },
    });
    assert.deepEqual(config.persistence, {
      "@class": "persistence.redis.PersistenceRedis",
      url: "redis://127.0.0.1:6379",
      keyPrefix: "tp",
      cluster: { nodes: ["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"] },
    });
    assert.match(
      configError(() =>
        loadConfig({ role: "model-store", overrides: ['persistence.cluster={"node":["redis://a:1"]}'] }),
      ).message,
      /Unknown key 'persistence\.cluster\.node'\. Did you mean 'nodes'\? Allowed: nodes/,
    );
    assert.match(
      configError(() =>
        loadConfig({ role: "model-store", overrides: ['persistence.cluster={"nodes":["10.0.0.1:7000"]}'] }),
      ).message,
      /persistence\.cluster\.nodes\[0\].*redis:\/\/\[user:password@\]host:port/,
    );
  });

  test("a setting of the memory persistence does not exist on Redis and the other way round", () => {
    assert.match(
      configError(() => loadConfig({ role: "embedded", overrides: ["persistence.url=redis://x"] })).message,
      /^Unknown key 'persistence\.url' for persistence\.memory\.PersistenceInMemory: it is a setting of persistence\.redis\.PersistenceRedis \(set persistence\.@class=persistence\.redis\.PersistenceRedis to use that\)\. Allowed: @class, initialModelFile$/,
    );
  });

  test("an environment variable naming another class's setting: the key as a file writes it, and the class that takes it", () => {
    const { config, warnings } = loadConfig({
      role: "embedded",
      env: { TWINPORT_PERSISTENCE_URL: "redis://127.0.0.1:6390", TWINPORT_ENDPOINTS_0_TCPPORT: "4841" },
    });
    assert.deepEqual(warnings, [
      "Ignoring environment variable TWINPORT_ENDPOINTS_0_TCPPORT: Unknown key 'endpoints[0].tcpPort' for endpoint.http.HttpEndpoint: it is a setting of endpoint.opcua.OpcUaEndpoint (set TWINPORT_ENDPOINTS_0_CLASS=endpoint.opcua.OpcUaEndpoint to use that). Allowed: @class, profiles, certificate, corsAllowCredentials, corsAllowedHeaders, corsAllowedMethods, corsAllowedOrigin, corsEnabled, isCorsEnabled, corsExposedHeaders, corsMaxAge, hostname, includeErrorDetails, port, sniEnabled, sslEnabled, pathPrefix, host, maxRequestBodySize, maxConnections, maxBufferedRequestBodySize, consoleEnabled, openApiEnabled",
      "Ignoring environment variable TWINPORT_PERSISTENCE_URL: Unknown key 'persistence.url' for persistence.memory.PersistenceInMemory: it is a setting of persistence.redis.PersistenceRedis (set TWINPORT_PERSISTENCE_CLASS=persistence.redis.PersistenceRedis to use that). Allowed: @class, initialModelFile",
    ]);
    assert.equal(config.persistence["@class"], "persistence.memory.PersistenceInMemory");
    // With the class named too, both apply.
    const redis = loadConfig({
      role: "embedded",
      env: {
        TWINPORT_PERSISTENCE_CLASS: "persistence.redis.PersistenceRedis",
        TWINPORT_PERSISTENCE_URL: "redis://127.0.0.1:6390",
      },
    });
    assert.deepEqual(redis.warnings, []);
    assert.equal((redis.config.persistence as { url: string }).url, "redis://127.0.0.1:6390");
  });

  test("a class named on the command line takes the environment's settings of that class (the command line still wins on a value both name)", () => {
    const { config, warnings } = loadConfig({
      role: "embedded",
      env: {
        TWINPORT_PERSISTENCE_URL: "redis://127.0.0.1:6390",
        TWINPORT_PERSISTENCE_KEYPREFIX: "from-env",
        TWINPORT_ENDPOINTS_0_CLASS: "endpoint.http.HttpEndpoint",
        TWINPORT_ENDPOINTS_0_TCPPORT: "4841",
      },
      overrides: [
        "persistence.@class=persistence.redis.PersistenceRedis",
        "persistence.keyPrefix=from-cli",
        "endpoints[0].@class=endpoint.opcua.OpcUaEndpoint",
      ],
    });
    assert.deepEqual(warnings, []);
    assert.deepEqual(config.persistence, {
      "@class": "persistence.redis.PersistenceRedis",
      url: "redis://127.0.0.1:6390",
      keyPrefix: "from-cli",
    });
    assert.equal(config.endpoints[0]!["@class"], "endpoint.opcua.OpcUaEndpoint");
    assert.equal((config.endpoints[0] as OpcUaEndpointConfig).tcpPort, 4841);
  });

  test("a whole entry given on the command line with its class takes the environment's settings of that class; its own members still win", () => {
    const env = { TWINPORT_PERSISTENCE_URL: "redis://127.0.0.1:6390", TWINPORT_PERSISTENCE_KEYPREFIX: "from-env" };
    const { config, warnings } = loadConfig({
      role: "embedded",
      env,
      overrides: ['persistence={"@class":"persistence.redis.PersistenceRedis"}'],
    });
    assert.deepEqual(warnings, []);
    assert.deepEqual(config.persistence, {
      "@class": "persistence.redis.PersistenceRedis",
      url: "redis://127.0.0.1:6390",
      keyPrefix: "from-env",
    });
    const named = loadConfig({
      role: "embedded",
      env,
      overrides: ['persistence={"@class":"persistence.redis.PersistenceRedis","url":"redis://10.0.0.9:6379"}'],
    });
    assert.deepEqual(named.warnings, []);
    assert.equal((named.config.persistence as { url: string }).url, "redis://10.0.0.9:6379");
    assert.equal((named.config.persistence as { keyPrefix: string }).keyPrefix, "from-env");
  });
});

describe("--endpoint", () => {
  test("keeps only the named kinds", () => {
    const { config } = loadConfig({ role: "embedded", endpointKinds: ["http"] });
    assert.deepEqual(config.endpoints, [HTTP_DEFAULTS]);
  });

  test("adds a default entry for a kind the file does not have", () => {
    const file = configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: 8443 }] });
    const { config } = loadConfig({ role: "embedded", configFile: file, endpointKinds: ["opcua", "http"] });
    assert.deepEqual(
      config.endpoints.map((e) => e["@class"]),
      ["endpoint.http.HttpEndpoint", "endpoint.opcua.OpcUaEndpoint"],
    );
    assert.equal((config.endpoints[0] as HttpEndpointConfig).port, 8443);
    assert.deepEqual(config.endpoints[1], OPCUA_DEFAULTS);
  });

  test("is applied before overrides, so their indexes name the endpoints that run", () => {
    const { config } = loadConfig({
      role: "embedded",
      endpointKinds: ["opcua"],
      overrides: ["endpoints[0].tcpPort=4841"],
      env: { TWINPORT_ENDPOINTS_0_HOST: "127.0.0.1" },
    });
    assert.deepEqual(config.endpoints, [{ ...OPCUA_DEFAULTS, tcpPort: 4841, host: "127.0.0.1" }]);
  });
});

describe("errors in the file", () => {
  const errorFor = (content: unknown) =>
    configError(() => loadConfig({ role: "embedded", configFile: configFile(content) })).message;

  test("unknown @class lists the known ones", () => {
    assert.equal(
      errorFor({ persistence: { "@class": "x.Foo" } }),
      "Unknown @class 'x.Foo' at persistence. Known: persistence.memory.PersistenceInMemory, persistence.redis.PersistenceRedis",
    );
    assert.equal(
      errorFor({ endpoints: [{ "@class": `${FAAAST}.endpoint.mqtt.MqttEndpoint` }] }),
      `Unknown @class '${FAAAST}.endpoint.mqtt.MqttEndpoint' at endpoints[0]. Known: endpoint.http.HttpEndpoint, endpoint.opcua.OpcUaEndpoint`,
    );
    assert.equal(
      errorFor({ messageBus: { "@class": `${FAAAST}.messagebus.cloudevents.MessageBusCloudEvents` } }),
      `Unknown @class '${FAAAST}.messagebus.cloudevents.MessageBusCloudEvents' at messageBus. Known: messagebus.internal.MessageBusInternal, messagebus.nats.MessageBusNats, messagebus.mqtt.MessageBusMqtt`,
    );
    assert.match(
      errorFor({ fileStorage: { "@class": "a.b.C" } }),
      /^Unknown @class 'a\.b\.C' at fileStorage\. Known: filestorage\.memory\.FileStorageInMemory, filestorage\.filesystem\.FileStorageFilesystem, filestorage\.redis\.FileStorageRedis$/,
    );
    assert.match(
      errorFor({ assetConnections: [{ "@class": "assetconnection.modbus.ModbusAssetConnection" }] }),
      /^Unknown @class .* at assetConnections\[0\]\. Known: assetconnection\.http\.HttpAssetConnection, /,
    );
  });

  test("missing @class", () => {
    assert.equal(
      errorFor({ endpoints: [{ port: 1 }] }),
      'Missing "@class" at endpoints[0]. Known: endpoint.http.HttpEndpoint, endpoint.opcua.OpcUaEndpoint',
    );
  });

  test("unknown keys at every level", () => {
    assert.equal(
      errorFor({ cores: {} }),
      "Unknown key 'cores'. Did you mean 'core'? Allowed: core, endpoints, persistence, messageBus, fileStorage, assetConnections, submodelTemplateProcessors, security, events",
    );
    assert.match(
      errorFor({ core: { stateDirectory: "x" } }),
      /^Unknown key 'core\.stateDirectory'\. Allowed: requestHandlerThreadPoolSize, .*stateDir, managementPort, managementHost, aasRegistries, submodelRegistries, registrySynchronization, logLevel, logFormat, progressIntervalMs$/,
    );
    assert.equal(
      errorFor({
        endpoints: [{ "@class": "endpoint.http.HttpEndpoint", certificate: { keyStorePath: "k", alias: "x" } }],
      }),
      "Unknown key 'endpoints[0].certificate.alias'. Allowed: keyStoreType, keyStorePath, keyStorePassword, keyAlias, keyPassword",
    );
    assert.match(
      errorFor({ persistence: { "@class": "persistence.redis.PersistenceRedis", host: "r" } }),
      /^Unknown key 'persistence\.host'\. Allowed: @class, url, keyPrefix, cluster$/,
    );
    assert.match(
      errorFor({ messageBus: { "@class": "messagebus.nats.MessageBusNats", timeout: 1 } }),
      /^Unknown key 'messageBus\.timeout'\. Allowed: @class, url, requestTimeoutMs, readCacheMaxAgeMs, readCacheMaxBytes, mqtt$/,
    );
  });

  test("wrong types, enum values, missing required properties; all problems at once", () => {
    const error = configError(() =>
      loadConfig({
        role: "embedded",
        configFile: configFile({
          core: { minInflateRatio: "small" },
          endpoints: [
            { "@class": "endpoint.http.HttpEndpoint", port: 70000, profiles: ["AAS_WRITE"], certificate: {} },
            { "@class": "endpoint.opcua.OpcUaEndpoint", supportedAuthentications: ["Kerberos"] },
          ],
        }),
      }),
    );
    assert.deepEqual(error.issues, [
      `Invalid value at 'core.minInflateRatio': expected number, got string "small"`,
      `Invalid value "AAS_WRITE" at 'endpoints[0].profiles[0]'. Allowed: ${[
        "AAS_FULL",
        "AAS_READ",
        "AAS_REPOSITORY_FULL",
        "AAS_REPOSITORY_READ",
        "AASX_FILE_SERVER_FULL",
        "CONCEPT_DESCRIPTION_FULL",
        "DISCOVERY_FULL",
        "FAAAST_IMPORT",
        "FAAAST_RESET",
        "SUBMODEL_FULL",
        "SUBMODEL_READ",
        "SUBMODEL_VALUE",
        "SUBMODEL_REPOSITORY_FULL",
        "SUBMODEL_REPOSITORY_READ",
        "TWINPORT_EVENTS",
      ].join(", ")}`,
      "Missing 'endpoints[0].certificate.keyStorePath' (string)",
      "Invalid value at 'endpoints[0].port': Too big: expected number to be <=65535 (got number 70000)",
      `Invalid value "Kerberos" at 'endpoints[1].supportedAuthentications[0]'. Allowed: Anonymous, UserName, Certificate`,
    ]);
    assert.equal(error.message, error.issues.join("; "));
  });

  test("bad durations and validation switches", () => {
    assert.equal(
      errorFor({ core: { operationHandleTtl: "1 hour" } }),
      `Invalid value at 'core.operationHandleTtl': expected an ISO 8601 duration such as PT1H (got string "1 hour")`,
    );
    assert.match(
      errorFor({ core: { validationOnLoad: "yes" } }),
      /^Invalid value at 'core\.validationOnLoad': expected true, false or an object with validateConstraints/,
    );
  });

  test("core.importMaxIdentifiableSize stays within the longest string V8 can hold", () => {
    assert.match(
      errorFor({ core: { importMaxIdentifiableSize: 2 ** 30 } }),
      /^Invalid value at 'core\.importMaxIdentifiableSize': at most 536870888 characters, the longest string/,
    );
  });

  test("sections of the wrong shape", () => {
    assert.equal(
      errorFor({ endpoints: { "@class": "endpoint.http.HttpEndpoint" } }),
      "'endpoints' must be a list (got an object)",
    );
    assert.match(
      errorFor({ persistence: "memory" }),
      /^'persistence' must be an object with "@class" \(got string "memory"\)/,
    );
  });

  test("unreadable files", () => {
    assert.equal(
      configError(() => loadConfig({ role: "embedded", configFile: join(dir, "missing.json") })).message,
      `Cannot read config file '${join(dir, "missing.json")}': no such file`,
    );
    assert.match(
      configError(() => loadConfig({ role: "embedded", configFile: configFile("{ core: ") })).message,
      /^Config file '.*' is not valid JSON: /,
    );
    assert.match(
      configError(() => loadConfig({ role: "embedded", configFile: configFile("[]") })).message,
      /^Config file '.*' must contain a JSON object$/,
    );
  });
});

test("core.shutdownDelay above PT1H is refused (a typo, and setTimeout would fire at once past ~24.8 days)", () => {
  assert.equal(
    configError(() => loadConfig({ role: "embedded", env: { TWINPORT_CORE_SHUTDOWNDELAY: "P1Y" } })).message,
    `Invalid value at 'core.shutdownDelay': at most PT1H (got string "P1Y") (from TWINPORT_CORE_SHUTDOWNDELAY)`,
  );
  const config = loadConfig({ role: "embedded", env: { TWINPORT_CORE_SHUTDOWNDELAY: "PT1H" } }).config;
  assert.equal(config.core.shutdownDelay, "PT1H");
});

test("core.shutdownDelay that is no ISO 8601 duration is a ConfigError naming the key, as other durations are", () => {
  for (const text of ["5", "5s", "abc", "-PT1S"]) {
    assert.equal(
      configError(() => loadConfig({ role: "embedded", overrides: [`core.shutdownDelay=${text}`] })).message,
      `Invalid value at 'core.shutdownDelay': expected an ISO 8601 duration such as PT5S (got string ${JSON.stringify(text)}) (from the command line)`,
    );
  }
  assert.match(
    configError(() => loadConfig({ role: "embedded", configFile: configFile({ core: { shutdownDelay: "5s" } }) }))
      .message,
    /^Invalid value at 'core\.shutdownDelay': expected an ISO 8601 duration such as PT5S/,
  );
});

test("isoDurationToMs", () => {
  assert.equal(isoDurationToMs("PT1H"), 3_600_000);
  assert.equal(isoDurationToMs("P1DT30M"), 86_400_000 + 1_800_000);
  assert.equal(isoDurationToMs("PT0.5S"), 500);
  assert.throws(() => isoDurationToMs("P"), /Not an ISO 8601 duration/);
  assert.throws(() => isoDurationToMs("PT"), /Not an ISO 8601 duration/);
});

describe("prototype members in a config file (issue 13)", () => {
  test("__proto__ anywhere is refused before anything is assigned from the file", () => {
    const texts = [
      '{"__proto__":{"core":{"logLevel":"debug"}}}',
      '{"core":{"__proto__":{"logLevel":"debug"}}}',
      '{"endpoints":[{"@class":"endpoint.http.HttpEndpoint","\\u005f_proto__":{"port":1}}]}',
    ];
    for (const text of texts) {
      const error = configError(() => loadConfig({ role: "embedded", configFile: configFile(text) }));
      assert.match(error.message, /__proto__/, text);
    }
    assert.equal(({} as Record<string, unknown>).logLevel, undefined, "Object.prototype is untouched");
  });

  test("constructor and prototype are unknown keys, at the top level too", () => {
    for (const [text, key] of [
      ['{"constructor":{"core":{}}}', "'constructor'"],
      ['{"prototype":{}}', "'prototype'"],
      ['{"core":{"constructor":{"prototype":{"logLevel":"debug"}}}}', "'core.constructor'"],
    ] as const) {
      const error = configError(() => loadConfig({ role: "embedded", configFile: configFile(text) }));
      assert.ok(error.message.includes(`Unknown key ${key}`), error.message);
    }
  });
});

test("an HTTP endpoint's hostname is a host name, an address or an http(s) URL; anything else would be advertised to every registry client", () => {
  const load = (hostname: string) =>
    loadConfig({
      role: "embedded",
      configFile: configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: 8443, hostname }] }),
    });
  for (const good of ["twin.example.com", "10.0.0.5", "[::1]", "my_service", "https://twins.example.com/plant-7"])
    assert.equal((load(good).config.endpoints[0] as { hostname?: string }).hostname, good);
  for (const bad of ["twin.example.com:9999", "ftp://x", "http://x y", "https://user:pw@x", "a/b"]) {
    const error = configError(() => load(bad));
    assert.match(error.message, /endpoints\[0\]\.hostname/, bad);
    assert.match(error.message, /a port goes into the URL form/, bad);
  }
});

test('booleans written "True" or "FALSE" (Python\'s str(), Jackson takes them) are read in the file and in environment variables', () => {
  const file = configFile({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: 8443, sslEnabled: "False" }] });
  const http = (env: NodeJS.ProcessEnv = {}) =>
    loadConfig({ role: "embedded", configFile: file, env }).config.endpoints[0] as { sslEnabled: boolean };
  assert.equal(http().sslEnabled, false);
  assert.equal(http({ TWINPORT_ENDPOINTS_0_SSLENABLED: "TRUE" }).sslEnabled, true);
  assert.equal(http({ TWINPORT_ENDPOINTS_0_SSLENABLED: "True" }).sslEnabled, true);
  // Anything else is still refused, naming the setting.
  assert.match(
    configError(() => http({ TWINPORT_ENDPOINTS_0_SSLENABLED: "yes" })).message,
    /endpoints\[0\]\.sslEnabled/,
  );
});

describe("the URLs of Redis and NATS are checked at start-up, their credentials masked in the refusal", () => {
  const redis = (url: string) => ({ "@class": "persistence.redis.PersistenceRedis", url });
  const nats = (url: string) => ({ "@class": "messagebus.nats.MessageBusNats", url });
  const load = (section: object) => loadConfig({ role: "model-store", configFile: configFile({ ...section }) }).config;

  test("a mistyped or foreign Redis URL is a configuration error that names the forms and hides the password", () => {
    for (const url of ["redis//:S3cretY@127.0.0.1:6379", "http://u:S3cretY@127.0.0.1:6379", "foo", "redis:/host"]) {
      const error = configError(() => load({ persistence: redis(url) }));
      assert.match(error.message, /persistence\.url.*not a Redis URL: redis:\/\/\[user:password@\]host/, url);
      assert.doesNotMatch(error.message, /S3cretY/, url);
    }
    for (const url of [
      "redis://127.0.0.1:6379",
      "rediss://default:pw@cache.example:6380/2",
      "redis://[::1]:6379",
      "redis://:p%40ss@host",
      "/var/run/redis/redis.sock",
    ])
      assert.equal((load({ persistence: redis(url) }).persistence as { url: string }).url, url);
  });

  test("a mistyped or foreign NATS URL is a configuration error; lists and tokens are accepted", () => {
    for (const url of ["nats//u:SecretNN@127.0.0.1:4222", "http://SecretNN@127.0.0.1:4222", "nats://a:4222,ftp://b"]) {
      const error = configError(() => load({ messageBus: nats(url) }));
      assert.match(error.message, /messageBus\.url.*not a NATS URL/, url);
      assert.doesNotMatch(error.message, /SecretNN/, url);
    }
    for (const url of [
      "nats://127.0.0.1:4222",
      "nats://a:4222, nats://b:4222",
      "tls://tok@nats.example:4222",
      "127.0.0.1:4222",
    ])
      assert.equal((load({ messageBus: nats(url) }).messageBus as { url: string }).url, url);
  });

  test("displayUrl masks credentials also where the scheme is mistyped, missing, or the password holds a slash", () => {
    assert.equal(displayUrl("redis://:secret@host:6379"), "redis://***@host:6379");
    assert.equal(displayUrl("redis//:secret@host:6379"), "redis//***@host:6379");
    assert.equal(displayUrl("u:secret@host:4222"), "***@host:4222");
    assert.equal(displayUrl("redis://u:se/cr@et@host"), "redis://***@host");
    assert.equal(displayUrl("nats://a@h1,nats://h2"), "nats://***@h1,nats://h2");
    assert.equal(displayUrl("redis://host:6379/0"), "redis://host:6379/0");
  });
});

test("a config file that begins with a UTF-8 byte order mark is read as without it", () => {
  const file = configFile(`\uFEFF${JSON.stringify({ core: { managementPort: 46_002 } })}`);
  assert.equal(loadConfig({ role: "embedded", configFile: file }).config.core.managementPort, 46_002);
});

test("FA³ST's aclFolder stops the start with what to do instead: ignoring it would serve without its rules", () => {
  const file = configFile({
    endpoints: [
      { "@class": `${FAAAST}.endpoint.http.HttpEndpoint`, port: 8080, sslEnabled: false, aclFolder: "acl/https" },
    ],
  });
  const error = configError(() => loadConfig({ role: "embedded", configFile: file }));
  assert.match(
    error.message,
    /FA³ST option endpoints\[0\]\.aclFolder is not supported by Twinport: .*write the rules as `security\.rules`/,
  );
  assert.doesNotMatch(error.message, /Unknown key/);
});

test("aclFolder set by an environment variable (ours or FA³ST's) or an override stops the start as in the file", () => {
  const file = configFile({ endpoints: [{ "@class": `${FAAAST}.endpoint.http.HttpEndpoint`, port: 8080 }] });
  for (const env of [
    { TWINPORT_ENDPOINTS_0_ACLFOLDER: "/acl" },
    { "faaast_config_extension_endpoints[0]_aclFolder": "/acl" },
    { faaast_config_extension_endpoints_0_aclFolder: "/acl" },
  ]) {
    const error = configError(() => loadConfig({ role: "embedded", configFile: file, env }));
    assert.match(
      error.message,
      /FA³ST option endpoints\[0\]\.aclFolder is not supported by Twinport: .*security\.rules/,
    );
  }
  const error = configError(() =>
    loadConfig({ role: "embedded", configFile: file, overrides: ["endpoints[0].aclFolder=/acl"] }),
  );
  assert.match(error.message, /FA³ST option endpoints\[0\]\.aclFolder is not supported by Twinport/);
});

test("Redis and NATS URLs the clients would refuse later are refused at start-up; valid ioredis forms pass; query secrets are masked", () => {
  const load = (section: object) => loadConfig({ role: "model-store", configFile: configFile({ ...section }) }).config;
  const redis = (url: string) => ({ persistence: { "@class": "persistence.redis.PersistenceRedis", url } });
  const nats = (url: string) => ({ messageBus: { "@class": "messagebus.nats.MessageBusNats", url } });
  for (const url of [
    "redis://u:s3cret%zz@127.0.0.1:6379",
    "redis://u:s3cret?x@127.0.0.1:6379",
    "redis://127.0.0.1:99999",
    "redis://u:s3cret@127.0.0.1:0",
    "redis://127.0.0.1:6379/?password=s3cret x",
  ]) {
    const error = configError(() => load(redis(url)));
    assert.match(error.message, /persistence\.url.*not a Redis URL/, url);
    assert.doesNotMatch(error.message, /s3cret/, url);
  }
  for (const url of ["nats://u:s3cret%zz@127.0.0.1:4222", "nats://127.0.0.1:99999"]) {
    const error = configError(() => load(nats(url)));
    assert.match(error.message, /messageBus\.url.*not a NATS URL/, url);
    assert.doesNotMatch(error.message, /s3cret/, url);
  }
  for (const url of ["redis://cache.example?family=6", "redis://127.0.0.1:6379/100", "/run/redis.sock?password=s3cret"])
    assert.equal((load(redis(url)).persistence as { url: string }).url, url);
  assert.equal(displayUrl("/run/redis.sock?password=s3cret&db=1"), "/run/redis.sock?password=***&db=1");
  assert.equal(displayUrl("nats://h:4222?token=s3cret"), "nats://h:4222?token=***");
});
