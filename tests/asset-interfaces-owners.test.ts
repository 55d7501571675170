/**
 * AIMCs beside other owners of the same elements, black-box in both modes (embedded on memory; a
 * model-store on redis-server and nats-server with two http-gateways): two AIMCs map the same
 * target elements, and the configuration file polls one of them with a value provider. The AIMC
 * whose providers are all left out runs no connection (no lease, nothing opened to the asset) until
 * the other lets go; an AIMC subscription provider beside the configured polling value provider is a
 * warning in the process's log, as two such providers in the configuration file are.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { examplePair, FAAAST_AIMC_PROCESSOR } from "./test-support/aid-aimc-models.ts";
import { type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import { eventually } from "./test-support/eventually.ts";
import { b64 } from "./test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "./test-support/system.ts";

const first = examplePair("owners-a", "http://asset.invalid");
const TARGET = first.operationalDataId;
const TEMPERATURE_KEY = `(Submodel)${TARGET}, (Property)Temperature`;

interface LogRecord {
  level: number;
  msg: string;
}

for (const mode of ["embedded", "distributed"] as Mode[]) {
  describe(`${mode}: AIMCs beside other owners of their elements`, () => {
    let asset: HttpAsset;
    let polled: HttpAsset;
    let system: SystemUnderTest | undefined;
    const dir = mkdtempSync(join(tmpdir(), "twinport-aimc-owners-"));
    let a: ReturnType<typeof examplePair>;
    let b: ReturnType<typeof examplePair>;
    const records = (): LogRecord[] =>
      readFileSync(system!.processes[0]!.logFile, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as LogRecord);

    before(async () => {
      [asset, polled] = await Promise.all([startHttpAsset(), startHttpAsset()]);
      asset.documents.set("/api/temperature", 21.5);
      asset.documents.set("/api/status", { speed: 1200 });
      polled.documents.set("/t", 21.5);
      a = examplePair("owners-a", asset.url);
      // A second AIMC (with its own AID) mapping into the first pair's target submodel.
      b = examplePair("owners-b", asset.url, (text) =>
        text.replaceAll("https://example.com/ids/sm/owners-b-operational-data", TARGET),
      );
      writeFileSync(
        join(dir, "model.json"),
        JSON.stringify({ submodels: [a.aid, a.aimc, a.operationalData, b.aid, b.aimc] }),
      );
      system = await startSystem(mode, {
        models: [join(dir, "model.json")],
        config: {
          core: { assetConnectionRetryInterval: 200 },
          submodelTemplateProcessors: [{ "@class": FAAAST_AIMC_PROCESSOR, subscriptionInterval: 100 }],
          assetConnections: [
            {
              "@class": "assetconnection.http.HttpAssetConnection",
              baseUrl: polled.url,
              valueProviders: { [TEMPERATURE_KEY]: { format: "JSON", path: "/t", readInterval: 60000 } },
            },
          ],
        },
      });
    });

    after(async () => {
      await system?.stop();
      await Promise.all([asset?.stop(), polled?.stop()]);
      rmSync(dir, { recursive: true, force: true });
    });

    test("the AIMC whose providers are all left out runs no connection; it starts once the other AIMC is deleted", async () => {
      const engine = system!.processes[0]!;
      const interfaces = engine.details.assetInterfaces as { aimc: string; connections: number }[];
      assert.equal(interfaces.length, 2, JSON.stringify(interfaces));
      const running = interfaces.find((i) => i.connections === 1);
      const idle = interfaces.find((i) => i.connections === 0);
      assert.ok(running && idle, `one AIMC runs a connection, the other none: ${JSON.stringify(interfaces)}`);
      const names = (engine.details.assetConnections as { name: string }[]).map((c) => c.name);
      assert.deepEqual(names.sort(), ["AIMC " + running.aimc + " [0]", "assetConnections[0]"].sort());
      // Both AIMCs were processed by now: the left-out one says so, and nothing of it ran.
      await eventually(
        () => readFileSync(engine.logFile, "utf8").includes(`AIMC ${idle.aimc}: skipped:`),
        Boolean,
        "the left-out providers reported",
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(
        records().filter((r) => r.msg.includes(`asset-connection AIMC ${idle.aimc} [0]`)).length,
        0,
        "no connection (no lease, no session) of the AIMC with nothing to drive",
      );

      const deleted = await system!.clients[0]!.request("DELETE", `/submodels/${b64(running.aimc)}`);
      assert.equal(deleted.status, 204, deleted.text);
      await eventually(
        () => records().some((r) => r.msg.includes(`asset-connection AIMC ${idle.aimc} [0]: configured `)),
        Boolean,
        "the other AIMC's connection started",
      );
      const polls = asset.requests.length;
      await eventually(
        () => asset.requests.length,
        (n) => n > polls + 2,
        "the asset polled by the AIMC that took over",
      );
    });

    test("an AIMC subscription provider beside the configured polling value provider of one element is a warning", async () => {
      const warnings = records().filter((r) => r.msg.includes("both read the asset"));
      assert.ok(warnings.length > 0, readFileSync(system!.processes[0]!.logFile, "utf8"));
      for (const warning of warnings) {
        assert.equal(warning.level, 40, "logged as a warning");
        assert.match(
          warning.msg,
          new RegExp(
            `^twinport asset-interfaces: assetConnections\\[0\\]\\.valueProviders\\[${escape(JSON.stringify(TEMPERATURE_KEY))}\\] and AIMC (${escape(a.aimcId)}|${escape(b.aimcId)}) subscriptionProviders\\[${escape(JSON.stringify(TEMPERATURE_KEY))}\\] both read the asset into ${escape(TARGET)} Temperature: the element holds whichever reading came last`,
          ),
        );
      }
    });
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
