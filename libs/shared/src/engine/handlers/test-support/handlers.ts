/** Test support for handler tests: the real engine on a memory repository with the example model. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ChangeEvent, Command, CommandResult, CommandType, Reply } from "../../../contracts/index.ts";
import { createEngine, type Engine } from "../../create-engine.ts";
import { createInProcessEventBus } from "../../memory/in-process-event-bus.ts";
import { createMemoryRepository } from "../../memory/memory-repository.ts";

// Read, not imported: the engine may not import the testing package (dependency rules).
const EXAMPLE_MODEL_TEXT = readFileSync(
  new URL("../../../test-support/fixtures/example-env.json", import.meta.url),
  "utf8",
);

export interface TestEngine {
  engine: Engine;
  events: ChangeEvent[];
  run<T extends CommandType>(type: T, params: Command<T>["params"]): Promise<Reply<CommandResult<T>>>;
  ok<T extends CommandType>(
    type: T,
    params: Command<T>["params"],
  ): Promise<{ value: CommandResult<T>; revision?: number }>;
  fails<T extends CommandType>(type: T, params: Command<T>["params"], code: string, message?: RegExp): Promise<void>;
}

export async function testEngine(
  options: { validation?: boolean; pageBudgetChars?: number } = {},
): Promise<TestEngine> {
  const bus = createInProcessEventBus();
  const events: ChangeEvent[] = [];
  await bus.subscribe({ onEvent: (event) => events.push(event) });
  const engine = createEngine({
    repository: createMemoryRepository(),
    bus,
    validation: options.validation,
    ...(options.pageBudgetChars !== undefined ? { pageBudgetChars: options.pageBudgetChars } : {}),
  });
  const run: TestEngine["run"] = (type, params) =>
    engine.execute({ type, params, origin: "test" } as Command<typeof type>);
  const ok: TestEngine["ok"] = async (type, params) => {
    const reply = await run(type, params);
    assert.ok(reply.ok, `${type} failed: ${JSON.stringify(!reply.ok && reply.error)}`);
    return reply;
  };
  const fails: TestEngine["fails"] = async (type, params, code, message) => {
    const reply = await run(type, params);
    assert.equal(reply.ok, false, `${type} should fail with ${code}`);
    if (reply.ok) return;
    assert.equal(reply.error.code, code, reply.error.message);
    if (message) assert.match(reply.error.message, message);
  };
  await ok("LoadEnvironment", { body: EXAMPLE_MODEL_TEXT });
  events.length = 0;
  return { engine, events, run, ok, fails };
}
