import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  createDirectStoreClient,
  createEngine,
  createMemoryRepository,
  type Repository,
  type StoreClient,
} from "@twinport/shared";
import { createHttpApp } from "../create-http-app.ts";
import { httpEndpointSettings } from "../http-endpoint-settings.ts";
import { assertResult, call } from "../test-support/call.ts";
import { b64 } from "../test-support/example-store.ts";

/**
 * includeErrorDetails (spec §2.3, §7.1) with a real internal error: the real engine reading a
 * record that is not JSON (written straight into the repository, as a corrupted store would hold it).
 */
describe("includeErrorDetails", () => {
  const id = "urn:test:corrupt";
  let repository: Repository;
  let store: StoreClient;
  before(async () => {
    repository = createMemoryRepository();
    store = createDirectStoreClient(createEngine({ repository }));
    const result = await repository.commit({
      preconditions: [],
      ops: [{ op: "put-identifiable", kind: "shell", id, json: "{corrupt" }],
      event: { kind: "shell.created", id, time: new Date().toISOString() },
    });
    assert.ok(result.ok);
  });
  after(async () => {
    await store.close();
    await repository.close();
  });

  it("off (the default): 500 with one generic Error message, nothing internal", async () => {
    const app = createHttpApp({ store, settings: httpEndpointSettings() });
    const answer = await call(app, "GET", `/api/v3.0/shells/${b64(id)}`);
    assertResult(answer, 500, /^Internal server error$/);
    assert.equal(answer.json.messages.length, 1);
    assert.doesNotMatch(answer.text, /SyntaxError|\.ts:\d+/);
  });

  it("on: the stack follows as an Exception message; the body stays {messages:[…]}", async () => {
    const app = createHttpApp({ store, settings: httpEndpointSettings({ includeErrorDetails: true }) });
    const answer = await call(app, "GET", `/api/v3.0/shells/${b64(id)}`);
    assert.equal(answer.status, 500);
    assert.deepEqual(Object.keys(answer.json), ["messages"]);
    assert.deepEqual(
      answer.json.messages.map((m: { messageType: string }) => m.messageType),
      ["Error", "Exception"],
    );
    assert.match(answer.json.messages[1].text, /SyntaxError[\s\S]*\n\s+at /);
    for (const message of answer.json.messages)
      assert.deepEqual(Object.keys(message).sort(), ["code", "messageType", "text", "timestamp"]);
  });

  it("on, for a client error: the stack of where it was raised, as the Exception message", async () => {
    const app = createHttpApp({ store, settings: httpEndpointSettings({ includeErrorDetails: true }) });
    const answer = await call(app, "GET", `/api/v3.0/shells/${b64("urn:nothing")}`);
    assertResult(answer, 404);
    assert.deepEqual(
      answer.json.messages.map((m: { messageType: string }) => m.messageType),
      ["Error", "Exception"],
    );
  });
});
