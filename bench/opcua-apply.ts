/**
 * Issue 12 item 4: what applying one value event costs the OPC UA gateway, apart from the bus. An
 * in-process gateway (memory store, in-process bus) receives synthetic change events for 1,000
 * Properties, published straight onto its bus, and the CPU time of this process is measured until the
 * last one shows in the address space. One OPC UA client monitors 10 of the Properties, one subscription each (sampling 0,
 * publishing 5 ms), so node-opcua's monitored-item and publish work counts.
 *
 * Compared in one run, same events but their kind:
 * - `element.value-changed`: what a PATCH …/$value or an asset value commits (sync/value-fast-path.ts
 *   sets the value variable only);
 * - `element.updated`: the full path, which rebuilds the element's NodeSpec and patches every node
 *   (what value events took before the fast path).
 *
 * Run: npm run bench -- opcua-apply   (BENCH_EVENTS=20000 BENCH_ROUNDS=3)
 */
import type { ChangeEvent } from "@twinport/shared";
import { startInProcessGateway } from "../tests/test-support/opcua-in-process.ts";
import { elementNode } from "../tests/test-support/opcua-model.ts";

const events = Number(process.env.BENCH_EVENTS ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const SUBMODEL = "urn:bench:opcua:apply";
const COUNT = 1000;
const model = {
  submodels: [
    {
      modelType: "Submodel",
      id: SUBMODEL,
      idShort: "Apply",
      submodelElements: Array.from({ length: COUNT }, (_, i) => ({
        modelType: "Property",
        idShort: `P${i}`,
        valueType: "xs:double",
        value: "0",
      })),
    },
  ],
};

const system = await startInProcessGateway(model);
try {
  const gateway = await system.startGateway();
  const client = await system.connect(gateway);
  const monitors = [];
  for (let i = 0; i < COUNT; i += 100) monitors.push(await client.monitor(elementNode(SUBMODEL, `P${i}`, "Value")));
  const sequence = await system.store.execute({ type: "GetSequence", params: {} });
  if (!sequence.ok) throw new Error(sequence.error.message);
  let seq = (sequence.value as { seq: number }).seq;
  let value = 0;
  const run = async (kind: ChangeEvent["kind"]) => {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let last = "";
    for (let i = 0; i < events; i++) {
      const index = i % COUNT;
      last = String(++value);
      seq++;
      await system.bus.publish({
        seq,
        revision: seq,
        kind,
        id: SUBMODEL,
        idShortPath: `P${index}`,
        payload: { modelType: "Property", idShort: `P${index}`, valueType: "xs:double", value: last },
        origin: "asset",
        time: new Date().toISOString(),
      });
      // Let the gateway's I/O (the client's publishes) run now and then, as it would between NATS reads.
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    const lastNode = elementNode(SUBMODEL, `P${(events - 1) % COUNT}`, "Value");
    while ((await client.read(lastNode)).value.value !== Number(last)) await new Promise((r) => setTimeout(r, 5));
    const cpu = process.cpuUsage(cpuBefore);
    const ms = performance.now() - started;
    return { usPerEvent: (cpu.user + cpu.system) / events, perSecond: events / (ms / 1000) };
  };
  await run("element.value-changed"); // warm-up
  await run("element.updated");
  for (let round = 1; round <= rounds; round++) {
    const fast = await run("element.value-changed");
    const full = await run("element.updated");
    console.log(
      `round ${round}: ${events} events on 1,000 Properties (10 monitored), CPU per event: ` +
        `value-changed (value variable only) ${fast.usPerEvent.toFixed(1)} µs, ` +
        `updated (NodeSpec rebuilt and patched) ${full.usPerEvent.toFixed(1)} µs, ratio ${(full.usPerEvent / fast.usPerEvent).toFixed(2)}×; ` +
        `wall ${fast.perSecond.toFixed(0)} / ${full.perSecond.toFixed(0)} events/s`,
    );
  }
  for (const monitor of monitors) await monitor.stop();
} finally {
  await system.stop();
}
