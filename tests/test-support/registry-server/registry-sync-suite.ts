/**
 * The registry-sync scenarios both modes run: start-up registration (with a stale descriptor →
 * 409 → PUT), changes through HTTP, a failing / down / restarted-empty registry, a hanging
 * registry while the API is used, and unregistration on SIGTERM.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { HttpClient } from "../http-client.ts";
import {
  assertEndpoints,
  assertNoSchemaViolations,
  b64,
  type ExpectedShell,
  type Fleet,
  holdsExactly,
  holdsSubmodels,
  OWN_HEADER,
  requestsFor,
  SYNC_AUTH,
  waitFor,
} from "./registry-fleet.ts";

export const SHELL1 = "https://example.org/aas/test-1";
const SHELL2 = "https://example.org/aas/test-2";
const SHELL3 = "https://example.org/aas/test-3";
const sms = (n: number) => [
  `https://example.org/submodels/technical-data-${n}`,
  `https://example.org/submodels/identification-${n}`,
];
const EXAMPLE_SUBMODELS = [1, 2, 3].flatMap(sms);

/** Put into the first AAS registry before the start: it must be overwritten (POST 409 → PUT). */
export const STALE_SHELL1 = {
  id: SHELL1,
  idShort: "Stale",
  endpoints: [{ interface: "AAS-3.0", protocolInformation: { href: "https://old.example.com/api/v3.0/shells/x" } }],
};

export interface SuiteContext {
  fleet: Fleet;
  /** A client of the system's HTTP API and the port descriptors must name. */
  client(): HttpClient;
  port(): number;
  /** Orderly shutdown of the process that registers (SIGTERM). */
  stopRegistering(): Promise<void>;
  /** Mode-specific tests, run after the start-up test (distributed: the lease). */
  afterStartUp?(expected: { shells: ExpectedShell[]; inSync: () => boolean }): void;
}

const newShell = (id: string, idShort: string, submodels: string[] = []) =>
  JSON.stringify({
    modelType: "AssetAdministrationShell",
    id,
    idShort,
    assetInformation: {
      assetKind: "Type",
      globalAssetId: `${id}/asset`,
      specificAssetIds: [{ name: "serial", value: "42" }],
    },
    ...(submodels.length
      ? { submodels: submodels.map((sm) => ({ type: "ModelReference", keys: [{ type: "Submodel", value: sm }] })) }
      : {}),
  });
const newSubmodel = (id: string, idShort: string) =>
  JSON.stringify({
    modelType: "Submodel",
    id,
    idShort,
    semanticId: {
      type: "ExternalReference",
      keys: [{ type: "GlobalReference", value: "https://admin-shell.io/idta/nameplate/3/0/Nameplate" }],
    },
    submodelElements: [{ modelType: "Property", idShort: "Serial", valueType: "xs:string", value: "42" }],
  });

async function ok(promise: Promise<{ status: number; text: string }>, expected: number): Promise<void> {
  const answer = await promise;
  assert.equal(answer.status, expected, answer.text);
}

