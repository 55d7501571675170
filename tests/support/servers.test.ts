import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { startRedis, startNats } from "./servers.ts";

function ping(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    let data = "";
    s.on("data", (d) => {
      data += d.toString();
      if (data.includes("\r\n")) {
        s.destroy();
        resolve(data);
      }
    });
    s.on("error", reject);
    if (line) s.write(line);
  });
}

test("starts and stops a real redis-server and nats-server on loopback", async () => {
  const redis = await startRedis();
  const nats = await startNats();
  try {
    assert.match(await ping(redis.port, "PING\r\n"), /PONG/);
    assert.match(await ping(nats.port, ""), /^INFO /);
  } finally {
    await redis.stop();
    await nats.stop();
  }
  await assert.rejects(ping(redis.port, "PING\r\n"));
});
