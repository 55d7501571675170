import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { natsForSuite } from "../../../../tests/test-support/nats-for-suite.ts";
import { ANONYMOUS, type Command, type Principal, SYSTEM } from "../contracts/index.ts";
import { createDirectStoreClient } from "../engine/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import { isNoSecuritySectionReply, serveCommandsOverNats } from "./command-responder.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";

// Which principal the engine gets for a command that crossed the bus (issue 13, ADR 0025): a
// missing one is anonymous once security is configured, SYSTEM becomes none, any other stays.

const quiet = () => {};
const ALICE: Principal = { kind: "user", name: "alice", roles: ["reader"] };

/** Answers every command with the principal it arrived with ("none" when it had none). */
const echoPrincipal: CommandHandler = {
  async execute(command: Command) {
    return { ok: true, value: command.principal ?? "none" } as never;
  },
};

describe("the principal of a command that crossed the bus", () => {
  const { connection } = natsForSuite();

  async function arrived(anonymousWithoutPrincipal: boolean, principal: Principal | undefined): Promise<unknown> {
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler: echoPrincipal,
      onError: quiet,
      anonymousWithoutPrincipal,
    });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    try {
      const reply = await client.execute({ type: "GetSequence", params: {}, ...(principal ? { principal } : {}) });
      assert.ok(reply.ok, JSON.stringify(reply));
      return reply.value;
    } finally {
      await client.close();
      await responder.close();
    }
  }

  /** The error a responder without security answers a command carrying `principal` with. */
  async function refusal(principal: Principal): Promise<{ code: string; message: string }> {
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler: echoPrincipal,
      onError: quiet,
    });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    try {
      const reply = await client.execute({ type: "GetSequence", params: {}, principal });
      assert.equal(reply.ok, false, JSON.stringify(reply));
      return (reply as { error: { code: string; message: string } }).error;
    } finally {
      await client.close();
      await responder.close();
    }
  }

  it("with security configured: none → anonymous, SYSTEM → none, a user stays that user", async () => {
    assert.deepEqual(await arrived(true, undefined), ANONYMOUS);
    assert.equal(await arrived(true, SYSTEM), "none");
    assert.deepEqual(await arrived(true, ALICE), ALICE);
    assert.deepEqual(await arrived(true, ANONYMOUS), ANONYMOUS);
  });

  it("without security: as before, none stays none (SYSTEM too)", async () => {
    assert.equal(await arrived(false, undefined), "none");
    assert.equal(await arrived(false, SYSTEM), "none");
  });

  it("without security, a caller's principal (from a secured gateway) is refused as unavailable, not run unchecked", async () => {
    for (const principal of [ALICE, ANONYMOUS]) {
      const reply = await refusal(principal);
      assert.equal(reply.code, "unavailable");
      assert.match(reply.message, /no security section/);
    }
  });

  it("without security, the refusal of an access-stance probe is answered as any but not reported as a misconfiguration", async () => {
    const refused: string[] = [];
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler: echoPrincipal,
      onError: quiet,
      onRefused: (type) => refused.push(type),
    });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    try {
      const probe = await client.execute({
        type: "GetEvents",
        params: { after: 0, limit: 1 },
        principal: ANONYMOUS,
        accessStanceProbe: true,
      });
      assert.ok(isNoSecuritySectionReply(probe), JSON.stringify(probe));
      assert.deepEqual(refused, [], "the probe asked for this refusal");
      const caller = await client.execute({ type: "GetEvents", params: { after: 0, limit: 1 }, principal: ANONYMOUS });
      assert.ok(isNoSecuritySectionReply(caller), JSON.stringify(caller));
      assert.deepEqual(refused, ["GetEvents"], "a secured gateway's command is a real mismatch");
    } finally {
      await client.close();
      await responder.close();
    }
  });

  it("in-process (direct store client), SYSTEM is none as well and nothing else changes", async () => {
    const client = createDirectStoreClient(echoPrincipal);
    for (const [sent, expected] of [
      [undefined, "none"],
      [SYSTEM, "none"],
      [ALICE, ALICE],
      [ANONYMOUS, ANONYMOUS],
    ] as const) {
      const reply = await client.execute({ type: "GetSequence", params: {}, ...(sent ? { principal: sent } : {}) });
      assert.ok(reply.ok);
      assert.deepEqual(reply.value, expected);
    }
  });

  it("a malformed principal is refused as an undecodable command", async () => {
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler: echoPrincipal,
      onError: quiet,
      anonymousWithoutPrincipal: true,
    });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    try {
      const reply = await client.execute({
        type: "GetSequence",
        params: {},
        principal: { kind: "user", name: "mallory" } as unknown as Principal,
      });
      assert.equal(reply.ok, false);
      if (!reply.ok) assert.equal(reply.error.code, "bad-request");
    } finally {
      await client.close();
      await responder.close();
    }
  });
});
