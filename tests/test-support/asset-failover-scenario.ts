/**
 * A write made while no process runs the asset connection (docs/adr/0059), the same steps in both
 * modes: the process holding the connection's lease is killed with SIGKILL; before another takes
 * the lease over, a client writes the bound Setpoint (204). The new holder must write that value to
 * the asset before it reads the asset, so the asset's older value does not overwrite the client's
 * acknowledged write.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DRIVE_SUBMODEL_ID, type HttpAsset } from "./asset-peers.ts";
import { eventually } from "./eventually.ts";
import { b64, type HttpClient } from "./http-client.ts";
import type { TwinportProcess } from "./system.ts";

const element = (idShortPath: string) => `/submodels/${b64(DRIVE_SUBMODEL_ID)}/submodel-elements/${idShortPath}`;
const LEASE_LINE = /assetConnections\[0\]: holds the lease/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `events` section for the "trimmed" scenario: the event log keeps no more than this. */
export const TRIMMED_EVENT_LOG = { retentionMaxEvents: 10 };

export const holdsLease = (process: TwinportProcess) => LEASE_LINE.test(readFileSync(process.logFile, "utf8"));

/** Setpoint only, a value provider read every 200 ms and written on change. */
export function failoverAssetConnection(asset: HttpAsset): unknown {
  return {
    "@class": "assetconnection.http.HttpAssetConnection",
    baseUrl: asset.url,
    valueProviders: {
      [`(Submodel)${DRIVE_SUBMODEL_ID}, (Property)Setpoint`]: { format: "JSON", path: "/setpoint", readInterval: 200 },
    },
  };
}

/**
 * `holders`: the processes competing for the lease; `clientAfterKill(survivor)`: the HTTP client
 * that still reaches the store once the holder is dead (a gateway, or the surviving process).
 * `when`: "no holder" writes after the kill, before the takeover; "unwritten" writes before the
 * kill while the asset answers 503, so the dying holder has the write waiting for a retry;
 * "written" writes nothing more: the next holder must not write the asset at all; "refused" writes
 * after the kill a value the asset then refuses (400): the model returns to the asset's value;
 * "trimmed" is "unwritten" with more changes after the waiting write than the event log keeps
 * (start the processes with `TRIMMED_EVENT_LOG`): the next holder cannot forward it and says so in
 * a warning, and the model returns to the asset's value.
 */
export async function writeSurvivesFailover(
  asset: HttpAsset,
  holders: TwinportProcess[],
  clientAfterKill: (survivor: TwinportProcess) => HttpClient,
  when: "no holder" | "unwritten" | "written" | "refused" | "trimmed" = "no holder",
): Promise<void> {
  await eventually(
    () => holders.filter(holdsLease).length,
    (n) => n === 1,
    "one lease holder",
  );
  const holder = holders.find(holdsLease)!;
  const survivor = holders.find((p) => p !== holder)!;
  const client = clientAfterKill(survivor);
  // A write the holder forwards itself and records as forwarded at once (not only at its next
  // renewal, a third of the lease later): the next holder must not write it to the asset again.
  assert.equal((await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "7" })).status, 204);
  await asset.waitForRequest((r) => r.method === "PUT" && r.path === "/setpoint" && r.body === "7");
  await sleep(300);

  const write42 = async () => {
    const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "42" });
    assert.equal(patched.status, 204, patched.text);
  };
  if (when === "unwritten" || when === "trimmed") {
    asset.handle = (r) => (r.method === "PUT" ? { status: 503, body: '{"error":"busy"}' } : undefined);
    await write42();
    await asset.waitForRequest((r) => r.method === "PUT" && r.body === "42");
    // More changes than the event log keeps (TRIMMED_EVENT_LOG): the write's event is trimmed.
    if (when === "trimmed")
      for (let i = 0; i < TRIMMED_EVENT_LOG.retentionMaxEvents + 2; i++) {
        const label = await client.request("PATCH", `${element("Label")}/$value`, { body: JSON.stringify(`l${i}`) });
        assert.equal(label.status, 204, label.text);
      }
    // Renewals pass meanwhile: the holder must not record the waiting write as forwarded (and the
    // event log is trimmed, once a second).
    await sleep(2500);
  }
  holder.child.kill("SIGKILL");
  // Until NATS has seen the connection go, a command routed to the dead process would time out (504).
  await sleep(500);
  asset.handle =
    when === "refused"
      ? (r) => (r.method === "PUT" ? { status: 400, body: '{"error":"out of range"}' } : undefined)
      : undefined;
  const killedAt = asset.requests.length;
  // The device changes nothing by itself: it still has 7 when the survivor takes over.
  if (when === "no holder" || when === "refused") await write42();
  assert.equal(holdsLease(survivor), false, "the survivor took the lease only now");

  await eventually(() => holdsLease(survivor), Boolean, "the survivor taking the lease", 12_000);
  if (when === "trimmed") {
    const warning = await eventually(
      () =>
        readFileSync(survivor.logFile, "utf8")
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as { level: number; msg: string })
          .find((r) => r.msg.includes("no longer in the event log")),
      Boolean,
      "the line about changes no longer in the event log",
    );
    assert.equal(warning!.level, 40, "logged as a warning");
    assert.match(
      warning!.msg,
      /^twinport asset-connection assetConnections\[0\]: changes seq \d+\.\.\d+ are no longer in the event log \(events\.retentionMaxEvents, events\.retentionMaxAgeMs\); client writes among them were not forwarded to the asset and the elements show the asset's values: check the elements this connection writes and write again what the device is missing, and raise the retention if no process held the lease for that long$/,
    );
    // Readings bring the element back to the asset's value; the write never reached the asset.
    await eventually(
      async () => (await client.get(`${element("Setpoint")}/$value`)).json().Setpoint,
      (value) => value === 7,
      "the model back at the asset's value",
    );
    assert.equal(asset.documents.get("/setpoint"), 7);
    return;
  }
  if (when === "written") {
    // Several read intervals of the new holder: it reads the asset, and writes nothing to it.
    await sleep(1500);
    assert.equal((await client.get(`${element("Setpoint")}/$value`)).json().Setpoint, 7);
    assert.deepEqual(
      asset.requests.slice(killedAt).filter((r) => r.method === "PUT"),
      [],
      "a value the killed holder had written is not written again",
    );
    return;
  }
  await asset.waitForRequest(
    (r) => asset.requests.indexOf(r) >= killedAt && r.method === "PUT" && r.path === "/setpoint" && r.body === "42",
    10_000,
  );
  if (when === "refused") {
    // The refusal path of a live write (ADR 0008): the element is read again and shows the asset's value.
    await eventually(
      async () => (await client.get(`${element("Setpoint")}/$value`)).json().Setpoint,
      (value) => value === 7,
      "the model back at the asset's value after the refusal",
    );
    assert.equal(asset.documents.get("/setpoint"), 7);
    return;
  }
  // Several read intervals of the new holder: the model keeps the client's value, as does the asset.
  await sleep(1500);
  const setpoint = (await client.get(`${element("Setpoint")}/$value`)).json().Setpoint;
  assert.equal(setpoint, 42, "the acknowledged write survived the failover");
  assert.equal(asset.documents.get("/setpoint"), 42);
  assert.equal(
    asset.requests.slice(killedAt).filter((r) => r.method === "PUT" && r.body === "42").length,
    1,
    "written once by the new holder",
  );
}
