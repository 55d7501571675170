/**
 * The http-gateway of bench/write-floor.ts: the least a gateway of this architecture does per
 * PATCH. It reads the body, sends the writes of one event-loop turn to the store as one NATS
 * message, takes the store's events (each decoded, as a read cache must) and answers 204 when the
 * store's reply for the write arrives. A GET is answered from memory once a NATS barrier (a PING,
 * one per event-loop turn, as Twinport's read cache sends) has come back. No validation, routing,
 * caches or metrics: what is left is the cost of the hops themselves.
 * Usage: node --import tsx bench/test-support/floor-gateway.ts PORT NATS_URL
 */
import { createServer, type ServerResponse } from "node:http";
import { connect } from "@nats-io/transport-node";

const [port, natsUrl] = process.argv.slice(2);
const nc = await connect({ servers: natsUrl });
const decoder = new TextDecoder();
const encoder = new TextEncoder();
const waiting = new Map<number, ServerResponse>();
const inbox = `floor.reply.${process.pid}`;
let nextId = 0;
let turn: string[] = [];
let events = 0;

nc.subscribe("floor.evt.>", {
  callback: (_error, msg) => {
    const body = JSON.parse(decoder.decode(msg.data)) as unknown;
    events += Array.isArray(body) ? body.length : 1;
  },
});
nc.subscribe(inbox, {
  callback: (_error, msg) => {
    for (const id of JSON.parse(decoder.decode(msg.data)) as number[]) {
      const res = waiting.get(id);
      waiting.delete(id);
      res?.writeHead(204).end();
    }
  },
});
await nc.flush();

function flush(): void {
  const batch = turn;
  turn = [];
  nc.publish("floor.batch", encoder.encode(`[${batch.join(",")}]`), { reply: inbox });
}

/** GETs of this turn: answered together once the turn's PING is back. */
let reads: ServerResponse[] = [];
function barrier(): void {
  const answering = reads;
  reads = [];
  void nc.flush().then(() => {
    for (const res of answering) res.writeHead(200, { "content-type": "application/json" }).end(VALUE);
  });
}
const VALUE = "1";

const server = createServer((req, res) => {
  if (req.method === "GET") {
    if (reads.length === 0) setImmediate(barrier);
    reads.push(res);
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const id = nextId++;
    waiting.set(id, res);
    if (turn.length === 0) setImmediate(flush);
    turn.push(JSON.stringify([id, req.url, Buffer.concat(chunks).toString()]));
  });
});
server.listen(Number(port), "127.0.0.1", () => console.log("floor gateway ready"));
process.on("SIGTERM", () => {
  console.error(`floor gateway: ${events} events taken`);
  server.close();
  void nc.close().then(() => process.exit(0));
});
