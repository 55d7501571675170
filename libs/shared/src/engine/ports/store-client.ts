import type { Command, CommandResult, CommandType, FileStream, Reply } from "../../contracts/index.ts";

export interface ExecuteOptions {
  /** Absolute deadline (ms since epoch); past it the caller gets a `timeout` error. */
  deadline?: number;
  /**
   * The caller only passes the reply's value on as JSON text (an HTTP response body): a remote
   * store may then send it as a RawJson, which spares both ends re-encoding it (a 1,000-element
   * submodel was parsed and stringified again in the gateway). `"items"`: the value is a Paged
   * whose items are forwarded as one JSON array; it comes back as `{ items: RawJson, cursor }`.
   * A direct call may ignore it.
   */
  rawValue?: boolean | "items";
}

/**
 * How a gateway reaches the engine. Implementations: a direct call (embedded mode) and NATS
 * request/reply to the model-store queue group (bus/). It never throws for command failures:
 * they come back as `{ ok: false }`; transport failures come back as `unavailable` / `timeout`.
 */
export interface StoreClient {
  execute<T extends CommandType>(command: Command<T>, options?: ExecuteOptions): Promise<Reply<CommandResult<T>>>;
  /**
   * A command of STREAMED_COMMANDS answered as a FileStream: the reply (or its failure) within the
   * deadline, then the body as the engine writes it, pulled chunk by chunk so the reader's pace
   * sets the writer's (docs/adr/0034). Absent: use execute.
   */
  stream?(command: Command, options?: ExecuteOptions): Promise<Reply<FileStream>>;
  close(): Promise<void>;
}

/** What serves commands: the engine. The NATS responder and the direct client both wrap one. */
export interface CommandHandler {
  /**
   * `deadline`: when the caller stops waiting (ms since epoch). A write whose deadline has passed by
   * the time it would be committed is answered `timeout` without being written: its caller has
   * been told the outcome is unknown and may have written since (docs/adr/0017).
   */
  execute<T extends CommandType>(
    command: Command<T>,
    options?: { deadline?: number },
  ): Promise<Reply<CommandResult<T>>>;
  /** A command of STREAMED_COMMANDS, answered as it is written (StoreClient.stream). */
  stream?(command: Command): Promise<Reply<FileStream>>;
}
