import {
  AasError,
  applyValueOnly,
  DEFAULT_SYNC_INVOCATION_TIMEOUT_MS,
  type ElementJson,
  type ExecutionState,
  lexicalToValueJson,
  MAX_SYNC_INVOCATION_TIMEOUT_MS,
  parseJsonLossless,
  type StoreClient,
  SYSTEM,
  stringifyLossless,
  valueJsonToLexical,
} from "@twinport/shared";
import { type CallMethodResultOptions, DataType, type StatusCode, StatusCodes, Variant } from "node-opcua";
import { answerWithinMs } from "../timeout-hint.ts";
import { lexicalToNodeValue, variantToLexical } from "../values/datatype-mapping.ts";
import { statusForError } from "../values/error-status.ts";
import type { OperationInvoker } from "./operation-method.ts";

export interface OperationInvokerDeps {
  store: StoreClient;
  log(line: string): void;
}

/** What an execution that did not complete answers (the message goes to the log). */
const STATUS_OF_STATE: Partial<Record<ExecutionState, StatusCode>> = {
  // The asset (or its connection) failed, or none is configured: the data source's failure.
  Failed: StatusCodes.BadDeviceFailure,
  Timeout: StatusCodes.BadTimeout,
  Canceled: StatusCodes.BadRequestCancelledByRequest,
};

/** Time the store may take beyond the invocation's own bound (its events, the reply). */
const REPLY_MARGIN_MS = 5000;
/**
 * How long a call may run. A client's timeoutHint is how long it waits for the answer (OPC 10000-4
 * §7.32: the server may cancel the work and answer BadTimeout then); node-opcua clients send 15 s.
 * Running longer would only make the client see its own transport timeout instead of BadTimeout, and
 * leave the asset call running for nobody. Without a hint, as HTTP without clientTimeoutDuration.
 */
export function invocationTimeoutMs(timeoutHint: number | undefined): number {
  const within = answerWithinMs(
    timeoutHint === undefined ? undefined : Math.min(timeoutHint, MAX_SYNC_INVOCATION_TIMEOUT_MS),
  );
  return within ?? DEFAULT_SYNC_INVOCATION_TIMEOUT_MS;
}

/**
 * OPC UA method calls of Operations run through the same InvokeOperation command as HTTP
 * …/invoke/$value (origin "opcua"), synchronously: the call answers when the execution ended.
 * Arguments follow the method's signature (element-specs.ts): a Property variable is a Variant of
 * its §4.5 datatype, any other kind a String carrying its ValueOnly JSON; in-out variables are not
 * offered (spec §4.5), so they keep their declared values. The declaration is read from the store
 * at each call, so arguments are matched against the Operation as it is now.
 */
