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

for (const mode of ["embedded", "distributed"] as Mode[]) {
  describe(`${mode}: an operation provider keyed on a Property`, () => {
    let system: SystemUnderTest | undefined;
    after(async () => {
      await system?.stop();
    });

    test("is named in a warning at start saying why it is ignored", async () => {
      system = await startSystem(mode, {
        config: {
          assetConnections: [
            {
              "@class": "assetconnection.http.HttpAssetConnection",
              baseUrl: `http://127.0.0.1:${await freePort()}`,
              operationProviders: { [PROPERTY_KEY]: { format: "JSON", path: "/speed" } },
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
