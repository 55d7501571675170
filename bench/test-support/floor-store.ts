/**
 * The model-store of bench/write-floor.ts: the least a store of this architecture does per write.
 * Each command batch from a gateway is one Lua script call in Redis (one HSET per write and the
 * sequence number, so one AOF fsync serves the batch), then the writes' change events on NATS,
 * then one reply naming the writes done. EVENTS=single publishes one event message per write (as
 * Twinport does today), EVENTS=batch one message per batch.
 * Usage: node --import tsx bench/test-support/floor-store.ts NATS_URL REDIS_PORT single|batch
 */
import { connect } from "@nats-io/transport-node";
import { Redis } from "ioredis";

const [natsUrl, redisPort, eventsMode = "single"] = process.argv.slice(2);
const nc = await connect({ servers: natsUrl });
const redis = new Redis(Number(redisPort), "127.0.0.1");
const SCRIPT = `
for i = 1, #ARGV, 2 do redis.call('HSET', 'floor:' .. ARGV[i], 'v', ARGV[i + 1]) end
return redis.call('INCRBY', 'floor:seq', #ARGV / 2)`;
const sha = (await redis.script("LOAD", SCRIPT)) as string;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

nc.subscribe("floor.batch", {
  callback: (_error, msg) => {
    const writes = JSON.parse(decoder.decode(msg.data)) as [number, string, string][];
    const args = writes.flatMap(([, path, value]) => [path, value]);
    void (redis.evalsha(sha, 0, ...args) as Promise<number>).then((lastSeq) => {
      const time = new Date().toISOString();
      const events = writes.map(([, path, value], i) => ({
        seq: lastSeq - writes.length + 1 + i,
        kind: "element.value-changed",
        id: "urn:floor:sm",
        idShortPath: path,
        payload: { value },
        origin: "http",
        time,
      }));
      if (eventsMode === "batch") nc.publish("floor.evt.batch", encoder.encode(JSON.stringify(events)));
      else for (const event of events) nc.publish(`floor.evt.${event.kind}`, encoder.encode(JSON.stringify(event)));
      if (msg.reply) nc.publish(msg.reply, encoder.encode(JSON.stringify(writes.map(([id]) => id))));
    });
  },
});
await nc.flush();
console.log("floor store ready");
process.on("SIGTERM", () => {
  void nc.close().then(() => redis.quit().then(() => process.exit(0)));
});
