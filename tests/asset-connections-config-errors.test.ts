/**
 * A broken JSONPath in an asset connection is a configuration mistake: the process stops before it
 * is ready with exit code 2 and a line naming the setting, like any other bad setting.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, startTwinport } from "./test-support/system.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const ELEMENT = "(Submodel)https://example.org/submodels/technical-data-1, (Property)MaxRotationSpeed";

test("an invalid JSONPath query stops the start with exit code 2 naming assetConnections[i]…query", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-asset-config-"));
  dirs.push(cwd);
  const port = await freePort();
  writeFileSync(
    join(cwd, "config.json"),
    JSON.stringify({
      core: { managementPort: -1 },
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
      assetConnections: [
        {
          "@class": "assetconnection.http.HttpAssetConnection",
          baseUrl: `http://127.0.0.1:${await freePort()}`,
          valueProviders: { [ELEMENT]: { format: "JSON", path: "/speed", query: "$..[?(" } },
        },
      ],
    }),
  );
  await assert.rejects(startTwinport({ cwd, args: ["-c", "config.json", "-m", EXAMPLE_MODEL] }), (error: Error) => {
    assert.match(error.message, /exited with 2 before ready/);
    assert.match(
      error.message,
      /Invalid value at 'assetConnections\[0\]\.valueProviders\[".*MaxRotationSpeed"\]\.query': Invalid JSONPath "\$\.\.\[\?\("/,
    );
    return true;
  });
});

test("an OPC UA node id that cannot be parsed stops the start with exit code 2 naming the setting", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-asset-config-"));
  dirs.push(cwd);
  const port = await freePort();
  writeFileSync(
    join(cwd, "config.json"),
    JSON.stringify({
      core: { managementPort: -1 },
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
      assetConnections: [
        {
          "@class": "assetconnection.opcua.OpcUaAssetConnection",
          host: `opc.tcp://127.0.0.1:${await freePort()}`,
          // A namespace URI is resolved once connected; only the rest is checked here, and is fine.
          subscriptionProviders: { [ELEMENT]: { nodeId: "nsu=urn:example:plc;s=Speed" } },
          operationProviders: {
            "(Submodel)https://example.org/submodels/technical-data-1, (SubmodelElementCollection)Functions, (Operation)Reset":
              {
                nodeId: "ns=2;s=Calibrate",
                parentNodeId: "ns=two;i=5",
              },
          },
        },
      ],
    }),
  );
  await assert.rejects(startTwinport({ cwd, args: ["-c", "config.json", "-m", EXAMPLE_MODEL] }), (error: Error) => {
    assert.match(error.message, /exited with 2 before ready/);
    assert.match(
      error.message,
      /Invalid value at 'assetConnections\[0\]\.operationProviders\[".*Reset"\]\.parentNodeId': "ns=two;i=5" is not an OPC UA node id/,
    );
    return true;
  });
});
