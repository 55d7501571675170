import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { registryApiRoot } from "@twinport/shared";
import { waitFor } from "../../../../tests/test-support/registry-server/registry-fleet.ts";
import {
  type RegistryServer,
  startRegistryServer,
} from "../../../../tests/test-support/registry-server/registry-server.ts";
import type { Descriptor } from "./descriptors.ts";
import { RegistryClient } from "./registry-client.ts";
import { RegistryWorker } from "./registry-worker.ts";

let registry: RegistryServer;
const workers: RegistryWorker[] = [];
const lines: string[] = [];

before(async () => {
  registry = await startRegistryServer();
});
after(() => registry.stop());
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  registry.behaviour = "normal";
  registry.clear();
  lines.length = 0;
  warnings.length = 0;
});

const warnings: string[] = [];

function worker(timeoutMs = 1000, url = `http://127.0.0.1:${registry.port}`): RegistryWorker {
  const w = new RegistryWorker(
    new RegistryClient({ url, apiRoot: registryApiRoot(url), kind: "aas", headers: {} }, timeoutMs),
    { retryMinDelayMs: 50, retryMaxDelayMs: 200 },
    (line) => lines.push(line),
    (line) => warnings.push(line),
  );
  workers.push(w);
  return w;
}

const shell = (id: string, idShort: string, assetKind = "Instance"): Descriptor => ({
  id,
  idShort,
  assetKind,
  endpoints: [
    {
      interface: "AAS-3.0",
      protocolInformation: { href: `https://h:1/api/v3.0/shells/${Buffer.from(id).toString("base64url")}` },
    },
  ],
});
const trace = () => registry.requests.map((r) => `${r.method} ${r.status}`);

describe("registry worker", () => {
  test("a registry refusing everyone (401) is retried, at warn, and gets every descriptor once it lets us in; credentials in its URL are not logged", async () => {
    registry.behaviour = "fail-401";
    const w = worker(1000, `http://user:s3cret@127.0.0.1:${registry.port}`);
    w.set("urn:auth", shell("urn:auth", "Auth"), true);
    w.start();
    await waitFor("a failed attempt", () => warnings.some((line) => /failed \(POST answered 401/.test(line)));
    assert.ok(
      warnings.every((line) => !line.includes("s3cret") && line.includes("http://***@127.0.0.1")),
      warnings.join("\n"),
    );
    // Credentials fixed at the registry: no restart, no change of the descriptor needed.
    registry.behaviour = "normal";
    await waitFor("registered after the 401s", () => registry.shells.get("urn:auth")?.idShort === "Auth", 5000);
  });

  test("only the latest desired state of an id is sent: create, update, delete before it runs → one DELETE (404 = done)", async () => {
    const w = worker();
    w.set("urn:a", shell("urn:a", "A1"), true);
    w.set("urn:a", shell("urn:a", "A2"));
    w.set("urn:a", null);
    w.start();
    await waitFor("settled", () => w.status().pending === 0 && registry.requests.length === 1);
    assert.deepEqual(trace(), ["DELETE 404"]);
    assert.equal(registry.shells.size, 0);
  });

  test("start-up POSTs (409 → PUT); changes PUT (404 → POST); unchanged states are not sent again", async () => {
    registry.shells.set("urn:b", shell("urn:b", "Old"));
    const w = worker();
    w.start();
    w.set("urn:b", shell("urn:b", "B1"), true);
    await waitFor("registered", () => registry.shells.get("urn:b")?.idShort === "B1");
    registry.shells.delete("urn:b"); // lost behind our back
    w.set("urn:b", shell("urn:b", "B2"));
    await waitFor("re-created", () => registry.shells.get("urn:b")?.idShort === "B2");
    w.set("urn:b", shell("urn:b", "B2"));
    await waitFor("idle", () => w.status().pending === 0);
    assert.deepEqual(trace(), ["POST 409", "PUT 204", "PUT 404", "POST 201"]);
  });

  test("a refused descriptor (400) is logged with the registry's message and not retried until it changes", async () => {
    const w = worker();
    w.start();
    w.set("urn:c", shell("urn:c", "C", "INSTANCE"), true);
    // At warn: the registry does not hold what it should.
    await waitFor("refused", () => warnings.some((l) => l.includes("refused")));
    assert.match(warnings.find((l) => l.includes("refused"))!, /assetKind/);
    w.set("urn:c", shell("urn:c", "C", "INSTANCE"));
    await waitFor("idle", () => w.status().pending === 0);
    assert.deepEqual(trace(), ["POST 400"]);
    w.set("urn:c", shell("urn:c", "C"));
    await waitFor("accepted once corrected", () => registry.shells.has("urn:c"));
  });

  test("after an outage everything is sent again, since the registry may have restarted empty", async () => {
    const w = worker();
    w.start();
    for (const id of ["urn:d1", "urn:d2"]) w.set(id, shell(id, id), true);
    await waitFor("registered", () => registry.shells.size === 2);
    await registry.stop();
    registry.clear();
    w.set("urn:d3", shell("urn:d3", "d3"));
    await waitFor("a failure noticed", () => w.status().failures > 0);
    await registry.start();
    await waitFor("all three back", () => registry.shells.size === 3);
    assert.ok(
      lines.some((l) => /answers again after \d+ failed attempt/.test(l)),
      lines.join("\n"),
    );
  });

  test("compare() repairs what the registry lost or changed", async () => {
    const w = worker();
    w.start();
    w.set("urn:e", shell("urn:e", "E"), true);
    w.set("urn:f", shell("urn:f", "F"), true);
    await waitFor("registered", () => registry.shells.size === 2);
    registry.shells.delete("urn:e");
    registry.shells.set("urn:f", shell("urn:f", "Tampered"));
    await w.compare();
    await waitFor(
      "repaired",
      () => registry.shells.get("urn:e")?.idShort === "E" && registry.shells.get("urn:f")?.idShort === "F",
    );
  });

  test("unregisterAll keeps to its deadline when the registry hangs", async () => {
    const w = worker(10_000);
    w.start();
    w.set("urn:g", shell("urn:g", "G"), true);
    await waitFor("registered", () => registry.shells.has("urn:g"));
    await w.stop();
    registry.behaviour = "hang";
    const started = Date.now();
    const result = await w.unregisterAll(Date.now() + 300);
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
    assert.deepEqual(result, { deleted: 0, left: 1 });
  });
});
