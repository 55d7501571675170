/** Test support for the file, import and package handlers: the real engine with a visible FileStore. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ChangeEvent, Command, CommandResult, CommandType, Reply } from "../../../contracts/index.ts";
import { createEngine, type Engine } from "../../create-engine.ts";
import type { ResetHook } from "../../engine-context.ts";
import type { ImportProgressListener } from "../../import/import-progress.ts";
import { createInProcessEventBus } from "../../memory/in-process-event-bus.ts";
import { createMemoryFileStore } from "../../memory/memory-file-store.ts";
import { createMemoryRepository } from "../../memory/memory-repository.ts";
import type { FileStore, Repository } from "../../ports/index.ts";

// Read, not imported: the engine may not import the testing package (dependency rules).
const EXAMPLE_MODEL_TEXT = readFileSync(
  new URL("../../../test-support/fixtures/example-env.json", import.meta.url),
  "utf8",
);

export interface FileTestEngine {
  engine: Engine;
  /** The engine's repository itself: a test may wrap a method to hold a read at a chosen moment. */
  repository: Repository;
  files: FileStore;
  events: ChangeEvent[];
  resetHooks: ResetHook[];
  run<T extends CommandType>(type: T, params: Command<T>["params"]): Promise<Reply<CommandResult<T>>>;
  ok<T extends CommandType>(
    type: T,
    params: Command<T>["params"],
  ): Promise<{ value: CommandResult<T>; revision?: number }>;
  fails<T extends CommandType>(type: T, params: Command<T>["params"], code: string, message?: RegExp): Promise<string>;
}

export async function fileTestEngine(
  options: {
    example?: boolean;
    minInflateRatio?: number;
    maxModelPartBytes?: number;
    maxIdentifiableChars?: number;
    importProgress?: ImportProgressListener;
    /** The heartbeat bound after which an interrupted package write is rolled back (default 2 min). */
    packageIntentStaleMs?: number;
  } = {},
): Promise<FileTestEngine> {
  const bus = createInProcessEventBus();
  const events: ChangeEvent[] = [];
  await bus.subscribe({ onEvent: (event) => events.push(event) });
  const files = createMemoryFileStore();
  const resetHooks: ResetHook[] = [];
  const repository = createMemoryRepository();
  const engine = createEngine({
    repository,
    bus,
    fileStore: files,
    resetHooks,
    ...(options.importProgress ? { importProgress: options.importProgress } : {}),
    ...(options.packageIntentStaleMs !== undefined ? { packageIntentStaleMs: options.packageIntentStaleMs } : {}),
    aasxLimits: {
      ...(options.minInflateRatio !== undefined ? { minInflateRatio: options.minInflateRatio } : {}),
      ...(options.maxModelPartBytes !== undefined ? { maxModelPartBytes: options.maxModelPartBytes } : {}),
      ...(options.maxIdentifiableChars !== undefined ? { maxIdentifiableChars: options.maxIdentifiableChars } : {}),
    },
  });
  const run: FileTestEngine["run"] = (type, params) =>
    engine.execute({ type, params, origin: "test" } as Command<typeof type>);
  const ok: FileTestEngine["ok"] = async (type, params) => {
    const reply = await run(type, params);
    assert.ok(reply.ok, `${type} failed: ${JSON.stringify(!reply.ok && reply.error)}`);
    return reply;
  };
  const fails: FileTestEngine["fails"] = async (type, params, code, message) => {
    const reply = await run(type, params);
    assert.equal(reply.ok, false, `${type} should fail with ${code}`);
    if (reply.ok) return "";
    assert.equal(reply.error.code, code, reply.error.message);
    if (message) assert.match(reply.error.message, message);
    return reply.error.message;
  };
  if (options.example !== false)
    await ok("ImportEnvironment", {
      documents: [{ format: "json", text: EXAMPLE_MODEL_TEXT }],
      mode: "all-or-nothing",
    });
  events.length = 0;
  return { engine, repository, files, events, resetHooks, run, ok, fails };
}

export function base64(text: string | Uint8Array): string {
  return Buffer.from(text).toString("base64");
}

export function fromBase64(text: string): Buffer {
  return Buffer.from(text, "base64");
}
