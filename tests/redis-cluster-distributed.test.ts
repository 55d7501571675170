import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { follow } from "./http/events-client.ts";
import { b64, createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { type RunningRedisCluster, startRedisCluster } from "./test-support/redis-cluster.ts";
import { freePort, type RunningServer, startNats } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, startTwinport, type TwinportProcess } from "./test-support/system.ts";

// Black box on a 3-node Redis Cluster (docs/redis-cluster.md): a model-store configured with
// persistence.cluster and an http-gateway, as an operator runs them. Writes, reads, and the event
// stream in one gap-free seq order; the submodels' elements spread over the nodes; a model-store
// killed and started again finds everything it acknowledged.
describe("distributed on a Redis Cluster", () => {
  let cluster: RunningRedisCluster;
  let nats: RunningServer;
  let store: TwinportProcess;
  let gateway: TwinportProcess;
  let http: HttpClient;
  let api: string;
  const dirs: string[] = [];
  let storeOptions: Parameters<typeof startTwinport>[0];

  before(async () => {
    [cluster, nats] = await Promise.all([startRedisCluster(), startNats()]);
    const env = {
      TWINPORT_PERSISTENCE_CLUSTER_NODES: cluster.nodes.join(","),
      TWINPORT_MESSAGEBUS_URL: nats.url,
    };
    const storeDir = mkdtempSync(join(tmpdir(), "twinport-cluster-store-"));
    const gatewayDir = mkdtempSync(join(tmpdir(), "twinport-cluster-gateway-"));
    dirs.push(storeDir, gatewayDir);
    writeFileSync(join(storeDir, "config.json"), JSON.stringify({ endpoints: [] }));
    storeOptions = { role: "model-store", cwd: storeDir, args: ["-c", "config.json", "-m", EXAMPLE_MODEL], env };
    store = await startTwinport(storeOptions);
    const port = await freePort();
    writeFileSync(
      join(gatewayDir, "config.json"),
      JSON.stringify({
        endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
      }),
    );
    gateway = await startTwinport({ role: "http-gateway", cwd: gatewayDir, args: ["-c", "config.json"], env });
    api = `http://127.0.0.1:${port}/api/v3.0`;
    http = createHttpClient(api);
  });

  after(async () => {
    http?.close();
    await gateway?.stop().catch(() => undefined);
    await store?.stop().catch(() => undefined);
    await nats?.stop();
    await cluster?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("serves the seeded model, takes writes, and streams their events in seq order", async () => {
    assert.match(String(store.details.redis), /^redis:\/\/127\.0\.0\.1:\d+,redis:\/\/127\.0\.0\.1:\d+,/);
    const listed = await http.get("/submodels");
    assert.equal(listed.status, 200, listed.text);
    const seeded = listed.json().result.length;
    assert.ok(seeded > 0);

    const events = follow(`${api}/events`);
    try {
      await events.waitFor(() => events.opens > 0, "the stream opens");
      const ids = Array.from({ length: 12 }, (_, i) => `urn:example:cluster:${i}`);
      await Promise.all(
        ids.map(async (id) => {
          const body = {
            modelType: "Submodel",
            id,
            idShort: "Counter",
            submodelElements: [{ modelType: "Property", idShort: "Value", valueType: "xs:int", value: "0" }],
          };
          const res = await http.request("POST", "/submodels", { body: JSON.stringify(body) });
          assert.equal(res.status, 201, res.text);
        }),
      );
      // concurrent value writes, several per submodel: each ends with the last one the gateway answered
      for (let round = 1; round <= 3; round++)
        await Promise.all(
          ids.map(async (id) => {
            const res = await http.request("PATCH", `/submodels/${b64(id)}/submodel-elements/Value/$value`, {
              body: JSON.stringify(String(round)),
            });
            assert.equal(res.status, 204, res.text);
          }),
        );
      for (const id of ids) {
        const res = await http.get(`/submodels/${b64(id)}/submodel-elements/Value/$value`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.json(), { Value: 3 });
        assert.ok(res.headers.etag, "an ETag from the element's revision");
      }
      // If-Match is still checked in the step that writes
      const current = await http.get(`/submodels/${b64(ids[0]!)}/submodel-elements/Value`);
      const stale = await http.request("PATCH", `/submodels/${b64(ids[0]!)}/submodel-elements/Value/$value`, {
        body: JSON.stringify("9"),
        headers: { "If-Match": '"1"' },
      });
      assert.equal(stale.status, 412, stale.text);
      const fresh = await http.request("PATCH", `/submodels/${b64(ids[0]!)}/submodel-elements/Value/$value`, {
        body: JSON.stringify("4"),
        headers: { "If-Match": String(current.headers.etag) },
      });
      assert.equal(fresh.status, 204, fresh.text);

      // 12 created + 36 value writes + 1: one event each, ids consecutive
      await events.waitFor(
        (e) => e.filter((x) => x.type.startsWith("element.") || x.type === "submodel.created").length >= 49,
        "49 events",
      );
      const seqs = events.events.filter((e) => e.id).map((e) => Number(e.id));
      assert.deepEqual(
        seqs,
        Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i),
        "one gap-free, ordered sequence",
      );
      assert.equal((await http.get("/submodels?limit=1000")).json().result.length, seeded + 12);

      // the elements spread: every node holds some submodel's elements
      for (const url of cluster.nodes) {
        const node = new Redis(url);
        try {
          const keys = await node.keys("{tp:sm:*}:el");
          assert.ok(keys.length > 0, `${url} holds submodel elements`);
        } finally {
          node.disconnect();
        }
      }
    } finally {
      events.close();
    }
  });

  it("a model-store killed in the middle of concurrent writes: acknowledged writes stay, the event stream has no gap", async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `urn:example:kill:${i}`);
    for (const id of ids) {
      const body = {
        modelType: "Submodel",
        id,
        idShort: "Counter",
        submodelElements: [{ modelType: "Property", idShort: "Value", valueType: "xs:int", value: "0" }],
      };
      const res = await http.request("POST", "/submodels", { body: JSON.stringify(body) });
      assert.equal(res.status, 201, res.text);
    }
    const events = follow(`${api}/events`);
    try {
      await events.waitFor(() => events.opens > 0, "the stream opens");
      const acked = new Map<string, number>();
      const tried = new Map<string, number>();
      let stop = false;
      const writer = async (id: string) => {
        for (let n = 1000; !stop; n++) {
          tried.set(id, n);
          const res = await http
            .request("PATCH", `/submodels/${b64(id)}/submodel-elements/Value/$value`, {
              body: JSON.stringify(String(n)),
            })
            .catch(() => undefined);
          if (res?.status !== 204) return;
          acked.set(id, n);
        }
      };
      const writers = ids.map(writer);
      await new Promise((r) => setTimeout(r, 700));
      await store.stop("SIGKILL");
      stop = true;
      await Promise.all(writers);
      store = await startTwinport(storeOptions);
      // every acknowledged write is there (or the one after it, whose answer was lost with the store)
      for (const id of ids) {
        const until = Date.now() + 15_000;
        for (;;) {
          const res = await http.get(`/submodels/${b64(id)}/submodel-elements/Value/$value`);
          if (res.status === 200) {
            const value = Number(res.json().Value);
            assert.ok(acked.has(id), `${id}: some write was acknowledged before the kill`);
            assert.ok(value === acked.get(id) || value === tried.get(id), `${id}: ${value}, acked ${acked.get(id)}`);
            break;
          }
          if (Date.now() > until) assert.fail(`${id}: no answer after the restart: ${res.status} ${res.text}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      // one more write after the restart: the stream reaches it with every seq before it, in order
      const seen = Math.max(0, ...events.events.filter((e) => e.id).map((e) => Number(e.id)));
      const last = await http.request("PATCH", `/submodels/${b64(ids[0]!)}/submodel-elements/Value/$value`, {
        body: JSON.stringify("1"),
      });
      assert.equal(last.status, 204, last.text);
      await events.waitFor((e) => e.some((x) => Number(x.id) > seen), "an event after the restart");
      const seqs = events.events.filter((e) => e.id).map((e) => Number(e.id));
      assert.deepEqual(
        seqs,
        Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i),
        "gap-free across the kill",
      );
      assert.deepEqual(
        events.events.filter((e) => !e.id).map((e) => e.type),
        [],
        "no reset or other control event",
      );
    } finally {
      events.close();
    }
  });

  it("a model-store killed and started again serves every acknowledged write", async () => {
    const id = "urn:example:cluster:0";
    // one after the other: the last acknowledged is the one that must be there
    for (let i = 0; i < 20; i++) {
      const res = await http.request("PATCH", `/submodels/${b64(id)}/submodel-elements/Value/$value`, {
        body: JSON.stringify(String(100 + i)),
      });
      assert.equal(res.status, 204, res.text);
    }
    await store.stop("SIGKILL");
    store = await startTwinport(storeOptions);
    const until = Date.now() + 15_000;
    for (;;) {
      const res = await http.get(`/submodels/${b64(id)}/submodel-elements/Value/$value`);
      if (res.status === 200) {
        assert.deepEqual(res.json(), { Value: 119 });
        break;
      }
      if (Date.now() > until) assert.fail(`no answer after the restart: ${res.status} ${res.text}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
