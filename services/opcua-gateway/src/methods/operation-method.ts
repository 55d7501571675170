import type { Principal } from "@twinport/shared";
import { type CallMethodResultOptions, type ISessionContext, type UAMethod, type Variant } from "node-opcua";
import { principalOfContext } from "../security/access-session-context.ts";

/** What a method node of an Operation needs to invoke it. */
export interface OperationBinding {
  submodelId: string;
  idShortPath: string;
  /** False on a read-only endpoint (only *_READ profiles): Executable is false and calls answer BadNotExecutable. */
  callable: boolean;
  invoke: OperationInvoker;
}

/**
 * Runs an Operation for an OPC UA call. The operation lifecycle (InvokeOperation, timeouts, failure
 * statuses) is not this file's business: the default is operation-invoker.ts (the operations issue).
 */
export type OperationInvoker = (
  binding: OperationBinding,
  inputArguments: Variant[],
  principal?: Principal,
  /** The client's timeoutHint of the CallRequest in ms (0 or absent: the client sets none). */
  timeoutHint?: number,
) => Promise<CallMethodResultOptions>;

const BINDING = Symbol("twinport.operationBinding");
type BoundMethod = UAMethod & { [BINDING]?: OperationBinding };

export function bindOperation(method: UAMethod, binding: OperationBinding): void {
  const bound = method as BoundMethod;
  const wasBound = bound[BINDING] !== undefined;
  bound[BINDING] = binding;
  if (wasBound) return;
  // Bound even when not callable: node-opcua answers an unbound method with BadInternalError.
  method._getExecutableFlag = () => bound[BINDING]!.callable;
  // Two parameters: node-opcua requires (inputArguments, context) for a promise-returning handler.
  method.bindMethod(async function (this: BoundMethod, inputArguments: Variant[], context: ISessionContext) {
    const current = bound[BINDING]!;
    // node-opcua hands a method the CallRequest's header (SessionContext#withRequestHeader).
    const timeoutHint = (context as { requestHeader?: { timeoutHint?: number } }).requestHeader?.timeoutHint;
    return current.invoke(current, inputArguments, principalOfContext(context), timeoutHint);
  });
}
