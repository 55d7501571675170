import { isPlainObject, providerTarget } from "@twinport/shared";
import type { ModelPort } from "./model-port.ts";

/**
 * Operation providers whose element is no Operation, one sentence each. Such a provider is never
 * used: only an Operation is invoked, so without a word it would start and silently do nothing (a
 * value provider put under `operationProviders` by mistake). Not an error: keys name elements by
 * their values only (FA³ST's rule), and the model may hold an Operation there later (a model
 * loaded after start, an import). The element as stored decides; a missing one is judged by the
 * key's last type.
 */
export async function operationTargetWarnings(connections: readonly unknown[], model: ModelPort): Promise<string[]> {
  const warnings: string[] = [];
  for (const [index, connection] of connections.entries()) {
    const providers = isPlainObject(connection) ? connection.operationProviders : undefined;
    if (!isPlainObject(providers)) continue;
    for (const key of Object.keys(providers)) {
      const target = providerTarget(key);
      const where = `assetConnections[${index}].operationProviders[${JSON.stringify(key)}]`;
      const element = await model.read(target).catch(() => undefined);
      const keyType = target.keys.at(-1)?.type;
      if (element && element.modelType !== "Operation")
        warnings.push(
          `${where}: ${target.submodelId} ${target.idShortPath} is a ${String(element.modelType)}, not an Operation; the provider is ignored (only an Operation can be invoked)`,
        );
      else if (!element && keyType !== "Operation")
        warnings.push(
          `${where}: the key names a ${keyType}, not an Operation, and the model has no element ${target.submodelId} ${target.idShortPath}; the provider is ignored unless an Operation appears there (only an Operation can be invoked)`,
        );
    }
  }
  return warnings;
}
