/**
 * FAULT TEST (tests/fault-*.test.ts): NATS restarted under a steady write load. Gateways and
 * model-stores reconnect on their own; requests during the outage fail fast (503/504, never hang);
 * afterwards every gateway and OPC UA mirror converges and no acknowledged write is missing.
 *
 * Run twice: open, and secured (fault-nats-secured.test.ts): bearer-token writers, rules in
 * every process; a fault must not show up as a 401/403.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type Cluster,
  createLoadSubmodel,
  describeLoad,
  sleep,
  startCluster,
  startWriteLoad,
  waitForConvergence,
} from "../test-support/fault-cluster.ts";

const REQUEST_TIMEOUT_MS = 2000;

export function faultNatsSuite({ secured }: { secured: boolean }): void {
  describe(secured ? "secured (bearer tokens, rules)" : "open", () => {
    let cluster: Cluster;

    before(async () => {
      cluster = await startCluster({
        secured,
        stores: 1,
        gateways: 2,
        opcuaGateways: 1,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
      });
    });

    after(async () => {
      await cluster?.stop();
    });

    test("restart NATS under load: everything reconnects, the OPC UA mirror resyncs, no acknowledged write lost", async (t) => {
      const submodelId = "urn:twinport:fault:nats-restart";
      await createLoadSubmodel(cluster.gateways[0]!.client, submodelId, cluster.authHeaders);
      const load = startWriteLoad(cluster, { writers: [0, 1], submodelId, maxWritesPerWriter: 400, maxMs: 12_000 });
      await sleep(1000);
      const beforeRestart = load.acknowledgedCount();
      const outageStarted = Date.now();
      await cluster.restartNats(1000);
      // Wait until writes are acknowledged again: the reconnect time as a client sees it.
      while (load.acknowledgedCount() === beforeRestart || Date.now() - outageStarted < 1100) {
        if (Date.now() - outageStarted > 10_000) break;
        await sleep(20);
      }
      const recoveredMs = Date.now() - outageStarted;
      await sleep(1000);
      const report = await load.stop();
      assert.ok(load.acknowledgedCount() > beforeRestart, "writes are acknowledged again after the restart");

      const readyChecks = await Promise.all(
        [...cluster.gateways.map((g) => g.proc), ...cluster.opcua.map((o) => o.proc), ...cluster.stores].map(
          async (p) => (await fetch(`${p.details.management}/ready`)).status,
        ),
      );
      assert.deepEqual(
        readyChecks,
        readyChecks.map(() => 200),
        "every process is ready again",
      );

      const converged = await waitForConvergence(cluster, submodelId, report.acknowledged);
      const lost = [...report.acknowledged].filter((idShort) => !converged.idShorts.has(idShort));
      t.diagnostic(
        `NATS restart (1 s down): ${describeLoad(report, report.acknowledged.size - lost.length, converged.ms)}; writes acknowledged again ${recoveredMs} ms after the kill`,
      );
      assert.deepEqual(lost, [], "no acknowledged write lost");
      for (const failure of report.failures)
        assert.ok(failure.status === 503 || failure.status === 504, JSON.stringify(failure));
      assert.ok(report.slowestMs < REQUEST_TIMEOUT_MS + 1000, `no request hung: slowest ${report.slowestMs} ms`);
    });
  });
}
