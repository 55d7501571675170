import {
  type AssetConnectionConfig,
  isPlainObject,
  MQTT_ASSET_CONNECTION_CLASS,
  providerTarget,
} from "@twinport/shared";

interface Feeder {
  where: string;
  submodelId: string;
  idShortPath: string;
}

/**
 * Elements that two providers read the asset into: a reading value provider and a subscription
 * provider for one element (in one entry or two). FA³ST allows the pair (only two of one kind, or an
 * operation provider beside either, are refused: merge-connections.ts), but each writes what it
 * reads, so the element holds whichever reading came last and flips when the two differ. A warning,
 * not an error, so FA³ST's files still load. A value provider that only writes (MQTT's, or
 * readWriteMode WRITE or NONE) feeds nothing, and beside a subscription is the usual
 * setpoint-and-state pair.
 */
/**
 * Whether a value provider of this connection reads the asset into its element: MQTT's only publish,
 * and readWriteMode WRITE or NONE never read.
 */
export function valueProviderReads(connection: AssetConnectionConfig, provider: unknown): boolean {
  if (connection["@class"] === MQTT_ASSET_CONNECTION_CLASS) return false;
  const mode = isPlainObject(provider) ? provider.readWriteMode : undefined;
  return mode !== "WRITE" && mode !== "NONE";
}

/** The sentence of a reading value provider and a subscription provider for one element. */
export function bothReadWarning(valueWhere: string, subscriptionWhere: string, element: string): string {
  return `${valueWhere} and ${subscriptionWhere} both read the asset into ${element}: the element holds whichever reading came last; keep one of them, or give the value provider readWriteMode WRITE`;
}

export function overlappingProviderWarnings(connections: readonly AssetConnectionConfig[]): string[] {
  const readers = new Map<string, Feeder>();
  const subscribed = new Map<string, Feeder[]>();
  const entries = (value: unknown) => (isPlainObject(value) ? Object.entries(value) : []);
  connections.forEach((connection, index) => {
    const record = connection as Record<string, unknown>;
    const feeder = (kind: string, key: string): [string, Feeder] => {
      const target = providerTarget(key);
      return [
        `${target.submodelId}\u0000${target.idShortPath}`,
        {
          where: `assetConnections[${index}].${kind}[${JSON.stringify(key)}]`,
          submodelId: target.submodelId,
          idShortPath: target.idShortPath,
        },
      ];
    };
    for (const [key, provider] of entries(record.valueProviders)) {
      if (!valueProviderReads(connection, provider)) continue;
      const [element, found] = feeder("valueProviders", key);
      if (!readers.has(element)) readers.set(element, found);
    }
    for (const key of entries(record.subscriptionProviders).map(([key]) => key)) {
      const [element, found] = feeder("subscriptionProviders", key);
      subscribed.set(element, [...(subscribed.get(element) ?? []), found]);
    }
  });
  const warnings: string[] = [];
  for (const [element, value] of readers)
    for (const subscription of subscribed.get(element) ?? [])
      warnings.push(bothReadWarning(value.where, subscription.where, `${value.submodelId} ${value.idShortPath}`));
  return warnings;
}
