import { type ElementJson, stringifyLossless, toValueOnly } from "../../aas/index.ts";
import type {
  BaseOperationResult,
  ExecutionState,
  OperationResult,
  RawJson,
  ResultMessage,
} from "../../contracts/index.ts";
import { asVariables } from "./operation-arguments.ts";

/**
 * OperationResult in both serializations (digest §g). A finished execution always carries its
 * in-out arguments: the ones the provider answered, or, when it did not get that far, the ones sent
 * (so a client always gets back what it passed through).
 */

export function message(messageType: ResultMessage["messageType"], text: string, time: Date): ResultMessage {
  return { messageType, text, timestamp: time.toISOString() };
}

export function runningResult(state: "Initiated" | "Running"): OperationResult {
  return { messages: [], executionState: state };
}

/** An execution that ended without the provider's answer: Failed, Timeout or Canceled. */
export function unfinishedResult(
  state: Exclude<ExecutionState, "Initiated" | "Running" | "Completed">,
  text: string,
  inoutputArguments: ElementJson[],
  time: Date,
): OperationResult {
  return {
    messages: [message("Error", text, time)],
    executionState: state,
    success: false,
    inoutputArguments: asVariables(inoutputArguments),
  };
}

export function statusOf(result: OperationResult): BaseOperationResult {
  return {
    messages: result.messages,
    executionState: result.executionState,
    ...(result.success !== undefined ? { success: result.success } : {}),
  };
}

/** The full form as is, or OperationResultValueOnly as JSON text (numbers keep their lexical digits). */
export function renderResult(result: OperationResult, valueOnly: boolean): OperationResult | RawJson {
  if (!valueOnly) return result;
  const values = (variables: { value: Record<string, unknown> }[] | undefined) => {
    if (variables === undefined) return undefined;
    const named: Record<string, unknown> = {};
    for (const { value } of variables) {
      const rendered = toValueOnly(value);
      // Absent values are left out (3.0.2), like elements without a ValueOnly form.
      if (rendered !== undefined && rendered !== null && typeof value.idShort === "string")
        named[value.idShort] = rendered;
    }
    return named;
  };
  const { outputArguments, inoutputArguments, ...base } = result;
  return {
    rawJson: stringifyLossless({
      ...base,
      ...(outputArguments !== undefined ? { outputArguments: values(outputArguments) } : {}),
      ...(inoutputArguments !== undefined ? { inoutputArguments: values(inoutputArguments) } : {}),
    }),
  };
}
