import assert from "node:assert/strict";
import { connect } from "node:net";
import { test } from "node:test";
import { connectAsync } from "mqtt";
import { startMosquitto, startNats, startRedis } from "./servers.ts";

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

test("starts and stops a real mosquitto: password file, TLS listener with its self-signed certificate", async () => {
  const broker = await startMosquitto({ users: { device: "s3cret" }, tls: true });
  try {
    await assert.rejects(
      connectAsync(broker.url, { reconnectPeriod: 0, username: "device", password: "wrong" }),
      /Not authorized|Bad user name or password/i,
    );
    await assert.rejects(
      connectAsync(broker.url, { reconnectPeriod: 0 }),
      /Not authorized/i,
      "anonymous clients are refused",
    );
    const subscriber = await connectAsync(broker.url, { reconnectPeriod: 0, username: "device", password: "s3cret" });
    const publisher = await connectAsync(broker.tlsUrl!, {
      reconnectPeriod: 0,
      username: "device",
      password: "s3cret",
      ca: broker.certificate,
    });
    try {
      await subscriber.subscribeAsync("servers-test/#", { qos: 1 });
      const received = new Promise<string>((resolve) =>
        subscriber.once("message", (topic, payload) => resolve(`${topic} ${payload.toString()}`)),
      );
      await publisher.publishAsync("servers-test/a", "hello", { qos: 1 });
      assert.equal(await received, "servers-test/a hello");
    } finally {
      await subscriber.endAsync();
      await publisher.endAsync();
    }
    await assert.rejects(
      connectAsync(broker.tlsUrl!, { reconnectPeriod: 0, username: "device", password: "s3cret" }),
      /self[- ]signed/i,
      "the certificate is not trusted by default",
    );
  } finally {
    await broker.stop();
  }
  await assert.rejects(ping(broker.port, ""));
});
