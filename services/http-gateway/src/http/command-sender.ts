import type {
  CommandParams,
  CommandResult,
  CommandType,
  ExecuteOptions,
  FileStream,
  ReplyOk,
  StoreClient,
} from "@twinport/shared";
import { ApiError } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { idempotencyOf } from "./idempotency-key.ts";
import { longRequest } from "./long-request.ts";
import { principalOf } from "./request-principal.ts";

/**
 * `options`: a deadline other than the bus's default (long transfers: imports, packages, files).
 * Without them, a request whose body reached LONG_BODY_BYTES gets the long deadline too.
 */
export interface SendCommand {
  <T extends CommandType>(
    c: GatewayContext,
    type: T,
    params: CommandParams<T>,
    options?: ExecuteOptions,
  ): Promise<ReplyOk<CommandResult<T>>>;
  /**
   * A command of STREAMED_COMMANDS, its body as the store writes it (docs/adr/0034); absent when
   * the store client cannot stream.
   */
  stream?: <T extends CommandType>(
    c: GatewayContext,
    type: T,
    params: CommandParams<T>,
    options?: ExecuteOptions,
  ) => Promise<FileStream>;
}

/**
 * Sends one command to the store, stamped with the endpoint's origin and the request's correlation
 * id, and for a write with an Idempotency-Key header its key and the request's fingerprint. A failed
 * reply becomes an ApiError so handlers only deal with success.
 */
export function commandSender(store: StoreClient, origin: string): SendCommand {
  const commandOf = <T extends CommandType>(c: GatewayContext, type: T, params: CommandParams<T>) => {
    const sent = withoutUndefined(params);
    const idempotency = idempotencyOf(c, type, sent);
    const principal = principalOf(c);
    return {
      type,
      params: sent,
      origin,
      correlationId: c.get("correlationId"),
      ...(idempotency ? { idempotency } : {}),
      ...(principal ? { principal } : {}),
    };
  };
  const send: SendCommand = async (c, type, params, options) => {
    const reply = await store.execute(
      commandOf(c, type, params),
      options ?? (c.get("longBody") === true ? longRequest() : undefined),
    );
    if (!reply.ok) throw new ApiError(reply.error);
    return reply;
  };
  const streamer = store.stream?.bind(store);
  if (streamer)
    send.stream = async (c, type, params, options) => {
      const reply = await streamer(commandOf(c, type, params), options);
      if (!reply.ok) throw new ApiError(reply.error);
      return reply.value;
    };
  return send;
}

// Keeps commands identical whether they travel by function call or as JSON over NATS. Built by
// adding the defined properties, not by deleting the others from a copy: a delete turns the object
// into a slow dictionary, which made encoding the command for NATS several µs dearer (ADR 0038).
export function withoutUndefined<T>(params: T): T {
  const copy: Record<string, unknown> = {};
  const source = params as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (value !== undefined) copy[key] = value;
  }
  return copy as T;
}
