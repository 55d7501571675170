import type { ElementJson } from "../../aas/index.ts";
import { echoed } from "../../aas/index.ts";
import {
  type Command,
  CommandError,
  DEFAULT_SYNC_INVOCATION_TIMEOUT_MS,
  MAX_SYNC_INVOCATION_TIMEOUT_MS,
} from "../../contracts/index.ts";
import { checkIdShortPath } from "../aas-input.ts";
import { loadElement, notFoundElement } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { clientTimeoutMs } from "../operations/client-timeout.ts";
import { declarationOf, readOperationRequest } from "../operations/operation-arguments.ts";
import { isFinished, type OperationHandleRecord } from "../operations/operation-handle.ts";
import { renderResult, statusOf } from "../operations/operation-results.ts";
import type { Invocation } from "../operations/operation-runner.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import type { Handled } from "./handled.ts";

/**
 * InvokeOperation, InvokeOperationAsync, GetOperationAsyncStatus, GetOperationAsyncResult (digest §g).
 * Errors found in the request (unknown submodel or element, not an Operation, bad arguments) are
 * answered at once; errors during the execution are a result with executionState Failed.
 */

type InvokeCommand = Command<"InvokeOperation"> | Command<"InvokeOperationAsync">;

export async function invokeOperation(ctx: EngineContext, cmd: Command<"InvokeOperation">): Promise<Handled<unknown>> {
  const { invocation, clientTimeoutDuration } = await prepare(ctx, cmd);
  const timeoutMs =
    clientTimeoutDuration === undefined
      ? DEFAULT_SYNC_INVOCATION_TIMEOUT_MS
      : Math.min(clientTimeoutMs(clientTimeoutDuration), MAX_SYNC_INVOCATION_TIMEOUT_MS);
  const result = await ctx.operations.invokeSync(invocation, timeoutMs, ctx.commit);
  return { value: renderResult(result, cmd.params.valueOnly === true) };
}

export async function invokeOperationAsync(
  ctx: EngineContext,
  cmd: Command<"InvokeOperationAsync">,
): Promise<Handled<{ handleId: string }>> {
  const { invocation, clientTimeoutDuration } = await prepare(ctx, cmd);
  // Spec §3: the client time-out means nothing for an asynchronous call; a malformed one is still refused.
  if (clientTimeoutDuration !== undefined) clientTimeoutMs(clientTimeoutDuration);
  return { value: { handleId: await ctx.operations.invokeAsync(invocation, ctx.commit) } };
}

export async function getOperationAsyncStatus(
  ctx: EngineContext,
  cmd: Command<"GetOperationAsyncStatus">,
): Promise<Handled<{ finished: boolean; status: ReturnType<typeof statusOf> }>> {
  const record = await findHandle(ctx, cmd.params);
  return { value: { finished: isFinished(record), status: statusOf(record.result) } };
}

/** Before the end this is the state alone (Initiated/Running, no arguments yet). */
export async function getOperationAsyncResult(
  ctx: EngineContext,
  cmd: Command<"GetOperationAsyncResult">,
): Promise<Handled<unknown>> {
  const record = await findHandle(ctx, cmd.params);
  return { value: renderResult(record.result, cmd.params.valueOnly === true) };
}

async function prepare(
  ctx: EngineContext,
  cmd: InvokeCommand,
): Promise<{ invocation: Invocation; clientTimeoutDuration?: unknown }> {
  const { submodelId, idShortPath, body, valueOnly } = cmd.params;
  const declaration = declarationOf(await loadOperation(ctx, cmd.params));
  const request = readOperationRequest(body, valueOnly === true, declaration);
  return {
    invocation: {
      submodelId,
      idShortPath,
      inputArguments: request.inputArguments,
      inoutputArguments: request.inoutputArguments,
      declaration,
      origin: cmd.origin,
      correlationId: cmd.correlationId,
    },
    clientTimeoutDuration: request.clientTimeoutDuration,
  };
}

async function loadOperation(
  ctx: EngineContext,
  params: { submodelId: string; aasId?: string; idShortPath: string },
): Promise<ElementJson> {
  checkIdShortPath(params.idShortPath);
  await checkSubmodelScope(ctx, params);
  // An Operation is not a container: its own record holds its variables.
  const loaded = await loadElement(ctx.repository, params.submodelId, params.idShortPath, 0);
  if (!loaded) {
    await requireIdentifiable(ctx, "submodel", params.submodelId);
    throw notFoundElement(params.submodelId, params.idShortPath);
  }
  const modelType = loaded.element.modelType;
  if (modelType !== "Operation") {
    throw new CommandError(
      "method-not-allowed",
      `Only an Operation can be invoked; '${echoed(params.idShortPath)}' is a ${String(modelType)}`,
    );
  }
  return loaded.element;
}

/** The handle, if it belongs to this Operation: a handle is addressed below its own Operation only. */
async function findHandle(
  ctx: EngineContext,
  params: { submodelId: string; aasId?: string; idShortPath: string; handleId: string },
): Promise<OperationHandleRecord> {
  checkIdShortPath(params.idShortPath);
  await checkSubmodelScope(ctx, params);
  const record = await ctx.operations.readHandle(params.handleId);
  if (!record || record.submodelId !== params.submodelId || record.idShortPath !== params.idShortPath) {
    throw new CommandError(
      "not-found",
      `No operation handle '${echoed(params.handleId)}' for the Operation '${echoed(params.idShortPath)}' of submodel '${echoed(params.submodelId)}' (unknown, or expired)`,
    );
  }
  return record;
}
