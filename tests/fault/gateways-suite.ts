/**
 * FAULT TEST (tests/fault-*.test.ts): kill -9 of an http-gateway and of an opcua-gateway under a
 * steady write load. The other gateways keep serving without a single failure; the restarted ones
 * catch up (the restarted OPC UA mirror shows every acknowledged write).
 *
 * Run twice: open, and secured (fault-gateways-secured.test.ts): bearer-token writers, rules in
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

export function faultGatewaysSuite({ secured }: { secured: boolean }): void {
  describe(secured ? "secured (bearer tokens, rules)" : "open", () => {
    let cluster: Cluster;

    before(async () => {
      cluster = await startCluster({ secured, stores: 1, gateways: 2, opcuaGateways: 2 });
    });

    after(async () => {
      await cluster?.stop();
    });

    test("kill -9 of an http-gateway and an opcua-gateway under load: the others keep serving, the restarted ones catch up", async (t) => {
      const submodelId = "urn:twinport:fault:gateway-kill";
      await createLoadSubmodel(cluster.gateways[1]!.client, submodelId, cluster.authHeaders);
      // Writer 0 goes through the gateway that dies; writers 1 and 2 through the survivor.
      const load = startWriteLoad(cluster, { writers: [0, 1, 1], submodelId, maxWritesPerWriter: 400, maxMs: 20_000 });
      await sleep(1000);
      await Promise.all([cluster.kill(cluster.gateways[0]!.proc), cluster.kill(cluster.opcua[0]!.proc)]);
      await sleep(1000);
      const restartStarted = Date.now();
      await Promise.all([cluster.restartGateway(0), cluster.restartOpcua(0)]);
      const restartMs = Date.now() - restartStarted;
      await sleep(1000);
      const report = await load.stop();

      const converged = await waitForConvergence(cluster, submodelId, report.acknowledged);
      const lost = [...report.acknowledged].filter((idShort) => !converged.idShorts.has(idShort));
      t.diagnostic(
        `kill -9 http-gateway + opcua-gateway: ${describeLoad(report, report.acknowledged.size - lost.length, converged.ms)}; restart of both took ${restartMs} ms`,
      );
      assert.deepEqual(lost, [], "no acknowledged write lost");
      // Only the writer on the dead gateway saw failures, and only connection failures.
      for (const failure of report.failures)
        assert.ok(typeof failure.status === "string", `the surviving gateway never failed: ${JSON.stringify(failure)}`);
      assert.ok(report.failures.length > 0, "the killed gateway really was down for a while");
      const writesAfterRestart = [...report.acknowledged].filter((idShort) => idShort.startsWith("w0_")).length;
      assert.ok(writesAfterRestart > 0);
    });
  });
}
