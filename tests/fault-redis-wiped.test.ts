/**
 * FAULT TEST: Redis comes back EMPTY while every Twinport process runs on (a pod restarted without
 * its volume, a FLUSHALL, a failover to an empty replica), in distributed mode: two http-gateways,
 * one opcua-gateway, one model-store. Redis (AOF) is killed, its data directory emptied, and started
 * again on the same port.
 *
 * The store must notice and say so (an error line, the model-store exits for its restart: crash-only,
 * docs/adr/0018 amendment), never serve the old data as current (the model-store's rendered
 * submodels, the gateways' read caches: the new sequence reuses the old revisions), and every
 * endpoint must follow the new data (the OPC UA mirror rebuilds instead of ignoring the new seqs).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
import { type Cluster, sleep, startCluster } from "./test-support/fault-cluster.ts";
import { connectOpcua } from "./test-support/opcua-client.ts";

const SUBMODEL = "urn:twinport:wipe:submodel";
const PATH = `/submodels/${encodeBase64Url(SUBMODEL)}`;
const submodel = (value: string) =>
  JSON.stringify({
    modelType: "Submodel",
    id: SUBMODEL,
    idShort: "Wiped",
    submodelElements: [{ modelType: "Property", idShort: "State", valueType: "xs:string", value }],
  });
/** What a GET of the submodel shows: its State, or the status when it is not 200. */
const stateOf = (answer: { status: number; json(): unknown }) =>
  answer.status === 200
    ? ((answer.json() as { submodelElements: { value: string }[] }).submodelElements[0]?.value ?? "(none)")
    : `status ${answer.status}`;

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({ stores: 1, gateways: 2, opcuaGateways: 1, appendOnly: true, requestTimeoutMs: 3000 });
});

after(async () => {
  await cluster?.stop();
});

test("Redis wiped under running services: the model-store says so and restarts, no endpoint serves the old data, all follow the new", async (t) => {
  const [first, second] = cluster.gateways.map((g) => g.client) as [
    (typeof cluster.gateways)[0]["client"],
    (typeof cluster.gateways)[0]["client"],
  ];
  assert.equal((await first.request("POST", "/submodels", { body: submodel("before") })).status, 201);
  // Both gateways read it (their caches hold it), and the model-store rendered it.
  for (const client of [first, second]) {
    for (let i = 0; i < 2; i++) assert.equal(stateOf(await client.get(PATH)), "before");
  }
  const storeLog = cluster.stores[0]!.logFile;

  await cluster.wipeRedis();

  // The model-store notices (a GET on Redis's ready, and every second), says so (checked at the end)
  // and ends; until then and after, no gateway serves the old content as current.
  const store = cluster.stores[0]!;
  const deadline = Date.now() + 15_000;
  const sawBefore: string[] = [];
  while (Date.now() < deadline && store.child.exitCode === null) await sleep(100);
  const exitCode = store.child.exitCode;
  for (const [i, client] of [first, second].entries())
    if (stateOf(await client.get(PATH)) === "before") sawBefore.push(`gateway ${i} once the store had noticed`);

  // The orchestrator restarts it: a new store incarnation, the -m model loaded as on a first start.
  if (exitCode !== null) await cluster.restartStore(0);
  for (const [i, client] of [first, second].entries()) {
    const state = stateOf(await client.get(PATH));
    if (state === "before") sawBefore.push(`gateway ${i} after the restart`);
    assert.equal(state, "status 404", `gateway ${i}: the submodel is gone with the data`);
  }

  // Posted again with the same id: its new content through both gateways, and the model-store's
  // rendered submodel is not taken for the old one (same id, same revision number).
  assert.equal((await first.request("POST", "/submodels", { body: submodel("after") })).status, 201);
  for (const [i, client] of [first, second].entries()) {
    const answer = await client.get(PATH);
    assert.equal(stateOf(answer), "after", `gateway ${i} serves the new content`);
    const value = await client.get(`${PATH}/submodel-elements/State/$value`);
    assert.deepEqual(value.json(), { State: "after" }, `gateway ${i}: $value agrees`);
  }
  assert.deepEqual(sawBefore, []);

  // OPC UA follows an HTTP write after the wipe: its mirror was rebuilt from the new data.
  assert.equal(
    (await second.request("PATCH", `${PATH}/submodel-elements/State/$value`, { body: JSON.stringify("patched") }))
      .status,
    204,
  );
  assert.equal(stateOf(await first.get(PATH)), "patched", "read-your-writes across gateways after the wipe");
  const dir = mkdtempSync(join(tmpdir(), "twinport-wipe-client-"));
  const opcua = await connectOpcua(cluster.opcua[0]!.url, dir);
  try {
    const until = Date.now() + 20_000;
    let seen: unknown;
    while (Date.now() < until) {
      seen = await opcua.read(`${SUBMODEL}|State/Value`).then(
        (read) => read.value.value,
        (error: Error) => error.message,
      );
      if (seen === "patched") break;
      await sleep(200);
    }
    const opcuaLog = readFileSync(cluster.opcua[0]!.proc.logFile, "utf8").split("\n").slice(-40).join("\n");
    assert.equal(seen, "patched", `the OPC UA mirror shows the write made after the wipe; its log ends:\n${opcuaLog}`);
  } finally {
    await opcua.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const errors = readFileSync(storeLog, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((line) => line.level >= 50);
  assert.ok(
    errors.some((line) => /Redis lost the store's data/.test(line.msg)),
    `the model-store logs an error line about the lost data: ${JSON.stringify(errors)}`,
  );
  assert.equal(exitCode, 1, "the model-store exits with code 1 for its restart");
});
