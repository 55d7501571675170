import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningOpcuaGateway } from "@twinport/opcua-gateway";
import type { ChangeEvent, CommandParams, CommandType } from "@twinport/shared";
import { generatedSubmodel } from "../../../../bench/test-support/generated-model.ts";
import type { OpcuaTestClient } from "../../../../tests/test-support/opcua-client.ts";
import { type InProcessGateway, startInProcessGateway } from "../../../../tests/test-support/opcua-in-process.ts";
import { elementNode, identifiableNode } from "../../../../tests/test-support/opcua-model.ts";

// A resync with lazy nodes (ADR 0036), on embedded mode's wiring (in-process bus): events lost on
// the way make the gateway resync; submodels in use are read in full again and patched in place
// (their monitored items keep reporting), the others only get their own node refreshed, and what
// changed while they were not made shows when they are made again.

const submodelId = (i: number) => `urn:twinport:test:lazy-resync:Sub${i}`;
const valueNode = (i: number, property: number) => elementNode(submodelId(i), `P${property}`, "Value");

let loseNext = 0;
let system: InProcessGateway;
let gateway: RunningOpcuaGateway;
let opcua: OpcuaTestClient;

before(async () => {
  system = await startInProcessGateway(
    { submodels: Array.from({ length: 4 }, (_, i) => generatedSubmodel(submodelId(i), 4)) },
    {
      relay(event: ChangeEvent) {
        if (loseNext === 0) return event;
        loseNext -= 1;
        return undefined;
      },
    },
  );
  gateway = await system.startGateway(["endpoints[0].releaseUnusedNodesAfterMs=200"]);
  opcua = await system.connect(gateway);
});

after(async () => {
  await system.stop();
});

async function run<T extends CommandType>(type: T, params: CommandParams<T>): Promise<void> {
  const reply = await system.store.execute({ type, params, origin: "http" });
  assert.ok(reply.ok, `${type}: ${JSON.stringify(reply)}`);
}

const patch = (i: number, property: number, value: number) =>
  run("PatchSubmodelElementValueByPath", {
    submodelId: submodelId(i),
    idShortPath: `P${property}`,
    body: JSON.stringify(value),
  });

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("a resync patches the submodels in use in place, refreshes the others, and removes what is gone", async () => {
  const monitor = await opcua.monitor(valueNode(0, 0));
  await monitor.waitFor((value) => value.value.value === 0, 3000, "the initial value");
  assert.equal(gateway.load().materializedIdentifiables, 1);

  // Lost: a change of a submodel whose nodes are not made, a deletion, and a change of the monitored one.
  loseNext = 3;
  await patch(2, 2, 22);
  await run("DeleteSubmodelById", { submodelId: submodelId(3) });
  await patch(0, 0, 5);
  assert.equal(loseNext, 0);
  // The next event arrives with a gap: the gateway resyncs.
  await patch(1, 1, 11);
  await eventually(() => system.log.some((line) => line.includes("resync (events missing")), "a resync");
  await monitor.waitFor((value) => value.value.value === 5, 3000, "the recovered value of the monitored submodel");
  await eventually(
    () => system.log.some((line) => line.includes("address space resynced")),
    `the resync finished: ${system.log.join("\n")}`,
  );
  // Only the submodel in use was read in full again.
  assert.ok(
    system.log.some((line) =>
      /address space resynced: 3 shells, submodels and concept descriptions, 1 in use/.test(line),
    ),
    system.log.join("\n"),
  );
  assert.equal(gateway.load().materializedIdentifiables, 1);

  assert.equal((await opcua.read(valueNode(2, 2))).value.value, 22, "the change lost while Sub2 had no nodes");
  assert.equal((await opcua.read(valueNode(1, 1))).value.value, 11);
  assert.equal(await opcua.exists(identifiableNode(submodelId(3))), false, "the deleted submodel is gone");
  assert.equal(await opcua.exists(valueNode(3, 0)), false);

  // Same node, same monitored item: later changes keep arriving, and its submodel is never released.
  await new Promise((resolve) => setTimeout(resolve, 600));
  await patch(0, 0, 6);
  await monitor.waitFor((value) => value.value.value === 6, 3000, "a value after the resync");
  assert.equal(gateway.load().materializedIdentifiables, 1);
  await monitor.stop();
  await eventually(() => gateway.load().materializedIdentifiables === 0, "released once nothing watches it");
});
