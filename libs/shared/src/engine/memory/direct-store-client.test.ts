import assert from "node:assert/strict";
import { it } from "node:test";
import { type Command, CommandError, type CommandResult, type CommandType, type Reply } from "../../contracts/index.ts";
import { storeClientContract } from "../../test-support/index.ts";
import { createDirectStoreClient } from "./direct-store-client.ts";

storeClientContract("direct", async (handler) => {
  const client = createDirectStoreClient(handler);
  return { client, close: () => client.close() };
});

it("keeps the code, path and details of a thrown CommandError", async () => {
  const client = createDirectStoreClient({
    async execute<T extends CommandType>(_command: Command<T>): Promise<Reply<CommandResult<T>>> {
      throw new CommandError("not-found", "no such element", { path: "a.b", details: ["looked in a"] });
    },
  });
  const reply = await client.execute({ type: "GetSequence", params: {} });
  assert.deepEqual(reply, {
    ok: false,
    error: { code: "not-found", message: "no such element", path: "a.b", details: ["looked in a"] },
  });
});
