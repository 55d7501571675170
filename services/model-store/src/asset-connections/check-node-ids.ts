import { ConfigError, isPlainObject, OPCUA_ASSET_CONNECTION_CLASS } from "@twinport/shared";
import { coerceNodeId } from "node-opcua-client";

const PROVIDER_MAPS = ["valueProviders", "subscriptionProviders", "operationProviders"] as const;

/**
 * Every node id of the configured OPC UA connections (`nodeId`, an operation's `parentNodeId`),
 * parsed once before anything starts: a typo is a configuration mistake, reported as the others are
 * (exit code 2, naming the setting), not a read error logged at every interval once connected.
 * A namespace URI (`nsu=…;`) is resolved against the server only when connected; here only the
 * rest of the id is checked.
 */
export function checkConnectionNodeIds(connections: readonly unknown[]): void {
  connections.forEach((connection, index) => {
    if (!isPlainObject(connection) || connection["@class"] !== OPCUA_ASSET_CONNECTION_CLASS) return;
    for (const map of PROVIDER_MAPS) {
      const providers = connection[map];
      if (!isPlainObject(providers)) continue;
      for (const [key, provider] of Object.entries(providers)) {
        if (!isPlainObject(provider)) continue;
        for (const setting of ["nodeId", "parentNodeId"]) {
          const text = provider[setting];
          if (typeof text === "string" && text !== "")
            check(text, `assetConnections[${index}].${map}[${JSON.stringify(key)}].${setting}`);
        }
      }
    }
  });
}

function check(text: string, at: string): void {
  const withoutUri = text.replace(/^nsu=[^;]*;/, "ns=1;");
  try {
    coerceNodeId(withoutUri);
  } catch {
    throw new ConfigError(
      `Invalid value at '${at}': ${JSON.stringify(text)} is not an OPC UA node id (write it as ns=2;s=Name, ns=2;i=1001, ns=2;g=<GUID>, ns=2;b=<base64> or nsu=<namespace URI>;s=Name)`,
    );
  }
}
