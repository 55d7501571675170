import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Command, type CommandResult, type CommandType, isRawJson, type Reply } from "../contracts/index.ts";
import type { CommandHandler, StoreClient } from "../engine/ports/index.ts";

export interface StoreClientFixture {
  client: StoreClient;
  close(): Promise<void>;
}

export type ContractCommandHandler = CommandHandler & { readonly calls: number };

/**
 * A small real engine stand-in whose behaviour the request chooses, through
 * GetAssetAdministrationShellById's `aasId`:
 *   `echo:<x>`                 → ok, value { aasId, origin, correlationId }, revision 7
 *   `sleep:<ms>:<x>`           → waits, then ok, value { aasId }
 *   `throw`                    → throws (the client must turn it into `internal`)
 *   `fail`                     → a failure reply with every optional field set
 *   `big-reply:<n>`            → ok, value { items } with n items (~100 bytes each)
 * and PostAssetAdministrationShell answers its `body` back as RawJson.
 */
export function createContractHandler(): ContractCommandHandler {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    async execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
      calls++;
      return (await answer(command)) as Reply<CommandResult<T>>;
    },
  };
}

async function answer(command: Command): Promise<Reply<unknown>> {
  if (command.type === "PostAssetAdministrationShell") {
    const { body } = command.params as { body: string };
    return { ok: true, value: { rawJson: body }, revision: body.length };
  }
  if (command.type !== "GetAssetAdministrationShellById") {
    return {
      ok: false,
      error: { code: "method-not-allowed", message: `contract handler does not serve ${command.type}` },
    };
  }
  const { aasId } = command.params as { aasId: string };
  const [verb, argument] = aasId.split(":");
  switch (verb) {
    case "echo":
      return { ok: true, value: { aasId, origin: command.origin, correlationId: command.correlationId }, revision: 7 };
    case "sleep":
      await sleep(Number(argument));
      return { ok: true, value: { aasId } };
    case "throw":
      throw new Error("handler exploded (expected by the test)");
    case "fail":
      return FAILURE;
    case "big-reply":
      return { ok: true, value: { items: bigItems(Number(argument)) } };
    default:
      return { ok: false, error: { code: "bad-request", message: `unknown contract verb ${verb}` } };
  }
}

const FAILURE: Reply<unknown> = {
  ok: false,
  error: {
    code: "precondition-failed",
    message: "If-Match did not hold",
    path: "Markings.Marking[0]",
    details: ["expected revision 3", "found revision 4"],
  },
};

/** Items with multi-byte characters, so a chunk boundary falls inside a UTF-8 sequence. */
function bigItems(count: number): { i: number; text: string; n: number | null }[] {
  return Array.from({ length: count }, (_, i) => ({
    i,
    text: `Größe ${i} – 温度 🌡 ${"x".repeat(40)}`,
    n: i % 3 === 0 ? null : i * 1.5,
  }));
}

/** About `bytes` of JSON text, valid and with multi-byte characters. */
export function bigJsonText(bytes: number): string {
  const items: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const item = JSON.stringify({ idShort: `P${i}`, value: `Wert ${i} ✓ ${"y".repeat(50)}` });
    items.push(item);
    size += Buffer.byteLength(item) + 1;
  }
  return `[${items.join(",")}]`;
}

const FIVE_MB = 5 * 1024 * 1024;

