import assert from "node:assert/strict";
import { it } from "node:test";
import { type RunningServer, startNats } from "../../../../tests/test-support/servers.ts";
import { waitUntil } from "../test-support/index.ts";
import { connectNats } from "./connect-nats.ts";
import { type ConnectionChange, watchConnection } from "./connection-watch.ts";

// The change names and details were read from nats v2's `Events` and `status.data`; v3 has typed
// statuses instead, mapped by hand in connection-watch.ts. This pins what the logs and /ready see.
it("reports disconnect and reconnect with the server, survives a throwing listener, and stops", async () => {
  let server: RunningServer = await startNats();
  const { port } = server;
  const quiet = () => undefined;
  const connection = await connectNats({ url: server.url, name: "watch-test", onChange: quiet });
  const seen: [ConnectionChange, string][] = [];
  const afterStop: ConnectionChange[] = [];
  try {
    const watch = watchConnection(connection, (change, detail) => {
      seen.push([change, detail]);
      throw new Error("a listener's failure must not end the watch");
    });
    const stopped = watchConnection(connection, (change) => afterStop.push(change));
    stopped.stop();

    await server.stop();
    await waitUntil(() => seen.some(([change]) => change === "disconnect"), "the disconnect");
    server = await startNats({ port });
    await waitUntil(() => seen.some(([change]) => change === "reconnect"), "the reconnect", 10_000);

    for (const [change, detail] of seen.filter(([change]) => change === "disconnect" || change === "reconnect")) {
      assert.match(detail, new RegExp(`:${port}$`), `${change} names the server`);
    }
    assert.deepEqual(afterStop, [], "a stopped watch hears nothing");
    watch.stop();
  } finally {
    await connection.close();
    await server.stop();
  }
});
