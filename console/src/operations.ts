/**
 * Operations the person started from this console, while they run and after. The API has no call
 * that lists all running invocations (AAS Part 2 v3.0.1 knows only a handle's status), so the
 * console shows the ones it started: invoked asynchronously (POST …/invoke-async), then followed
 * through …/operation-status/{handleId} until the result is there.
 */
import { b64, pathSegment, request } from "./api.ts";
import type { Element } from "./model.ts";

export interface Invocation {
  key: number;
  submodelId: string;
  path: string;
  state: "Running" | "Completed" | "Failed" | "Timeout" | "Canceled" | "Error";
  message?: string;
  started: Date;
}

const STATUS_POLL_MS = 1_000;
const invocations: Invocation[] = [];
const listeners = new Set<() => void>();
let nextKey = 1;

export function currentInvocations(): readonly Invocation[] {
  return invocations;
}

export function onInvocationsChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const changed = () => {
  for (const listener of listeners) listener();
};

/** Invokes with the operation's declared input and in-output variables as they are in the model. */
export async function invokeOperation(submodelId: string, path: string, operation: Element): Promise<void> {
  const invocation: Invocation = { key: nextKey++, submodelId, path, state: "Running", started: new Date() };
  invocations.unshift(invocation);
  changed();
  const finish = (state: Invocation["state"], message?: string) => {
    invocation.state = state;
    invocation.message = message;
    changed();
  };
  const base = `/submodels/${b64(submodelId)}/submodel-elements/${pathSegment(path)}`;
  try {
    const started = await request(`${base}/invoke-async`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        inputArguments: operation.inputVariables ?? [],
        inoutputArguments: operation.inoutputVariables ?? [],
        clientTimeoutDuration: "PT5M",
      }),
    });
    // The 202 has no body (AAS Part 2): the handle, base64url-encoded, ends its Location.
    const location = started.headers.get("Location") ?? "";
    const handle = location.slice(location.lastIndexOf("/") + 1);
    for (;;) {
      // fetch follows the 302 to …/operation-results once the operation has finished.
      const status = await request(`${base}/operation-status/${handle}`, {
        headers: { Accept: "application/json" },
      });
      const body = (await status.json()) as { executionState?: string; messages?: { text?: string }[] };
      const text = (body.messages ?? []).map((m) => m.text).join("; ");
      if (body.executionState && body.executionState !== "Running" && body.executionState !== "Initiated") {
        return finish(body.executionState as Invocation["state"], text || undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
    }
  } catch (error) {
    finish("Error", (error as Error).message);
  }
}
