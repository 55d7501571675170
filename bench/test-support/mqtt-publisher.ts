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
 */
import { connectAsync } from "mqtt";

const [url, configText] = process.argv.slice(2);
const config = JSON.parse(configText!) as {
  topics: string[];
  rate: number;
  seconds: number;
  qos: 0 | 1;
  epochMs: number;
};
const { topics, rate, seconds, qos, epochMs } = config;

const now = () => performance.timeOrigin + performance.now();
const client = await connectAsync(url!, {
  reconnectPeriod: 0,
  clean: true,
  protocolVersion: 4,
  clientId: `bench-device-${process.pid}`,
});
const cpuBefore = process.cpuUsage();
const last: Record<string, number> = {};
let published = 0;
/**
 * Messages not yet acknowledged. A device has a window of them (Paho's default is 10); without one,
 * a broker that acknowledges slowly makes mqtt.js queue tens of thousands of packets, and ending
 * the session then took over a minute. When the window is full the device waits: a broker that
 * cannot keep up shows as a published rate below the target.
 */
const WINDOW = 1000;
let unacknowledged = 0;
const acknowledged = () => void unacknowledged--;
let next = 0;
// Tells the bench that publishing starts now (it measures CPU from here, not from process start).
process.stdout.write("publishing\n");
const started = now();
const until = started + seconds * 1000;
const yieldTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
// Bounded: ends at `until` whatever happens; each turn publishes what is due by now.
while (now() < until) {
  const due = Math.min(Math.floor(((now() - started) / 1000) * rate), Math.ceil(seconds * rate));
  while (published < due && unacknowledged < WINDOW) {
    const topic = topics[next]!;
    next = (next + 1) % topics.length;
    const value = Math.round((now() - epochMs) * 1000) / 1000;
    last[topic] = value;
    unacknowledged++;
    client.publish(topic, String(value), { qos }, acknowledged);
    published++;
  }
  await yieldTurn();
}
const ended = now();
const elapsed = (ended - started) / 1000;
// QoS 1: every PUBACK is in once endAsync resolves (it waits for the outgoing store to empty);
// bounded, since a broker busy with a slow subscriber may take long to acknowledge them all.
const acked = await Promise.race([
  client.endAsync(false).then(() => true),
  new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000)),
]);
if (!acked) client.end(true);
const closeMs = now() - ended;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  `${JSON.stringify({ published, acked, startedMs: started - epochMs, endedMs: ended - epochMs, seconds: elapsed, closeMs, unacknowledged, cpuMs: (cpu.user + cpu.system) / 1000, last })}\n`,
);
