import { rootCertificates } from "node:tls";
import { type MqttKeyStoreConfig, type MqttPublishingConfig, readKeyStore } from "@twinport/shared";
import type { IClientOptions } from "mqtt";
import { mqttBrokerAddress } from "../asset-connections/mqtt-broker-address.ts";

/** Where publishing connects, and how; `display` names the broker in logs (never with credentials). */
export interface MqttPublishingTarget {
  options: IClientOptions;
  display: string;
}

const hasKeyStore = (store: MqttKeyStoreConfig | undefined): store is MqttKeyStoreConfig =>
  store !== undefined && store.keyStorePath.trim() !== "";

/**
 * The broker address as FA³ST's Paho client builds it (tcp://host:port; with a client key store
 * ssl://host:sslPort; with useWebsocket ws://host:websocketPort or wss://host:sslWebsocketPort),
 * unless `serverUri` names it. Key stores are read here, so a wrong path or password stops the
 * start with the file and setting to fix.
 */
export async function mqttPublishingTarget(config: MqttPublishingConfig): Promise<MqttPublishingTarget> {
  const clientTls = hasKeyStore(config.clientCertificate);
  let uri = config.serverUri;
  if (uri === undefined) {
    const scheme = config.useWebsocket ? (clientTls ? "wss" : "ws") : clientTls ? "ssl" : "tcp";
    const port = config.useWebsocket
      ? clientTls
        ? config.sslWebsocketPort
        : config.websocketPort
      : clientTls
        ? config.sslPort
        : config.port;
    const host = config.host.includes(":") ? `[${config.host}]` : config.host;
    uri = `${scheme}://${host}:${port}`;
  }
  const address = mqttBrokerAddress(uri);
  const options: IClientOptions = {
    protocol: address.protocol,
    hostname: address.hostname,
    host: address.hostname,
    port: address.port,
    ...(address.path !== undefined ? { path: address.path } : {}),
    clientId: config.clientId,
    protocolVersion: config.protocolVersion,
    clean: true,
    // Reconnecting is the publisher's: one place decides what is re-sent (ordered-publisher.ts).
    reconnectPeriod: 0,
    connectTimeout: 10_000,
    ...(config.username !== undefined && config.username.trim() !== ""
      ? { username: config.username, password: config.password ?? "" }
      : {}),
  };
  if (address.tls) {
    options.rejectUnauthorized = true;
    if (hasKeyStore(config.trustedCertificates)) {
      const trusted = await readKeyStore(config.trustedCertificates.keyStorePath, config.trustedCertificates, {
        where: `the MQTT broker's trusted certificates ${config.trustedCertificates.keyStorePath}`,
        setting: "messageBus.trustedCertificates",
      });
      options.ca = [...rootCertificates, ...trusted.certificates];
    }
    if (clientTls) {
      const client = await readKeyStore(config.clientCertificate!.keyStorePath, config.clientCertificate!, {
        where: `the MQTT client certificate ${config.clientCertificate!.keyStorePath}`,
        setting: "messageBus.clientCertificate",
      });
      if (!client.key) {
        throw new Error(
          `the MQTT client certificate ${config.clientCertificate!.keyStorePath} holds no private key (messageBus.clientCertificate)`,
        );
      }
      options.key = client.key;
      options.cert = client.chain.join("\n");
      // FA³ST trusts the client key store's certificates for the broker too (its Paho client does).
      if (!options.ca) options.ca = [...rootCertificates, ...client.certificates];
    }
  } else if (clientTls) {
    throw new Error(
      `messageBus.clientCertificate is set but ${address.display} is not a TLS address: use ssl://, mqtts:// or wss://`,
    );
  }
  return { options, display: address.display };
}
