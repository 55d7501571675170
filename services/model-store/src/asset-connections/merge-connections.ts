import { createHash } from "node:crypto";
import {
  type AssetConnectionConfig,
  ConfigError,
  HTTP_ASSET_CONNECTION_CLASS,
  MQTT_ASSET_CONNECTION_CLASS,
  OPCUA_ASSET_CONNECTION_CLASS,
  providerTarget,
} from "@twinport/shared";

export const PROVIDER_KINDS = ["valueProviders", "subscriptionProviders", "operationProviders"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface MergedConnection {
  /** Index of the kept entry in `assetConnections`; `merged` lists every entry folded into it. */
  index: number;
  merged: number[];
  config: AssetConnectionConfig;
  /** Stable across processes with the same connection settings: names the connection's lease. */
  id: string;
}

/** FA³ST's merge keys (docs/reference/faaast-asset-connections.md §6.1); providers are not part of them. */
const COMPARED: Record<string, readonly string[]> = {
  // trustedCertificates and clientCertificate are our extensions: different TLS settings, different client.
  [HTTP_ASSET_CONNECTION_CLASS]: [
    "baseUrl",
    "username",
    "password",
    "headers",
    "trustedCertificates",
    "clientCertificate",
  ],
  [OPCUA_ASSET_CONNECTION_CLASS]: [
    "host",
    "username",
    "password",
    "requestTimeout",
    "acknowledgeTimeout",
    "retries",
    "securityBaseDir",
    "securityPolicy",
    "securityMode",
    "applicationCertificate",
    "authenticationCertificate",
    "transportProfile",
    "userTokenType",
  ],
  // FA³ST ignores clientId here, so two entries differing only in it share one client.
  // trustedCertificates and clientCertificate are our extensions (FA³ST has no TLS options):
  // different trust or identity, different client.
  [MQTT_ASSET_CONNECTION_CLASS]: ["serverUri", "username", "password", "trustedCertificates", "clientCertificate"],
};

/** null and "" are the same for these (FA³ST compares them so). */
const EMPTY_IS_NULL = new Set(["username", "password", "host", "serverUri"]);

/** The value with every object's keys sorted: equal settings give equal JSON whatever their order. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** The connection-level settings that decide whether two entries are one connection. */
export function connectionIdentity(config: AssetConnectionConfig): string {
  const record = config as Record<string, unknown>;
  const identity: Record<string, unknown> = { "@class": config["@class"] };
  for (const key of COMPARED[config["@class"]] ?? []) {
    const value = record[key];
    identity[key] = EMPTY_IS_NULL.has(key) && (value === "" || value === undefined) ? null : (value ?? null);
  }
  return JSON.stringify(canonical(identity));
}

function providerMap(config: AssetConnectionConfig, kind: ProviderKind): Record<string, unknown> {
  const map = (config as Record<string, unknown>)[kind];
  return typeof map === "object" && map !== null ? (map as Record<string, unknown>) : {};
}

function elementOf(key: string): string {
  const target = providerTarget(key);
  return `${target.submodelId}\u0000${target.idShortPath}`;
}

function describe(key: string): string {
  const target = providerTarget(key);
  return `${target.submodelId} ${target.idShortPath}`;
}

/**
 * FA³ST's start-up rules: entries with equal connection settings become one connection (the first
 * kept, the others' providers copied into it; a provider of the same kind for the same element
 * already there wins, the later one is dropped with a warning), then the combined providers are
 * checked (§1.6). Keys name elements by key values only, so two spellings of one reference are one
 * element here too.
 */
export function mergeConnections(
  configs: readonly AssetConnectionConfig[],
  warn: (line: string) => void,
): MergedConnection[] {
  const groups = new Map<string, MergedConnection>();
  configs.forEach((config, index) => {
    const identity = connectionIdentity(config);
    const group = groups.get(identity);
    if (!group) {
      const copy = { ...config } as Record<string, unknown>;
      for (const kind of PROVIDER_KINDS) copy[kind] = { ...providerMap(config, kind) };
      const id = createHash("sha256").update(identity).digest("base64url").slice(0, 22);
      groups.set(identity, { index, merged: [index], config: copy as AssetConnectionConfig, id });
      return;
    }
    group.merged.push(index);
    for (const kind of PROVIDER_KINDS) {
      const kept = providerMap(group.config, kind);
      const keptElements = new Set(Object.keys(kept).map(elementOf));
      for (const [key, provider] of Object.entries(providerMap(config, kind))) {
        if (keptElements.has(elementOf(key))) {
          warn(
            `assetConnections[${index}].${kind}: "${key}" is dropped: assetConnections[${group.index}], the same connection, already has one for ${describe(key)}`,
          );
          continue;
        }
        kept[key] = provider;
        keptElements.add(elementOf(key));
      }
    }
  });
  const merged = [...groups.values()];
  checkProviders(merged);
  return merged;
}

function checkProviders(connections: readonly MergedConnection[]): void {
  const issues: string[] = [];
  const seen = new Map<string, { connection: number; key: string }>();
  for (const connection of connections) {
    for (const kind of PROVIDER_KINDS) {
      for (const key of Object.keys(providerMap(connection.config, kind))) {
        const element = elementOf(key);
        const where = `assetConnections[${connection.index}].${kind}`;
        const same = seen.get(`${kind}\u0000${element}`);
        if (same)
          issues.push(
            `${where}: ${describe(key)} already has a ${kind.replace("Providers", " provider")} in assetConnections[${same.connection}]`,
          );
        else seen.set(`${kind}\u0000${element}`, { connection: connection.index, key });
      }
    }
  }
  for (const [entry, first] of seen) {
    const [kind, ...rest] = entry.split("\u0000");
    if (kind !== "operationProviders") continue;
    const element = rest.join("\u0000");
    for (const other of ["valueProviders", "subscriptionProviders"] as const) {
      const clash = seen.get(`${other}\u0000${element}`);
      if (clash) {
        issues.push(
          `${describe(first.key)} has an operation provider (assetConnections[${first.connection}]) and a ${other.replace("Providers", " provider")} (assetConnections[${clash.connection}]): an Operation has no value`,
        );
      }
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
