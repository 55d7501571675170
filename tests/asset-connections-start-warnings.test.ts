/**
 * Asset-connection settings that start but could never do anything are said at start, in the log of
 * the process that runs the engine (embedded, or every model-store replica).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { freePort } from "./test-support/servers.ts";
import { type Mode, type SystemUnderTest, startSystem } from "./test-support/system.ts";

const SUBMODEL = "https://example.org/submodels/technical-data-1";
const PROPERTY_KEY = `(Submodel)${SUBMODEL}, (Property)MaxRotationSpeed`;
const READ_KEY = `(Submodel)${SUBMODEL}, (Range)TemperatureRange`;

for (const mode of ["embedded", "distributed"] as Mode[]) {
  describe(`${mode}: start-up warnings about asset connections`, () => {
    let system: SystemUnderTest | undefined;
    after(async () => {
      await system?.stop();
    });

    test("an operation provider keyed on a Property, and two providers reading into one element, are named in warnings at start", async () => {
      system = await startSystem(mode, {
        config: {
          assetConnections: [
            {
              "@class": "assetconnection.http.HttpAssetConnection",
              baseUrl: `http://127.0.0.1:${await freePort()}`,
              operationProviders: { [PROPERTY_KEY]: { format: "JSON", path: "/speed" } },
            },
            {
              "@class": "assetconnection.http.HttpAssetConnection",
              baseUrl: `http://127.0.0.1:${await freePort()}`,
              valueProviders: { [READ_KEY]: { format: "JSON", path: "/a", readInterval: 0 } },
            },
            {
              "@class": "assetconnection.http.HttpAssetConnection",
              baseUrl: `http://127.0.0.1:${await freePort()}`,
              subscriptionProviders: { [READ_KEY]: { format: "JSON", path: "/b", interval: 60000 } },
            },
          ],
        },
      });
      const engine = system.processes[0]!;
      const log = readFileSync(engine.logFile, "utf8");
      const records = log
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      const overlap = records.find((r) => r.msg.includes("both read the asset"));
      assert.ok(overlap, log);
      assert.equal(overlap.level, 40, "logged as a warning");
      assert.equal(
        overlap.msg,
        `twinport asset-connections: assetConnections[1].valueProviders[${JSON.stringify(READ_KEY)}] and assetConnections[2].subscriptionProviders[${JSON.stringify(READ_KEY)}] both read the asset into ${SUBMODEL} TemperatureRange: the element holds whichever reading came last; keep one of them, or give the value provider readWriteMode WRITE`,
      );
      const warning = records.find((r) => r.msg.includes("operationProviders"));
      assert.ok(warning, log);
      assert.equal(warning.level, 40, "logged as a warning");
      assert.equal(
        warning.msg,
        `twinport asset-connections: assetConnections[0].operationProviders[${JSON.stringify(PROPERTY_KEY)}]: ${SUBMODEL} MaxRotationSpeed is a Property, not an Operation; the provider is ignored (only an Operation can be invoked)`,
      );
    });
  });
}
