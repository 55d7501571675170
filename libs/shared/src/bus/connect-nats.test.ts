import assert from "node:assert/strict";
import { test } from "node:test";
import { startNats } from "../../../../tests/test-support/servers.ts";
import { connectNats, serversOf } from "./connect-nats.ts";

test("credentials in the URL are taken out of it and given to the client: user and password, or a token", () => {
  assert.deepEqual(serversOf("nats://127.0.0.1:4222"), { servers: ["nats://127.0.0.1:4222"], credentials: {} });
  assert.deepEqual(serversOf("nats://app:s%40cret@nats-a:4222, nats://app:s%40cret@nats-b:4222"), {
    servers: ["nats://nats-a:4222", "nats://nats-b:4222"],
    credentials: { user: "app", pass: "s@cret" },
  });
  assert.deepEqual(serversOf("tls://T0KEN@nats:4222"), {
    servers: ["tls://nats:4222"],
    credentials: { token: "T0KEN" },
  });
});

test("a NATS server that requires a user and password accepts the ones written into the URL", async () => {
  const nats = await startNats({ user: "twinport", pass: "p@ss:word" });
  try {
    const url = nats.url.replace("nats://", `nats://twinport:${encodeURIComponent("p@ss:word")}@`);
    const connection = await connectNats({ url, name: "test", onChange: () => {} });
    try {
      const reply = connection.subscribe("ping.test", {
        max: 1,
        callback: (_error, msg) => void msg.respond(msg.data),
      });
      assert.equal(
        new TextDecoder().decode((await connection.request("ping.test", "hi", { timeout: 2000 })).data),
        "hi",
      );
      reply.unsubscribe();
    } finally {
      await connection.close();
    }
  } finally {
    await nats.stop();
  }
});
