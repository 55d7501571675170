/**
 * What single pieces of the http-gateway's per-request work cost, each timed alone in this process
 * (ADR 0038): the way before and the way now where something changed, and the JSON work a compact
 * wire format would save. Whole-request benches (write-path, gateway-bus) swing more from round to
 * round on the shared machine than these pieces weigh; this says what each piece weighs.
 *
 * Run: npm run bench -- gateway-pieces   (BENCH_ITERATIONS=200000)
 */

import { headers } from "@nats-io/nats-core";
import { decodeBase64Url, encodeBase64Url } from "@twinport/shared";
import { OrderedDeadlines } from "../libs/shared/src/bus/ordered-deadlines.ts";
import { decodeJson, decodeReply, encodeJson } from "../libs/shared/src/bus/wire.ts";
import { withoutUndefined } from "../services/http-gateway/src/http/command-sender.ts";

const iterations = Number(process.env.BENCH_ITERATIONS ?? 200_000);

function time(name: string, work: () => unknown): number {
  for (let i = 0; i < iterations / 10; i++) work(); // warm-up: optimized code, not the interpreter
  // CPU time of this process, not the clock: on the shared machine other processes take the CPU
  // away in the middle of a loop, which a clock would count.
  const started = process.cpuUsage();
  for (let i = 0; i < iterations; i++) work();
  const used = process.cpuUsage(started);
  const us = (used.user + used.system) / iterations;
  console.log(`  ${name.padEnd(64)} ${us.toFixed(2)} µs`);
  return us;
}

const event = encodeJson({
  seq: 123_456,
  kind: "element.value-changed",
  id: "urn:bench:write:sm0",
  idShortPath: "P5",
  revision: 123_456,
  payload: { idShort: "P5", modelType: "Property", valueType: "xs:int", value: "12345" },
  origin: "http",
  correlationId: crypto.randomUUID(),
  time: new Date().toISOString(),
});
const command = {
  type: "PatchSubmodelElementValueByPath",
  params: { submodelId: "urn:bench:write:sm0", idShortPath: "P5", body: "12345" },
  origin: "http",
  correlationId: crypto.randomUUID(),
};
const reply = encodeJson({ ok: true, value: null, revision: 123_456, seq: 123_456 });
const submodelForm = encodeBase64Url("urn:bench:write:sm0");
const remembered = new Map([[submodelForm, decodeBase64Url(submodelForm)]]);
const shared = headers();
shared.set("Twinport-Budget-Ms", "5000");
const sharedBytes = (shared as unknown as { encode(): Uint8Array }).encode();

console.log(`each piece ${iterations} times, µs per request:`);
console.log("request headers (Twinport-Budget-Ms):");
time("before: built and encoded per request", () => {
  const h = headers();
  h.set("Twinport-Budget-Ms", "5000");
  return (h as unknown as { encode(): Uint8Array }).encode();
});
time("now: shared, its bytes kept", () => sharedBytes);
console.log("time-out of a request:");
time("before: setTimeout + clearTimeout", () => clearTimeout(setTimeout(() => {}, 5000)));
const deadlines = new OrderedDeadlines<object>(5000, () => {});
time("now: OrderedDeadlines add + delete", () => {
  const entry = {};
  deadlines.add(entry);
  deadlines.delete(entry);
});
deadlines.close();
console.log("the {submodelIdentifier} path parameter:");
time("before: decodeBase64Url (checked, decoded)", () => decodeBase64Url(submodelForm));
time("now: a remembered identifier", () => remembered.get(submodelForm));
console.log("the command's params without undefined properties, then the command encoded:");
const params = () => ({
  submodelId: "urn:bench:write:sm0",
  idShortPath: "P5",
  body: "12345",
  preconditions: undefined,
});
time("before: copied, undefined ones deleted (a dictionary object)", () => {
  const copy = { ...params() } as Record<string, unknown>;
  for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key];
  return encodeJson({ ...command, params: copy });
});
time("now: only the defined ones added", () => encodeJson({ ...command, params: withoutUndefined(params()) }));
console.log("JSON on the bus (unchanged; what a compact format could save):");
time("encode the PATCH $value command", () => encodeJson(command));
time("decode a write's reply", () => decodeReply(reply));
time(`decode a Property's change event (${event.length} bytes)`, () => decodeJson(event));
