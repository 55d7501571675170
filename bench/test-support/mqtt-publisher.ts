/**
 * The device side of bench/asset-ingest.ts, run as its own process so that its CPU is not mixed
 * with the bench's (OPC UA client, NATS counter) or the system's.
 *
 *   node --import tsx bench/test-support/mqtt-publisher.ts <brokerUrl> <config JSON>
 *
 * config: { topics: string[], rate: values/s, seconds, qos: 0|1, epochMs }
 * Publishes round-robin over `topics` at `rate` for `seconds` (a bounded loop). Each payload is a
 * JSON number: the send time in ms since `epochMs` (wall clock, µs resolution, the same clock the
 * bench reads), so every value differs from the one before on its topic and carries its own send
 * time to whoever receives it. It prints "publishing" when it starts; at the end it waits for the broker's
 * acknowledgements and prints one JSON line: { published, acked (every PUBACK came within 15 s), startedMs and endedMs (since epochMs), seconds, closeMs (ending the session took), unacknowledged (when it ended), cpuMs, last: { topic: value } }.
 *
 * It speaks MQTT 3.1.1 itself over one TCP socket (CONNECT, PUBLISH, PUBACK, DISCONNECT: all a
 * device needs) and writes the PUBLISHes due in one turn with ONE socket write, as a gateway
 * batching its readings would. With mqtt.js each message cost a packet object, a store entry and
 * its own `writev`: 40–120 µs of device CPU per committed value on the same two cores as the system
 * it measures (docs/benchmarks.md), which took CPU away from the system under test.
 */
import { connect, type Socket } from "node:net";

const [url, configText] = process.argv.slice(2);
const config = JSON.parse(configText!) as {
  topics: string[];
  rate: number;
  seconds: number;
  qos: 0 | 1;
  epochMs: number;
};
const { topics, rate, seconds, qos, epochMs } = config;
const broker = new URL(url!);

const now = () => performance.timeOrigin + performance.now();

/** MQTT's variable byte integer (remaining length). */
function varint(n: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    bytes.push(byte);
  } while (n > 0);
  return bytes;
}

function connectPacket(clientId: string): Buffer {
  const id = Buffer.from(clientId, "utf8");
  // Protocol name "MQTT", level 4 (3.1.1), flags: clean session; keep-alive 0 (a run is short).
  const variable = Buffer.from([0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x00]);
  const rest = variable.length + 2 + id.length;
  return Buffer.concat([
    Buffer.from([0x10, ...varint(rest)]),
    variable,
    Buffer.from([id.length >> 8, id.length & 0xff]),
    id,
  ]);
}

const encodedTopics = topics.map((t) => Buffer.from(t, "utf8"));

let unacknowledged = 0;
let onAllAcknowledged: (() => void) | undefined;
let onConnack: ((code: number) => void) | undefined;
let pending: Buffer = Buffer.alloc(0);

/** Reads what the broker sends: CONNACK and PUBACKs (nothing else is expected). */
function received(chunk: Buffer): void {
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  let at = 0;
  while (pending.length - at >= 2) {
    const type = pending[at]! >> 4;
    let length = 0;
    let multiplier = 1;
    let i = at + 1;
    let complete = false;
    for (; i < pending.length && i < at + 5; i++) {
      length += (pending[i]! & 0x7f) * multiplier;
      multiplier *= 128;
      if ((pending[i]! & 0x80) === 0) {
        complete = true;
        i++;
        break;
      }
    }
    if (!complete || pending.length < i + length) break;
    if (type === 2) onConnack?.(pending[i + 1]!);
    else if (type === 4) {
      unacknowledged--;
      if (unacknowledged === 0) onAllAcknowledged?.();
    }
    at = i + length;
  }
  pending = pending.subarray(at);
}

const socket: Socket = await new Promise((resolve, reject) => {
  const s = connect({ host: broker.hostname, port: Number(broker.port || 1883), noDelay: true }, () => resolve(s));
  s.once("error", reject);
});
socket.on("data", received);
await new Promise<void>((resolve, reject) => {
  onConnack = (code) => (code === 0 ? resolve() : reject(new Error(`the broker refused the connection: ${code}`)));
  socket.write(connectPacket(`bench-device-${process.pid}`));
});

const cpuBefore = process.cpuUsage();
const last: Record<string, number> = {};
let published = 0;
/**
 * Messages not yet acknowledged. A device has a window of them (Paho's default is 10); when the
 * window is full the device waits: a broker that cannot keep up shows as a published rate below
 * the target.
 */
const WINDOW = 1000;
let packetId = 0;
let next = 0;
// Tells the bench that publishing starts now (it measures CPU from here, not from process start).
process.stdout.write("publishing\n");
const started = now();
const until = started + seconds * 1000;
const yieldTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
// Bounded: ends at `until` whatever happens; each turn publishes what is due by now, in one write.
while (now() < until) {
  const due = Math.min(Math.floor(((now() - started) / 1000) * rate), Math.ceil(seconds * rate));
  const packets: Buffer[] = [];
  while (published < due && (qos === 0 || unacknowledged < WINDOW)) {
    const topicIndex = next;
    next = (next + 1) % topics.length;
    const value = Math.round((now() - epochMs) * 1000) / 1000;
    last[topics[topicIndex]!] = value;
    const topic = encodedTopics[topicIndex]!;
    const payload = Buffer.from(String(value), "latin1");
    const rest = 2 + topic.length + (qos === 1 ? 2 : 0) + payload.length;
    const header = [qos === 1 ? 0x32 : 0x30, ...varint(rest), topic.length >> 8, topic.length & 0xff];
    packets.push(Buffer.from(header), topic);
    if (qos === 1) {
      packetId = (packetId % 0xffff) + 1;
      packets.push(Buffer.from([packetId >> 8, packetId & 0xff]));
      unacknowledged++;
    }
    packets.push(payload);
    published++;
  }
  if (packets.length > 0) socket.write(Buffer.concat(packets));
  await yieldTurn();
}
const ended = now();
const elapsed = (ended - started) / 1000;
// QoS 1: every PUBACK in before DISCONNECT; bounded, since a broker busy with a slow subscriber may
// take long to acknowledge them all.
const acked =
  unacknowledged === 0 ||
  (await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 15_000);
    onAllAcknowledged = () => {
      clearTimeout(timer);
      resolve(true);
    };
  }));
await new Promise<void>((resolve) => socket.end(Buffer.from([0xe0, 0x00]), () => resolve()));
socket.destroy();
const closeMs = now() - ended;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  `${JSON.stringify({ published, acked, startedMs: started - epochMs, endedMs: ended - epochMs, seconds: elapsed, closeMs, unacknowledged, cpuMs: (cpu.user + cpu.system) / 1000, last })}\n`,
);
