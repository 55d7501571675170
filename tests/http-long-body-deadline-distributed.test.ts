/**
 * A write whose body reaches 1 MiB gets the long deadline (120 s), as commands that move whole
 * files or models do; smaller ones keep `requestTimeoutMs`. A 41 MB submodel PUT used to take the
 * model-store longer than the default 5 s: it answered 504 and, repeated, was refused for its spent
 * deadline every time, so it could never be written. Here the model-store is stopped (SIGSTOP) for
 * longer than `requestTimeoutMs` while a large and a small write wait for it: the small one answers
 * 504 as before, the large one is written once the store runs again. Real redis-server, nats-server,
 * model-store and http-gateway.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sleep } from "./test-support/fault-cluster.ts";
import { b64 } from "./test-support/http-client.ts";
import { type SystemUnderTest, startSystem } from "./test-support/system.ts";

const REQUEST_TIMEOUT_MS = 1000;
const SUBMODEL = "https://example.org/submodels/technical-data-1";

let sut: SystemUnderTest;
before(async () => {
  sut = await startSystem("distributed", {
    config: { messageBus: { "@class": "messagebus.nats.MessageBusNats", requestTimeoutMs: REQUEST_TIMEOUT_MS } },
  });
});
after(async () => {
  await sut?.stop();
});

test("a write of 1 MiB or more waits past requestTimeoutMs for a store that is slow; a small one answers 504", async () => {
  const store = sut.processes.find((process) => process.role === "model-store")!;
  const http = sut.clients[0]!;
  const elements = `/submodels/${b64(SUBMODEL)}/submodel-elements`;
  const json = { "content-type": "application/json" };
  const large = JSON.stringify({
    modelType: "Property",
    idShort: "Notes",
    valueType: "xs:string",
    value: "n".repeat(1024 * 1024),
  });
  assert.equal((await http.get(`${elements}/MaxRotationSpeed/$value`)).status, 200);

  process.kill(store.child.pid!, "SIGSTOP");
  let answers: { status: number; text: string }[];
  try {
    const waiting = Promise.all([
      http.request("POST", elements, { body: large, headers: json }),
      http.request("PATCH", `${elements}/MaxRotationSpeed/$value`, { body: "4711", headers: json }),
    ]);
    await sleep(REQUEST_TIMEOUT_MS * 2);
    process.kill(store.child.pid!, "SIGCONT");
    answers = await waiting;
  } finally {
    process.kill(store.child.pid!, "SIGCONT");
  }
  const [post, patch] = answers;
  assert.equal(patch!.status, 504, patch!.text);
  assert.equal(post!.status, 201, post!.text.slice(0, 300));
  // Right after the stall the gateway may still count the store as away (503) until it hears it again.
  let stored = await http.get(`${elements}/Notes/$value`);
  for (let attempt = 0; attempt < 50 && stored.status === 503; attempt++) {
    await sleep(200);
    stored = await http.get(`${elements}/Notes/$value`);
  }
  assert.equal(stored.status, 200, stored.text);
  assert.ok(stored.text.includes(`"${"n".repeat(1024 * 1024)}"`), "the value written whole");
});
