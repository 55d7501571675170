import type { Command, CommandResult, CommandType, Reply } from "../../contracts/index.ts";

export interface ExecuteOptions {
  /** Absolute deadline (ms since epoch); past it the caller gets a `timeout` error. */
  deadline?: number;
}

/**
 * How a gateway reaches the engine. Implementations: a direct call (embedded mode) and NATS
 * request/reply to the model-store queue group (bus/). It never throws for command failures:
 * they come back as `{ ok: false }`; transport failures come back as `unavailable` / `timeout`.
 */
export interface StoreClient {
  execute<T extends CommandType>(command: Command<T>, options?: ExecuteOptions): Promise<Reply<CommandResult<T>>>;
  close(): Promise<void>;
}

/** What serves commands: the engine. The NATS responder and the direct client both wrap one. */
export interface CommandHandler {
  execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>>;
}