/** The behaviour every StoreClient implementation must show (direct call and NATS both run it). */
export function storeClientContract(
  name: string,
  make: (handler: CommandHandler) => Promise<StoreClientFixture>,
): void {
  describe(`StoreClient contract: ${name}`, () => {
    it("passes ok replies through, with the command's origin and correlationId", async () => {
      await withFixture(make, async ({ client }) => {
        const reply = await client.execute({
          type: "GetAssetAdministrationShellById",
          params: { aasId: "echo:https://example.com/aas/1" },
          origin: "http",
          correlationId: "c-42",
        });
        assert.deepEqual(reply, {
          ok: true,
          value: { aasId: "echo:https://example.com/aas/1", origin: "http", correlationId: "c-42" },
          revision: 7,
        });
      });
    });

    it("answers a value as text when asked (rawValue), and a Paged value's items as one array text", async () => {
      await withFixture(make, async ({ client }) => {
        const echo = await client.execute(
          { type: "GetAssetAdministrationShellById", params: { aasId: "echo:x" }, origin: "http" },
          { rawValue: true },
        );
        assert.ok(echo.ok && isRawJson(echo.value), JSON.stringify(echo));
        assert.equal(echo.revision, 7);
        assert.deepEqual(JSON.parse(echo.value.rawJson), { aasId: "echo:x", origin: "http" });
        // A value that is text already stays byte for byte as it was.
        const body = '{"exact":12345678901234567890.123456789}';
        const posted = await client.execute(
          { type: "PostAssetAdministrationShell", params: { body } },
          { rawValue: true },
        );
        assert.ok(posted.ok && isRawJson(posted.value) && posted.value.rawJson === body);
        const listed = await client.execute(
          { type: "GetAssetAdministrationShellById", params: { aasId: "big-reply:3" } },
          { rawValue: "items" },
        );
        assert.ok(listed.ok, JSON.stringify(listed));
        const items = (listed.value as { items: unknown }).items;
        assert.ok(isRawJson(items), JSON.stringify(listed.value));
        assert.equal((JSON.parse(items.rawJson) as unknown[]).length, 3);
        // Failures are not touched.
        assert.deepEqual(
          await client.execute(
            { type: "GetAssetAdministrationShellById", params: { aasId: "fail" } },
            { rawValue: true },
          ),
          FAILURE,
        );
      });
    });

    it("passes failure replies through unchanged", async () => {
      await withFixture(make, async ({ client }) => {
        const reply = await client.execute({ type: "GetAssetAdministrationShellById", params: { aasId: "fail" } });
        assert.deepEqual(reply, FAILURE);
      });
    });

    it("answers `internal` with a generic message and the stack when the handler throws", async () => {
      await withFixture(make, async ({ client }) => {
        const reply = await client.execute({ type: "GetAssetAdministrationShellById", params: { aasId: "throw" } });
        assert.equal(reply.ok, false);
        if (reply.ok) return;
        assert.equal(reply.error.code, "internal");
        // The message of an unexpected error stays generic (it may carry internals); the original
        // travels in the stack, which gateways show only with includeErrorDetails.
        assert.equal(reply.error.message, "Internal server error");
        assert.match(reply.error.stack ?? "", /handler exploded/);
        // And the client keeps working afterwards.
        const next = await client.execute({ type: "GetAssetAdministrationShellById", params: { aasId: "echo:after" } });
        assert.equal(next.ok, true);
      });
    });

    it("answers `timeout` when the deadline passes, without waiting for the handler", async () => {
      await withFixture(make, async ({ client }) => {
        const started = Date.now();
        const reply = await client.execute(
          { type: "GetAssetAdministrationShellById", params: { aasId: "sleep:700:slow" } },
          { deadline: started + 150 },
        );
        const elapsed = Date.now() - started;
        assert.equal(reply.ok, false);
        if (!reply.ok) assert.equal(reply.error.code, "timeout");
        assert.ok(elapsed >= 140 && elapsed < 600, `answered after ${elapsed} ms`);
      });
    });

    it("answers `timeout` without calling the handler when the deadline has already passed", async () => {
      const handler = createContractHandler();
      const fixture = await make(handler);
      try {
        const reply = await fixture.client.execute(
          { type: "GetAssetAdministrationShellById", params: { aasId: "echo:late" } },
          { deadline: Date.now() - 1 },
        );
        assert.equal(reply.ok, false);
        if (!reply.ok) assert.equal(reply.error.code, "timeout");
        await sleep(50);
        assert.equal(handler.calls, 0);
      } finally {
        await fixture.close();
      }
    });

    it("carries a 5 MB request and a 5 MB RawJson reply intact", async () => {
      await withFixture(make, async ({ client }) => {
        const body = bigJsonText(FIVE_MB);
        assert.ok(Buffer.byteLength(body) >= FIVE_MB);
        const reply = await client.execute(
          { type: "PostAssetAdministrationShell", params: { body } },
          { deadline: Date.now() + 20_000 },
        );
        assert.equal(reply.ok, true);
        if (!reply.ok) return;
        assert.ok(isRawJson(reply.value), "the value keeps the RawJson shape");
        assert.equal((reply.value as { rawJson: string }).rawJson, body);
        assert.equal(reply.revision, body.length);
      });
    });

    it("carries a 5 MB plain JSON reply intact", async () => {
      await withFixture(make, async ({ client }) => {
        const count = 60_000; // ~90 bytes each in JSON, > 5 MB
        const reply = await client.execute(
          { type: "GetAssetAdministrationShellById", params: { aasId: `big-reply:${count}` } },
          { deadline: Date.now() + 20_000 },
        );
        assert.equal(reply.ok, true);
        if (!reply.ok) return;
        assert.ok(Buffer.byteLength(JSON.stringify(reply.value)) > FIVE_MB);
        assert.deepEqual(reply.value, { items: bigItems(count) });
      });
    });

    it("answers 200 concurrent requests, each with its own reply, concurrently", async () => {
      await withFixture(make, async ({ client }) => {
        const started = Date.now();
        // 200 × 40 ms would take 8 s one at a time; concurrent handling takes a fraction of that.
        const replies = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            client.execute(
              { type: "GetAssetAdministrationShellById", params: { aasId: `sleep:${20 + (i % 5) * 10}:${i}` } },
              { deadline: Date.now() + 10_000 },
            ),
          ),
        );
        const elapsed = Date.now() - started;
        replies.forEach((reply, i) =>
          assert.deepEqual(reply, { ok: true, value: { aasId: `sleep:${20 + (i % 5) * 10}:${i}` } }),
        );
        assert.ok(elapsed < 3_000, `200 requests took ${elapsed} ms`);
      });
    });

    it("answers `unavailable` after close", async () => {
      await withFixture(make, async ({ client }) => {
        await client.close();
        const reply = await client.execute({
          type: "GetAssetAdministrationShellById",
          params: { aasId: "echo:closed" },
        });
        assert.equal(reply.ok, false);
        if (!reply.ok) assert.equal(reply.error.code, "unavailable");
      });
    });
  });
}

async function withFixture(
  make: (handler: CommandHandler) => Promise<StoreClientFixture>,
  body: (fixture: StoreClientFixture) => Promise<void>,
): Promise<void> {
  const fixture = await make(createContractHandler());
  try {
    await body(fixture);
  } finally {
    await fixture.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
