import {
  type Command,
  type CommandResult,
  type CommandType,
  type FileStream,
  type Reply,
  WRITE_COMMANDS,
} from "../contracts/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import type { Logger } from "./logger.ts";
import type { ProcessMetrics } from "./process-metrics.ts";
import { type WriteLogEntry, writeLog } from "./write-log.ts";

/**
 * The engine as the responder (or the embedded direct client) sees it, plus commands per type,
 * failures per code, and a log entry per write carrying the command's correlation id: the id the
 * HTTP gateway took from X-Correlation-Id, so one grep follows a request into the store (the
 * entries of one event-loop turn share a line, write-log.ts).
 */
export function meteredCommandHandler(
  handler: CommandHandler,
  metrics: ProcessMetrics,
  logger: Logger,
): CommandHandler {
  const stream = handler.stream?.bind(handler);
  const logWrite = writeLog(logger);
  return {
    ...(stream
      ? {
          async stream(command: Command): Promise<Reply<FileStream>> {
            const reply = await stream(command);
            metrics.countCommand(command.type, reply.ok ? undefined : reply.error.code);
            return reply;
          },
        }
      : {}),
    async execute<T extends CommandType>(
      command: Command<T>,
      options?: { deadline?: number },
    ): Promise<Reply<CommandResult<T>>> {
      const started = performance.now();
      let reply: Reply<CommandResult<T>>;
      try {
        reply = await handler.execute(command, options);
      } catch (error) {
        metrics.countCommand(command.type, "internal");
        logger.error(
          { command: command.type, correlationId: command.correlationId, origin: command.origin, err: error },
          "command threw",
        );
        throw error;
      }
      metrics.countCommand(command.type, reply.ok ? undefined : reply.error.code);
      const write = WRITE_COMMANDS.has(command.type);
      // Queries log at debug: when that is off (the default), not even their fields are built.
      if (!write && reply.ok && !logger.isLevelEnabled("debug")) return reply;
      const ms = Math.round((performance.now() - started) * 10) / 10;
      // Built in one shape, without spreading a temporary object into it (one per write).
      const fields: WriteLogEntry = {
        command: command.type,
        correlationId: command.correlationId,
        origin: command.origin,
        ms,
      };
      // A delete answers no revision (nothing is left to tag): its commit's seq is the revision its event carries.
      if (reply.ok) fields.revision = reply.revision ?? reply.seq;
      else fields.code = reply.error.code;
      if (!reply.ok && reply.error.code === "internal")
        logger.error({ ...fields, stack: reply.error.stack }, "command failed");
      else if (write) logWrite(fields);
      else logger.debug(fields, "query");
      return reply;
    },
  };
}
