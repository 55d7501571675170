/**
 * Operation invocation (AAS API v3.0.1 §g of the digest): the same commands serve HTTP (…/invoke,
 * …/invoke-async, …/operation-status, …/operation-results) and OPC UA method calls.
 *
 * Bodies travel as JSON text like every other command: the engine parses them, checks the
 * arguments against the Operation's declared variables and keeps ValueOnly numbers exact.
 */

/** AAS Part 2 ExecutionState. */
export type ExecutionState = "Initiated" | "Running" | "Completed" | "Canceled" | "Failed" | "Timeout";

export const FINAL_EXECUTION_STATES: readonly ExecutionState[] = ["Completed", "Canceled", "Failed", "Timeout"];

/** An AAS Part 2 Message inside an operation result. */
export interface ResultMessage {
  messageType: "Undefined" | "Info" | "Warning" | "Error" | "Exception";
  text: string;
  code?: string;
  correlationId?: string;
  timestamp?: string;
}

/** BaseOperationResult: the state of an invocation (what …/operation-status answers while running). */
export interface BaseOperationResult {
  messages: ResultMessage[];
  executionState: ExecutionState;
  success?: boolean;
}

/** OperationResult in the full form: arguments are OperationVariables `{ value: SubmodelElement }`. */
export interface OperationResult extends BaseOperationResult {
  outputArguments?: { value: Record<string, unknown> }[];
  inoutputArguments?: { value: Record<string, unknown> }[];
}

/** Which Operation: by submodel and idShortPath, optionally through a shell that must reference the submodel. */
interface OperationAddress {
  submodelId: string;
  /** Set when the request came through /shells/{aasIdentifier}/submodels/{submodelIdentifier}/… */
  aasId?: string;
  idShortPath: string;
}

export interface OperationCommandMap {
  /**
   * POST …/invoke (valueOnly false: body OperationRequest, answer OperationResult) and …/invoke/$value
   * (body OperationRequestValueOnly, answer OperationResultValueOnly as RawJson, numbers exact).
   * Answers when the execution ended: Completed, Failed (a provider error or none configured),
   * Timeout (`clientTimeoutDuration`, else DEFAULT_SYNC_INVOCATION_TIMEOUT_MS) or Canceled (reset).
   */
  InvokeOperation: { params: OperationAddress & { body: string; valueOnly?: boolean }; result: unknown };
  /** POST …/invoke-async(/$value): starts the execution and answers its handle at once. */
  InvokeOperationAsync: {
    params: OperationAddress & { body: string; valueOnly?: boolean };
    result: { handleId: string };
  };
  /** GET …/operation-status/{handleId}: `finished` tells the gateway to redirect to the result. */
  GetOperationAsyncStatus: {
    params: OperationAddress & { handleId: string };
    result: { finished: boolean; status: BaseOperationResult };
  };
  /** GET …/operation-results/{handleId}(/$value): the result (while running: the state alone). */
  GetOperationAsyncResult: { params: OperationAddress & { handleId: string; valueOnly?: boolean }; result: unknown };
}

/**
 * A synchronous call without `clientTimeoutDuration` still ends: after this long it is a Timeout.
 * Gateways wait this long (plus a margin) for the reply of such a call.
 */
export const DEFAULT_SYNC_INVOCATION_TIMEOUT_MS = 60_000;

/**
 * The longest a synchronous call waits, whatever `clientTimeoutDuration` asks (the spec calls it a
 * hint): past ~24.8 days a timer fires at once, so `P1M` answered 504 at once while the call ran on
 * unbounded. A call longer than a day belongs in `invoke-async`.
 */
export const MAX_SYNC_INVOCATION_TIMEOUT_MS = 86_400_000;

type OperationCommandType = keyof OperationCommandMap;

/** Invocations change state (handles, events); reading a handle may mark an orphaned one Failed. */
export const OPERATION_WRITE_COMMANDS: readonly OperationCommandType[] = ["InvokeOperation", "InvokeOperationAsync"];

export const OPERATION_COMMAND_TYPES: readonly OperationCommandType[] = [
  "InvokeOperation",
  "InvokeOperationAsync",
  "GetOperationAsyncStatus",
  "GetOperationAsyncResult",
];
