/**
 * /reset and asset connections (spec §4.2: reset deletes "asset connections" too), the same steps
 * in both modes: a configured HTTP asset feeds Temperature (subscription provider), Setpoint
 * (value provider) and runs Calibrate (operation provider); after GET /reset and a POST /import of
 * the same model, nothing of that connection works any more: the Operation answers as one without
 * a provider, and no provider reads or writes the asset.
 */
import assert from "node:assert/strict";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID, type HttpAsset } from "./asset-peers.ts";
import { eventually } from "./eventually.ts";
import { b64, type HttpClient } from "./http-client.ts";

const key = (idShort: string, type = "Property") => `(Submodel)${DRIVE_SUBMODEL_ID}, (${type})${idShort}`;
const element = (idShortPath: string) => `/submodels/${b64(DRIVE_SUBMODEL_ID)}/submodel-elements/${idShortPath}`;

/** The asset's documents and its Calibrate answer (deviation = 2 × offset). */
export function prepareResetAsset(asset: HttpAsset): void {
  asset.documents.set("/status", { temperature: 20 });
  asset.documents.set("/setpoint", 5);
  asset.handle = (request) =>
    request.method === "POST" && request.path === "/calibrate"
      ? { status: 200, body: JSON.stringify({ deviation: JSON.parse(request.body).offset * 2 }) }
      : undefined;
}

/** The `assetConnections` entry for that asset. */
export function resetAssetConnection(asset: HttpAsset): unknown {
  return {
    "@class": "assetconnection.http.HttpAssetConnection",
    baseUrl: asset.url,
    subscriptionProviders: {
      [key("Temperature")]: { format: "JSON", path: "/status", query: "$.temperature", interval: 100 },
    },
    valueProviders: { [key("Setpoint")]: { format: "JSON", path: "/setpoint", readInterval: 100 } },
    operationProviders: {
      [key("Calibrate", "Operation")]: {
        format: "JSON",
        path: "/calibrate",
        template: '{"offset": ${Offset}}',
        queries: { Deviation: "$.deviation" },
      },
    },
  };
}

const value = async (client: HttpClient, idShort: string) =>
  (await client.get(`${element(idShort)}/$value`)).json()[idShort] as number;

async function calibrate(client: HttpClient) {
  const response = await client.request("POST", `${element("Calibrate")}/invoke`, {
    body: JSON.stringify({
      inputArguments: [{ value: { modelType: "Property", idShort: "Offset", valueType: "xs:double", value: "1.5" } }],
    }),
  });
  assert.equal(response.status, 200, response.text);
  return response.json();
}

/**
 * Runs the scenario through `client`; `afterReset` checks more at the end (process logs).
 * `elsewhere`: a client of another process on the same store, whose invocation must find no
 * provider either (several embedded processes on one Redis).
 */
export async function resetRemovesAssetConnections(
  client: HttpClient,
  asset: HttpAsset,
  afterReset: () => void | Promise<void> = () => {},
  elsewhere: HttpClient = client,
): Promise<void> {
  // Before: every provider works.
  await eventually(
    () => value(client, "Temperature"),
    (t) => t === 20,
    "the subscribed temperature",
  );
  await eventually(
    () => value(client, "Setpoint"),
    (s) => s === 5,
    "the read setpoint",
  );
  for (const through of new Set([client, elsewhere])) {
    const before = await calibrate(through);
    assert.equal(before.executionState, "Completed", JSON.stringify(before));
    assert.equal(before.outputArguments[0].value.value, "3");
  }

  const reset = await client.get("/reset");
  assert.equal(reset.status, 204, reset.text);
  const requestsAtReset = asset.requests.length;
  const imported = await client.request("POST", "/import", {
    body: JSON.stringify(ASSET_TEST_MODEL),
    headers: { "content-type": "application/json" },
  });
  assert.ok(imported.status < 300, `import: ${imported.status} ${imported.text}`);

  // The asset changes, the model does not follow: no provider reads it any more.
  asset.documents.set("/status", { temperature: 33 });
  asset.documents.set("/setpoint", 9);
  // A write through the API is not forwarded either.
  const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "7" });
  assert.equal(patched.status, 204, patched.text);
  for (const through of new Set([client, elsewhere])) {
    const after = await calibrate(through);
    assert.equal(after.executionState, "Failed", JSON.stringify(after));
    assert.match(after.messages[0].text, /No operation provider is configured for the Operation 'Calibrate'/);
  }
  // Several read intervals (100 ms) long.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(await value(client, "Temperature"), 0, "the imported value, not the asset's");
  assert.equal(await value(client, "Setpoint"), 7, "the written value, not the asset's");
  assert.deepEqual(
    asset.requests.slice(requestsAtReset).map((r) => `${r.method} ${r.path}`),
    [],
    "no request reached the asset after /reset answered",
  );
  await afterReset();
}