export function registrySyncSuite(ctx: SuiteContext): void {
  // What the model holds, kept in step with the writes below.
  const expected: ExpectedShell[] = [
    { id: SHELL1, submodels: sms(1) },
    { id: SHELL2, submodels: sms(2) },
    { id: SHELL3, submodels: sms(3) },
  ];
  let submodelIds = [...EXAMPLE_SUBMODELS];
  const inSync = (): boolean =>
    ctx.fleet.all.slice(0, 2).every((r) => holdsExactly(r, expected)) &&
    holdsSubmodels(ctx.fleet.submodels, submodelIds);

  test("start-up: every shell in both AAS registries, every submodel in the submodel registry, valid descriptors, auth headers", async () => {
    const { aas1, aas2, submodels } = ctx.fleet;
    await waitFor("all registered", inSync);
    const port = ctx.port();
    for (const registry of [aas1, aas2]) {
      const shell = registry.shells.get(SHELL1)!;
      assert.equal(shell.assetKind, "Instance");
      assert.equal(shell.idShort, "TestAas1", "the stale descriptor was replaced");
      assertEndpoints(shell, port, "shells");
      for (const nested of shell.submodelDescriptors as Record<string, unknown>[])
        assertEndpoints(nested, port, "submodels");
    }
    for (const id of EXAMPLE_SUBMODELS) assertEndpoints(submodels.submodels.get(id)!, port, "submodels");
    // The stale descriptor: POST → 409 → PUT; the others: one POST each, in each AAS registry.
    assert.deepEqual(
      requestsFor(aas1, SHELL1).map((r) => `${r.method} ${r.status}`),
      ["POST 409", "PUT 204"],
    );
    assert.equal(requestsFor(aas1, SHELL1)[1]!.path, `/shell-descriptors/${b64(SHELL1)}`);
    for (const id of [SHELL2, SHELL3])
      assert.deepEqual(
        requestsFor(aas1, id).map((r) => `${r.method} ${r.status}`),
        ["POST 201"],
      );
    for (const id of [SHELL1, SHELL2, SHELL3])
      assert.deepEqual(
        requestsFor(aas2, id).map((r) => `${r.method} ${r.status}`),
        ["POST 201"],
      );
    // FA³ST main's static header goes to every registry; the second also gets its own.
    for (const registry of ctx.fleet.all)
      for (const r of registry.requests) assert.equal(r.headers.authorization, SYNC_AUTH.value);
    for (const r of aas2.requests) assert.equal(r.headers[OWN_HEADER.name.toLowerCase()], OWN_HEADER.value);
    assert.ok(
      aas2.requests.every((r) => r.path.startsWith("/shell-descriptors")),
      "the registry URL's path was kept",
    );
    assert.ok(!JSON.stringify(aas1.requests.map((r) => r.body)).includes("INSTANCE"));
    assertNoSchemaViolations(ctx.fleet);
  });

  ctx.afterStartUp?.({ shells: expected, inSync });

  test("create, update and delete of a shell and a submodel over HTTP reach the registries, nesting included", async () => {
    const client = ctx.client();
    const { aas1, aas2, submodels } = ctx.fleet;
    const SHELL = "urn:test:registry-sync:shell";
    const SM = "urn:test:registry-sync:submodel";

    await ok(client.request("POST", "/shells", { body: newShell(SHELL, "Created") }), 201);
    expected.push({ id: SHELL, idShort: "Created", submodels: [] });
    await waitFor("the new shell registered", inSync);
    const created = aas1.shells.get(SHELL)!;
    assert.equal(created.assetKind, "Type");
    assert.deepEqual(created.specificAssetIds, [{ name: "serial", value: "42" }]);
    assert.equal(created.submodelDescriptors, undefined, "no empty arrays");

    await ok(client.request("PUT", `/shells/${b64(SHELL)}`, { body: newShell(SHELL, "Renamed") }), 204);
    expected.at(-1)!.idShort = "Renamed";
    await waitFor("the renamed shell", inSync);

    await ok(client.request("POST", "/submodels", { body: newSubmodel(SM, "Nameplate") }), 201);
    submodelIds.push(SM);
    await waitFor("the new submodel registered", inSync);
    assert.equal(submodels.submodels.get(SM)!.idShort, "Nameplate");
    assert.deepEqual(submodels.submodels.get(SM)!.semanticId, JSON.parse(newSubmodel(SM, "x")).semanticId);

    await ok(
      client.request("POST", `/shells/${b64(SHELL)}/submodel-refs`, {
        body: JSON.stringify({ type: "ModelReference", keys: [{ type: "Submodel", value: SM }] }),
      }),
      201,
    );
    expected.at(-1)!.submodels = [SM];
    await waitFor("the shell nests the referenced submodel", inSync);

    await ok(client.request("PUT", `/submodels/${b64(SM)}`, { body: newSubmodel(SM, "Nameplate2") }), 204);
    await waitFor(
      "the submodel's new idShort in the submodel registry and nested in both AAS registries",
      () =>
        submodels.submodels.get(SM)?.idShort === "Nameplate2" &&
        [aas1, aas2].every(
          (r) =>
            (r.shells.get(SHELL)?.submodelDescriptors as Record<string, unknown>[] | undefined)?.[0]?.idShort ===
            "Nameplate2",
        ),
    );

    await ok(client.request("DELETE", `/submodels/${b64(SM)}`), 204);
    submodelIds = submodelIds.filter((id) => id !== SM);
    // The reference stays in the shell, but a submodel this server no longer holds is not nested.
    expected.at(-1)!.submodels = [];
    await waitFor("the submodel unregistered and no longer nested", inSync);
    assert.deepEqual(requestsFor(submodels, SM).at(-1)!.method, "DELETE");

    await ok(client.request("DELETE", `/shells/${b64(SHELL)}`), 204);
    expected.pop();
    await waitFor("the shell unregistered", inSync);
    for (const registry of [aas1, aas2]) assert.deepEqual(requestsFor(registry, SHELL).at(-1)!.method, "DELETE");
    assertNoSchemaViolations(ctx.fleet);
  });

  test("a registry answering 500 is retried with growing pauses; down and restarted empty, it is fully re-synchronized", async () => {
    const client = ctx.client();
    const { aas1, aas2 } = ctx.fleet;
    const SHELL = "urn:test:registry-sync:during-outage";
    aas1.behaviour = "fail-500";
    const before = aas1.requests.length;
    await ok(client.request("POST", "/shells", { body: newShell(SHELL, "DuringOutage") }), 201);
    expected.push({ id: SHELL, submodels: [] });
    const failures = () => aas1.requests.slice(before).filter((r) => r.status === 500);
    await waitFor("five failed attempts", () => failures().length >= 5);
    const times = failures().map((r) => r.time);
    const gaps = times.slice(1, 5).map((t, i) => t - times[i]!);
    // retryMinDelay 100, doubled: about 100, 200, 400, 800 ms.
    assert.ok(gaps[0]! >= 80 && gaps[1]! >= 160 && gaps[2]! >= 320 && gaps[3]! >= 640, `pauses ${gaps.join(", ")} ms`);
    assert.ok(gaps[3]! < 2500, `capped near retryMaxDelay: ${gaps.join(", ")} ms`);

    // Now down altogether, then back empty (a registry restarted without persistence).
    await aas1.stop();
    aas1.behaviour = "normal";
    await ok(client.request("DELETE", `/shells/${b64(SHELL2)}`), 204);
    expected.splice(
      expected.findIndex((s) => s.id === SHELL2),
      1,
    );
    await waitFor("the other registry follows meanwhile", () => holdsExactly(aas2, expected));
    aas1.clear();
    await aas1.start();
    await waitFor("the restarted registry re-synchronized", inSync);
    assert.deepEqual(Object.fromEntries(aas1.shells), Object.fromEntries(aas2.shells));
    assertNoSchemaViolations(ctx.fleet);
  });

  test("a registry that never answers does not slow the API; it catches up when it answers again", async () => {
    const client = ctx.client();
    const { aas1 } = ctx.fleet;
    aas1.behaviour = "hang";
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await ok(client.request("PUT", `/shells/${b64(SHELL3)}`, { body: newShell(SHELL3, `Hanging${i}`, sms(3)) }), 204);
      latencies.push(performance.now() - started);
    }
    expected.find((s) => s.id === SHELL3)!.idShort = "Hanging4";
    await waitFor("the hanging registry got a request", () => aas1.requests.at(-1)?.status === 0);
    // requestTimeout is 1000 ms: a PUT that waited for the registry would take at least that long.
    // (500 ms was once exceeded by a busy machine's scheduling alone, with nothing waiting.)
    assert.ok(Math.max(...latencies) < 900, `PUT latencies ${latencies.map((l) => l.toFixed(0)).join(", ")} ms`);
    aas1.behaviour = "normal";
    await waitFor("in sync after the registry answers again", inSync);
    assertNoSchemaViolations(ctx.fleet);
  });

  test("an orderly shutdown unregisters every descriptor", async () => {
    await ctx.stopRegistering();
    await waitFor(
      "all registries empty",
      () => ctx.fleet.all.every((r) => r.shells.size === 0 && r.submodels.size === 0),
      5000,
    );
    assertNoSchemaViolations(ctx.fleet);
  });
}
