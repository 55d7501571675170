import type { ChangeEvent, Principal } from "../contracts/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";

/**
 * The `fetchEvents` of a NATS event bus: GetEvents from the store (a StoreClient in the gateways,
 * the engine itself in a model-store). `handler` may be given later (a process builds its engine
 * after its bus): until then, and when the store cannot answer, the gap goes to the subscriber.
 * `principal`: SYSTEM when the store is reached over the bus (a gateway's own read, not a caller's).
 */
export function eventLogReader(
  handler: () => CommandHandler | undefined,
  principal?: Principal,
): (after: number, limit: number) => Promise<ChangeEvent[] | undefined> {
  return async (after, limit) => {
    const reply = await handler()?.execute({
      type: "GetEvents",
      params: { after, limit },
      ...(principal ? { principal } : {}),
    });
    return reply?.ok ? reply.value.events : undefined;
  };
}