export function createOperationInvoker(deps: OperationInvokerDeps): OperationInvoker {
  return async (binding, inputArguments, principal, timeoutHint) => {
    const address = { submodelId: binding.submodelId, idShortPath: binding.idShortPath };
    // The gateway's own read of the declaration: EXECUTE alone is enough to call. SYSTEM, not "no
    // principal": over NATS a command without one is anonymous (ADR 0025).
    const read = await deps.store.execute({
      type: "GetSubmodelElementByPath",
      params: address,
      origin: "opcua",
      principal: SYSTEM,
    });
    if (!read.ok) return { statusCode: statusForError(read.error.code) };
    const operation = read.value as ElementJson;
    if (operation.modelType !== "Operation") return { statusCode: StatusCodes.BadMethodInvalid };
    const inputs = declared(operation.inputVariables);
    const outputs = declared(operation.outputVariables);
    if (inputArguments.length !== inputs.length) {
      return {
        statusCode:
          inputArguments.length < inputs.length ? StatusCodes.BadArgumentsMissing : StatusCodes.BadTooManyArguments,
      };
    }

    const values: Record<string, unknown> = {};
    const inputArgumentResults: StatusCode[] = [];
    for (const [i, variable] of inputs.entries()) {
      const converted = inputValue(variable, inputArguments[i]!);
      inputArgumentResults.push("error" in converted ? converted.error : StatusCodes.Good);
      if (!("error" in converted) && converted.value !== undefined) values[String(variable.idShort)] = converted.value;
    }
    if (inputArgumentResults.some((status) => status !== StatusCodes.Good))
      return { statusCode: StatusCodes.BadInvalidArgument, inputArgumentResults };

    const timeoutMs = invocationTimeoutMs(timeoutHint);
    const request = { inputArguments: values, clientTimeoutDuration: `PT${(timeoutMs / 1000).toFixed(3)}S` };
    const reply = await deps.store.execute(
      {
        type: "InvokeOperation",
        params: { ...address, body: stringifyLossless(request), valueOnly: true },
        origin: "opcua",
        ...(principal ? { principal } : {}),
      },
      { deadline: Date.now() + timeoutMs + REPLY_MARGIN_MS },
    );
    if (!reply.ok) {
      deps.log(
        `twinport opcua-gateway: call of ${binding.submodelId} ${binding.idShortPath} refused: ${reply.error.code}: ${reply.error.message}`,
      );
      return { statusCode: statusForError(reply.error.code) };
    }
    const result = parseJsonLossless((reply.value as { rawJson: string }).rawJson) as {
      executionState: ExecutionState;
      messages?: { text?: string }[];
      outputArguments?: Record<string, unknown>;
    };
    const failed = STATUS_OF_STATE[result.executionState];
    if (failed !== undefined) {
      const why = (result.messages ?? []).map((m) => m.text).join("; ");
      deps.log(
        `twinport opcua-gateway: call of ${binding.submodelId} ${binding.idShortPath} ended ${result.executionState}: ${why}`,
      );
      return { statusCode: failed };
    }
    return {
      statusCode: StatusCodes.Good,
      outputArguments: outputs.map((variable) =>
        outputVariant(variable, result.outputArguments?.[String(variable.idShort)]),
      ),
    };
  };
}

/** The elements of declared variables, in order: the method's arguments were built the same way. */
function declared(variables: unknown): ElementJson[] {
  return (Array.isArray(variables) ? variables : [])
    .map((variable) =>
      typeof variable === "object" && variable !== null ? (variable as { value?: unknown }).value : undefined,
    )
    .filter((element): element is ElementJson => typeof element === "object" && element !== null);
}

/** One input Variant as its ValueOnly value (undefined: a Null Variant, i.e. the declared default). */
function inputValue(variable: ElementJson, variant: Variant): { value: unknown } | { error: StatusCode } {
  if (variant.dataType === DataType.Null) return { value: undefined };
  if (variable.modelType === "Property") {
    const lexical = variantToLexical(variant, variable.valueType);
    if ("error" in lexical) return { error: lexical.error };
    return { value: lexical.lexical === null ? undefined : lexicalToValueJson(lexical.lexical, variable.valueType) };
  }
  if (variant.dataType !== DataType.String || typeof variant.value !== "string")
    return { error: StatusCodes.BadTypeMismatch };
  let value: unknown;
  try {
    value = parseJsonLossless(variant.value);
  } catch {
    return { error: StatusCodes.BadInvalidArgument };
  }
  // Checked here as the store will (operation-arguments.ts): a value that does not fit its variable
  // ('"str"' or '{"Unknown":1}' for a collection) was refused by the store as a whole, with every
  // argument reported Good, so the client could not tell which one was wrong.
  try {
    applyValueOnly(variable, value);
  } catch (error) {
    if (error instanceof AasError) return { error: StatusCodes.BadTypeMismatch };
    throw error;
  }
  return { value };
}

function outputVariant(variable: ElementJson, value: unknown): Variant {
  if (value === undefined || value === null) return new Variant({ dataType: DataType.Null });
  if (variable.modelType === "Property") {
    const lexical = valueJsonToLexical(value, variable.valueType);
    return lexicalToNodeValue(lexical, variable.valueType).variant;
  }
  return new Variant({ dataType: DataType.String, value: stringifyLossless(value) });
}
