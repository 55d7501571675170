import type { ArgumentValidationMode, ElementJson, ProviderTarget, StoreClient } from "@twinport/shared";
import { ASSET_ORIGIN } from "./model-port.ts";

/** The variables an Operation declares (each OperationVariable's `value`). */
export interface OperationDeclaration {
  inputs: ElementJson[];
  outputs: ElementJson[];
  inoutputs: ElementJson[];
}

export class OperationArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OperationArgumentError";
  }
}

function variables(operation: ElementJson, key: string): ElementJson[] {
  const list = operation[key];
  if (!Array.isArray(list)) return [];
  return list
    .map((variable) => (variable as { value?: ElementJson }).value)
    .filter((value): value is ElementJson => typeof value === "object" && value !== null);
}

/** Read at each call: the declaration may have changed since the provider was made. */
export async function readDeclaration(store: StoreClient, target: ProviderTarget): Promise<OperationDeclaration> {
  const reply = await store.execute({
    type: "GetSubmodelElementByPath",
    params: { submodelId: target.submodelId, idShortPath: target.idShortPath },
    origin: ASSET_ORIGIN,
  });
  if (!reply.ok) throw new Error(`reading the Operation ${target.idShortPath}: ${reply.error.message}`);
  const operation = reply.value as ElementJson;
  if (operation.modelType !== "Operation")
    throw new Error(`${target.idShortPath} is a ${String(operation.modelType)}, not an Operation`);
  return {
    inputs: variables(operation, "inputVariables"),
    outputs: variables(operation, "outputVariables"),
    inoutputs: variables(operation, "inoutputVariables"),
  };
}

/**
 * FA³ST's ArgumentValidationMode (docs/reference/faaast-asset-connections.md §1.5): arguments are matched by
 * idShort only. NONE passes them through; REQUIRE_PRESENT wants exactly the declared ones, each
 * once; REQUIRE_PRESENT_OR_DEFAULT fills a missing one with a copy of its declaration (the stored
 * value is the default). The result is in declaration order.
 */
export function validateArguments(
  mode: ArgumentValidationMode,
  declared: ElementJson[],
  provided: ElementJson[],
  kind: string,
): ElementJson[] {
  if (mode === "NONE") return provided;
  const byIdShort = new Map<string, ElementJson>();
  for (const argument of provided) {
    const idShort = String(argument.idShort);
    if (!declared.some((variable) => variable.idShort === idShort))
      throw new OperationArgumentError(`the ${kind} argument ${idShort} is not declared by the Operation`);
    if (byIdShort.has(idShort)) throw new OperationArgumentError(`the ${kind} argument ${idShort} is given twice`);
    byIdShort.set(idShort, argument);
  }
  return declared.map((variable) => {
    const given = byIdShort.get(String(variable.idShort));
    if (given) return given;
    if (mode === "REQUIRE_PRESENT")
      throw new OperationArgumentError(`the ${kind} argument ${String(variable.idShort)} is missing`);
    return structuredClone(variable);
  });
}
