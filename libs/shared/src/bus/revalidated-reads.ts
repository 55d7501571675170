import {
  type Command,
  type CommandResult,
  type CommandType,
  isRawJson,
  type RawJson,
  type Reply,
  WRITE_COMMANDS,
} from "../contracts/index.ts";
import type { ExecuteOptions, StoreClient } from "../engine/ports/index.ts";

export interface RevalidatedReadsOptions {
  /** Bound of the kept answers' text, in bytes (UTF-16 length × 2 as an estimate). */
  maxBytes: number;
}

interface Kept {
  revision: number;
  /** ReplyOk.item: a path through a list index names an element, which a delete before it changes. */
  item?: string;
  value: RawJson;
  bytes: number;
}

/**
 * A gateway without a read cache (messageBus.readCacheMaxAgeMs 0) still keeps the last answer of
 * each read it forwards as text, with its revision, and asks the store again every time, naming
 * that revision (`knownRevision`, docs/adr/0026). The store runs the read as always (scope, access
 * rules, the current revision) and, when the answer still has that revision, replies without the
 * value; the kept text is answered. So every read is as fresh as an uncached one (the store decides,
 * at the time of the read, with no event stream involved), but a large unchanged answer (a
 * 1,000-element submodel) does not cross NATS twice per request.
 *
 * Answers depend on who asks (access rules): the principal is part of the key, as in the read cache.
 * Bounded by the text's size, least recently used first out; one answer may take at most a quarter.
 */
export function createRevalidatedReads(inner: StoreClient, options: RevalidatedReadsOptions): StoreClient {
  const kept = new Map<string, Kept>();
  let bytes = 0;
  const remove = (key: string) => {
    const entry = kept.get(key);
    if (!entry) return;
    kept.delete(key);
    bytes -= entry.bytes;
  };

  return {
    async execute<T extends CommandType>(
      command: Command<T>,
      executeOptions?: ExecuteOptions,
    ): Promise<Reply<CommandResult<T>>> {
      if (executeOptions?.rawValue !== true || WRITE_COMMANDS.has(command.type))
        return inner.execute(command, executeOptions);
      const principal =
        command.principal === undefined
          ? ""
          : `${command.principal.kind}\u0000${command.principal.name ?? ""}\u0000${command.principal.roles.join("\u0000")}`;
      const key = `${command.type}\u0000${principal}\u0000${JSON.stringify(command.params)}`;
      // The entry as it was when asked: a newer answer stored meanwhile does not change what this
      // request's `unchanged` refers to.
      const held = kept.get(key);
      const known = held
        ? { knownRevision: held.revision, ...(held.item !== undefined ? { knownItem: held.item } : {}) }
        : {};
      const reply = await inner.execute(held ? { ...command, ...known } : command, executeOptions);
      if (!reply.ok) return reply;
      if (reply.unchanged) {
        if (held === undefined || reply.revision !== held.revision || reply.item !== held.item) {
          // Never sent without a known revision; a store that does is broken, not the caller.
          return {
            ok: false,
            error: {
              code: "internal",
              message: "The store answered 'unchanged' to a read it was not asked to revalidate",
            },
          };
        }
        // Least recently used first out: a use moves the entry to the end.
        if (kept.get(key) === held) {
          kept.delete(key);
          kept.set(key, held);
        }
        const { unchanged: _unchanged, ...rest } = reply;
        return { ...rest, value: held.value as CommandResult<T> };
      }
      if (reply.revision !== undefined && isRawJson(reply.value)) {
        const size = (reply.value.rawJson.length + key.length) * 2;
        remove(key);
        if (size <= options.maxBytes / 4) {
          kept.set(key, {
            revision: reply.revision,
            ...(reply.item !== undefined ? { item: reply.item } : {}),
            value: reply.value,
            bytes: size,
          });
          bytes += size;
          for (const oldest of kept.keys()) {
            if (bytes <= options.maxBytes) break;
            remove(oldest);
          }
        }
      }
      return reply;
    },
    close: () => inner.close(),
  };
}
