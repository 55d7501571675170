import type { StoreClient } from "@twinport/shared";
import { type StatusCode, StatusCodes, type Variant } from "node-opcua";
import { statusForError } from "./error-status.ts";
import { valueOnlyBody } from "./value-body.ts";
import type { ValueWriter, WriteBinding } from "./write-binding.ts";

export interface ValueWriterDeps {
  store: StoreClient;
  /** Resolves true once the mirror applied the event with this seq, false after `timeoutMs`. */
  waitForSeq(seq: number, timeoutMs: number): Promise<boolean>;
  log(line: string): void;
  /** How long a write waits for the store and then for its own event (default 10 s). */
  timeoutMs?: number;
}

/**
 * OPC UA writes go through the same command as HTTP PATCH …/$value (origin "opcua"), and answer
 * only once the resulting event reached this gateway's address space: a client reading right after
 * a Good write sees its value, and the node changed only through the event, like every other change.
 */
export function createValueWriter(deps: ValueWriterDeps): ValueWriter {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  return {
    async write(binding: WriteBinding, value: Variant, principal): Promise<StatusCode> {
      const body = valueOnlyBody(binding, value);
      if ("error" in body) return body.error;
      const reply = await deps.store.execute(
        {
          type: "PatchSubmodelElementValueByPath",
          params: { submodelId: binding.submodelId, idShortPath: binding.idShortPath, body: body.body },
          origin: "opcua",
          ...(principal ? { principal } : {}),
        },
        { deadline: Date.now() + timeoutMs },
      );
      if (!reply.ok) {
        if (reply.error.code === "internal" || reply.error.code === "unavailable" || reply.error.code === "timeout") {
          deps.log(
            `opcua-gateway: write to ${binding.submodelId} ${binding.idShortPath} failed: ${reply.error.code}: ${reply.error.message}`,
          );
        }
        return statusForError(reply.error.code);
      }
      if (reply.revision === undefined) return StatusCodes.Good;
      // Committed: the value is written. If our event is late, the client hears so, not an error.
      return (await deps.waitForSeq(reply.revision, timeoutMs))
        ? StatusCodes.Good
        : StatusCodes.GoodCompletesAsynchronously;
    },
  };
}
