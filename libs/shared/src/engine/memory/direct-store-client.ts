import {
  type Command,
  type CommandResult,
  type CommandType,
  type FileContent,
  type FileStream,
  failureReply,
  type Reply,
  type ReplyFailure,
  toRawValue,
  WRITE_COMMANDS,
  withArrivedPrincipal,
} from "../../contracts/index.ts";
import type { CommandHandler, ExecuteOptions, StoreClient } from "../ports/index.ts";

/**
 * The embedded-mode StoreClient: a function call into the engine, with the same failure shapes as
 * the NATS client (thrown → `internal`, deadline → `timeout`, closed → `unavailable`), so gateways
 * behave alike in both modes.
 */
export function createDirectStoreClient(handler: CommandHandler): StoreClient {
  let closed = false;

  return {
    async execute<T extends CommandType>(
      command: Command<T>,
      options: ExecuteOptions = {},
    ): Promise<Reply<CommandResult<T>>> {
      if (closed) return failure("unavailable", "the store client is closed");
      const { deadline } = options;
      if (deadline !== undefined && Date.now() >= deadline)
        return failure("timeout", `${command.type}: deadline passed before it was sent`);

      const { rawValue } = options;
      // The text form the caller asked for, as a remote store would send it (and a read cache keeps).
      const running = rawValue
        ? invoke(handler, command, deadline).then((reply) =>
            reply.ok ? ({ ...reply, value: toRawValue(reply.value, rawValue) } as Reply<CommandResult<T>>) : reply,
          )
        : invoke(handler, command, deadline);
      // `return await`: an async function returning a promise unwraps it in extra microtask turns.
      if (deadline === undefined) return await running;

      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<ReplyFailure>((resolve) => {
        const unknown = WRITE_COMMANDS.has(command.type) ? "; the outcome is unknown" : "";
        timer = setTimeout(
          () => resolve(failure("timeout", `${command.type}: no reply within the deadline${unknown}`)),
          deadline - Date.now(),
        );
      });
      try {
        return await Promise.race([running, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    async stream(command: Command, options: ExecuteOptions = {}): Promise<Reply<FileStream>> {
      if (closed) return failure("unavailable", "the store client is closed");
      if (options.deadline !== undefined && Date.now() >= options.deadline)
        return failure("timeout", `${command.type}: deadline passed before it was sent`);
      // The chunks are the engine's own generator: the caller's pace is the reads' pace.
      if (handler.stream) return invokeStream(handler, command);
      const reply = await invoke(handler, command, undefined);
      if (!reply.ok) return reply;
      const { contentBase64, ...content } = reply.value as FileContent;
      return { ok: true, value: { ...content, chunks: once(Buffer.from(contentBase64, "base64")) } };
    },
    async close() {
      closed = true;
    },
  };
}

/** Never rejects: whatever the handler throws becomes a failure reply. */
async function invoke<T extends CommandType>(
  handler: CommandHandler,
  command: Command<T>,
  deadline: number | undefined,
): Promise<Reply<CommandResult<T>>> {
  try {
    // In-process, no principal is the system; a gateway's explicit SYSTEM means the same. The
    // deadline goes along: a write still queued when the caller got its 504 is not written after.
    return await handler.execute(
      withArrivedPrincipal(command, undefined),
      deadline === undefined ? undefined : { deadline },
    );
  } catch (error) {
    return failureForThrown(error);
  }
}

function failure(code: "unavailable" | "timeout", message: string): ReplyFailure {
  return { ok: false, error: { code, message } };
}

const failureForThrown = failureReply;

async function invokeStream(handler: CommandHandler, command: Command): Promise<Reply<FileStream>> {
  try {
    return await handler.stream!(withArrivedPrincipal(command, undefined));
  } catch (error) {
    return failureForThrown(error);
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
