import type { CommandParams, CommandResult, CommandType, ExecuteOptions, ReplyOk, StoreClient } from "@twinport/shared";
import { ApiError } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { idempotencyOf } from "./idempotency-key.ts";
import { principalOf } from "./request-principal.ts";

/** `options`: a deadline other than the bus's default (long transfers: imports, packages, files). */
export type SendCommand = <T extends CommandType>(
  c: GatewayContext,
  type: T,
  params: CommandParams<T>,
  options?: ExecuteOptions,
) => Promise<ReplyOk<CommandResult<T>>>;

/**
 * Sends one command to the store, stamped with the endpoint's origin and the request's correlation
 * id, and for a write with an Idempotency-Key header its key and the request's fingerprint. A failed
 * reply becomes an ApiError so handlers only deal with success.
 */
export function commandSender(store: StoreClient, origin: string): SendCommand {
  return async (c, type, params, options) => {
    const sent = withoutUndefined(params);
    const idempotency = idempotencyOf(c, type, sent);
    const principal = principalOf(c);
    const command = {
      type,
      params: sent,
      origin,
      correlationId: c.get("correlationId"),
      ...(idempotency ? { idempotency } : {}),
      ...(principal ? { principal } : {}),
    };
    const reply = await store.execute(command, options);
    if (!reply.ok) throw new ApiError(reply.error);
    return reply;
  };
}

// Keeps commands identical whether they travel by function call or as JSON over NATS.
function withoutUndefined<T>(params: T): T {
  const copy = { ...params } as Record<string, unknown>;
  for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key];
  return copy as T;
}
