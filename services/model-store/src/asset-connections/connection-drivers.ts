import {
  type CertificateConfig,
  HTTP_ASSET_CONNECTION_CLASS,
  type HttpAssetConnectionConfig,
  type Logger,
  MQTT_ASSET_CONNECTION_CLASS,
  type MqttAssetConnectionConfig,
  OPCUA_ASSET_CONNECTION_CLASS,
  type OpcUaAssetConnectionConfig,
  readKeyStore,
  type StoreClient,
} from "@twinport/shared";
import type { AssetConnectionDriver, Log } from "./asset-connection-types.ts";
import { createHttpDriver } from "./http-driver.ts";
import { findKeyStore } from "./keystore.ts";
import type { MergedConnection } from "./merge-connections.ts";

export interface DriverDependencies {
  /** Reads Operation declarations for operation providers. */
  store: StoreClient;
  /** core.assetConnectionReadTimeout: bound of one request to an asset. */
  readTimeoutMs: number;
  /** node-opcua-client's own log lines go to child loggers of this one; without it, to stdout. */
  logger?: Logger;
}

/** The PEM certificates of a connection's `trustedCertificates` key store (HTTP, and MQTT's TLS). */
async function trustedCertificatesOf(
  settings: CertificateConfig | undefined,
  index: number,
): Promise<string[] | undefined> {
  if (!settings?.keyStorePath) return undefined;
  const setting = `assetConnections[${index}].trustedCertificates`;
  const file = findKeyStore(settings.keyStorePath, ".");
  if (!file) throw new Error(`${setting}: key store ${settings.keyStorePath} not found`);
  return (await readKeyStore(file, settings, { where: `${setting} ${file}`, setting })).certificates;
}

/** The key and certificate chain (PEM) of a connection's `clientCertificate` key store (mutual TLS, HTTP and MQTT). */
async function clientCertificateOf(
  settings: CertificateConfig | undefined,
  index: number,
): Promise<{ key: string; cert: string[] } | undefined> {
  if (!settings?.keyStorePath) return undefined;
  const setting = `assetConnections[${index}].clientCertificate`;
  const file = findKeyStore(settings.keyStorePath, ".");
  if (!file) throw new Error(`${setting}: key store ${settings.keyStorePath} not found`);
  const content = await readKeyStore(file, settings, { where: `${setting} ${file}`, setting });
  if (!content.key) throw new Error(`${setting}: key store ${file} holds no private key`);
  return { key: content.key, cert: content.chain };
}

/** The protocol side of a (merged) connection, by its @class. */
export async function driverFor(
  connection: MergedConnection,
  dependencies: DriverDependencies,
  log: Log,
): Promise<AssetConnectionDriver | undefined> {
  const config = connection.config;
  switch (config["@class"]) {
    case HTTP_ASSET_CONNECTION_CLASS: {
      const http = config as HttpAssetConnectionConfig;
      const trustedCertificates = await trustedCertificatesOf(http.trustedCertificates, connection.index);
      const clientCertificate = await clientCertificateOf(http.clientCertificate, connection.index);
      return createHttpDriver({
        config: http,
        trustedCertificates,
        clientCertificate,
        readTimeoutMs: dependencies.readTimeoutMs,
        store: dependencies.store,
        log,
      });
    }
    case OPCUA_ASSET_CONNECTION_CLASS: {
      // node-opcua-client takes a second to load: only processes with an OPC UA connection pay for it.
      const { createOpcuaDriver } = await import("./opcua-driver.ts");
      if (dependencies.logger)
        (await import("./node-opcua-client-logs.ts")).routeNodeOpcuaClientLogsTo(dependencies.logger);
      return createOpcuaDriver({ config: config as OpcUaAssetConnectionConfig, store: dependencies.store, log });
    }
    case MQTT_ASSET_CONNECTION_CLASS: {
      const mqttConfig = config as MqttAssetConnectionConfig;
      const trustedCertificates = await trustedCertificatesOf(mqttConfig.trustedCertificates, connection.index);
      const clientCertificate = await clientCertificateOf(mqttConfig.clientCertificate, connection.index);
      // mqtt.js is loaded only by processes with an MQTT connection.
      const { createMqttDriver } = await import("./mqtt-driver.ts");
      return createMqttDriver({
        config: mqttConfig,
        trustedCertificates,
        clientCertificate,
        timeoutMs: dependencies.readTimeoutMs,
        log,
      });
    }
    default:
      log(`no driver for @class ${String(config["@class"])}; the connection is left aside`);
      return undefined;
  }
}
