/**
 * Scale-out as real processes: 2 model-stores, 3 http-gateways, 2 opcua-gateways on one Redis and
 * one NATS. Concurrent writers on different gateways; afterwards every gateway and every OPC UA
 * mirror shows the same state, the gateways the same revisions (ETags); an asynchronous operation
 * handle made through one gateway is answered by every other.
 *
 * Run twice: open, and secured (scale-out-secured.test.ts): bearer-token writers, rules in every
 * process; the gateways' own reads and the read caches must not be refused.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
import {
  type Cluster,
  createLoadSubmodel,
  describeLoad,
  startCluster,
  startWriteLoad,
  waitForConvergence,
} from "../test-support/fault-cluster.ts";
import { connectOpcua } from "../test-support/opcua-client.ts";

export function scaleOutSuite({ secured }: { secured: boolean }): void {
  describe(secured ? "secured (bearer tokens, rules)" : "open", () => {
    let cluster: Cluster;

    before(async () => {
      cluster = await startCluster({ secured, stores: 2, gateways: 3, opcuaGateways: 2 });
    });

    after(async () => {
      await cluster?.stop();
    });

    test("both model-store replicas serve: the model was seeded once and each replica answers commands", async () => {
      const shells = await Promise.all(cluster.gateways.map((g) => g.client.get("/shells", cluster.authHeaders)));
      for (const response of shells) assert.equal(response.status, 200);
      const counts = shells.map((r) => (r.json() as { result: unknown[] }).result.length);
      assert.deepEqual(new Set(counts).size, 1, `every gateway lists the same shells: ${counts}`);
      // The queue group spreads commands over both replicas: each has served some.
      for (let i = 0; i < 20; i++) await cluster.gateways[i % 3]!.client.get("/shells", cluster.authHeaders);
      for (const store of cluster.stores) {
        const metrics = await (await fetch(`${store.details.management}/metrics`)).text();
        const served = metrics
          .split("\n")
          .filter((l) => l.startsWith("twinport_commands_total{"))
          .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
        assert.ok(served > 0, `replica ${store.child.pid} served commands`);
      }
    });

    test("concurrent writers on three gateways: every endpoint converges on the same elements and ETag, OPC UA mirrors included", async (t) => {
      const submodelId = "urn:twinport:scale-out:load";
      await createLoadSubmodel(cluster.gateways[0]!.client, submodelId, cluster.authHeaders);
      const load = startWriteLoad(cluster, {
        writers: [0, 1, 2, 0, 1, 2],
        submodelId,
        maxWritesPerWriter: 25,
        maxMs: 15_000,
        pauseMs: 0,
      });
      // Meanwhile, concurrent value writes to one shared element through every gateway: last writer wins,
      // but every endpoint must agree on which one that was.
      const shared = `/submodels/${encodeBase64Url("https://example.org/submodels/technical-data-1")}/submodel-elements/MaxRotationSpeed`;
      await Promise.all(
        cluster.gateways.map(async (g, i) => {
          for (let n = 0; n < 15; n++)
            assert.equal(
              (
                await g.client.request("PATCH", `${shared}/$value`, {
                  body: `"${i * 1000 + n}"`,
                  headers: cluster.authHeaders,
                })
              ).status,
              204,
            );
        }),
      );
      const report = await load.stop();
      assert.equal(report.unknown.size, 0, `every write acknowledged: ${JSON.stringify(report.failures.slice(0, 3))}`);
      const converged = await waitForConvergence(cluster, submodelId, report.acknowledged);
      assert.equal(converged.idShorts.size, report.acknowledged.size);
      t.diagnostic(`scale-out: ${describeLoad(report, converged.idShorts.size, converged.ms)}`);

      const views = await Promise.all(cluster.gateways.map((g) => g.client.get(shared, cluster.authHeaders)));
      const etags = new Set(views.map((v) => v.headers.etag));
      const values = new Set(views.map((v) => (v.json() as { value: string }).value));
      assert.equal(etags.size, 1, `one ETag for the shared element: ${[...etags]}`);
      assert.equal(values.size, 1, `one value for the shared element: ${[...values]}`);
      const [value] = values;
      for (const node of cluster.opcua) {
        const dir = mkdtempSync(join(tmpdir(), "twinport-scale-client-"));
        const client = await connectOpcua(node.url, dir);
        try {
          const until = Date.now() + 5000;
          let seen: unknown;
          while (Date.now() < until) {
            seen = (await client.read("https://example.org/submodels/technical-data-1|MaxRotationSpeed/Value")).value
              .value;
            if (String(seen) === value) break;
            await new Promise((r) => setTimeout(r, 100));
          }
          assert.equal(String(seen), value, `mirror ${node.url} shows the last write`);
        } finally {
          await client.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }
    });

    test("an asynchronous operation handle made through one gateway is answered by every gateway", async () => {
      const operation = `/submodels/${encodeBase64Url("https://example.org/submodels/technical-data-1")}/submodel-elements/Functions.Reset`;
      const invoked = await cluster.gateways[0]!.client.request("POST", `${operation}/invoke-async`, {
        body: JSON.stringify({
          inputArguments: [
            { value: { modelType: "Property", idShort: "Mode", valueType: "xs:string", value: "soft" } },
          ],
          clientTimeoutDuration: "PT5S",
        }),
        headers: cluster.authHeaders,
      });
      assert.equal(invoked.status, 202, invoked.text);
      const location = invoked.headers.location as string;
      const statusPath = location.slice(location.indexOf("/submodels/"));
      // No operation provider is configured: the invocation finishes (Failed) at once; what matters is
      // that the handle lives in the store, not in the gateway or replica that made it.
      const answers = await Promise.all(cluster.gateways.map((g) => g.client.get(statusPath, cluster.authHeaders)));
      for (const answer of answers)
        assert.ok(answer.status === 200 || answer.status === 302, `${answer.status} ${answer.text}`);
      const resultsPath = statusPath.replace("/operation-status/", "/operation-results/");
      const results = await Promise.all(cluster.gateways.map((g) => g.client.get(resultsPath, cluster.authHeaders)));
      for (const result of results) assert.equal(result.status, 200, result.text);
      assert.equal(new Set(results.map((r) => r.text)).size, 1, "the same result through every gateway");
    });
  });
}
