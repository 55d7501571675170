/**
 * Bounded lazy OPC UA nodes (ADR 0036 "Bounded"), against embedded and distributed mode with real
 * OPC UA clients: with maxMaterializedElements small, a session walking more submodels than fit
 * keeps the elements made within the bound (the least recently used are released, made again on
 * demand with the same NodeIds and right values), a monitored item's submodel is never released and
 * keeps notifying (the pin wins over the bound), and a session the access rules hide a submodel from
 * makes none of its nodes. Counts come from /metrics.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ACCESS_MANY, ACCESS_RULES, ACCESS_SM_1, accessModel } from "@twinport/shared/test-support";
import { DataType, UserTokenType } from "node-opcua";
import { metricSample } from "../test-support/many-shells-model.ts";
import { connectOpcua, type OpcuaTestClient } from "../test-support/opcua-client.ts";
import type { Mode } from "../test-support/system.ts";
import { type OpcuaSystem, startOpcuaSystem } from "./opcua-system.ts";

/** Each ACCESS_MANY submodel has one Property "V" (its index): three fit. */
const BOUND = 3;
const valueNode = (i: number) => `${ACCESS_MANY[i]}|V/Value`;

export function opcuaBoundedSuite(mode: Mode): void {
  let system: OpcuaSystem;
  let pki: string;
  let anonymous: OpcuaTestClient;
  let boss: OpcuaTestClient;

  const gauge = async (name: string): Promise<number> => {
    const text = await (await fetch(`${system.management[0]}/metrics`)).text();
    const value = metricSample(text, name);
    assert.ok(value !== undefined, `no ${name} in /metrics`);
    return value;
  };
  const elements = () => gauge("twinport_opcua_materialized_elements");
  const identifiables = () => gauge("twinport_opcua_materialized_identifiables");
  const readMany = async (client: OpcuaTestClient, i: number) => {
    const value = await client.read(valueNode(i));
    assert.ok(value.statusCode.isGood(), `${valueNode(i)}: ${value.statusCode}`);
    assert.equal(value.value.value, i, valueNode(i));
  };

  before(async () => {
    pki = mkdtempSync(join(tmpdir(), "twinport-opcua-bounded-client-"));
    system = await startOpcuaSystem(mode, {
      model: accessModel(),
      config: {
        security: { roleAssignments: [{ user: "boss", roles: ["admin"] }], rules: ACCESS_RULES },
        core: { managementPort: 0 },
      },
      // Never released for being idle: only the bound releases here.
      opcuaEndpoint: {
        supportedAuthentications: ["Anonymous", "UserName"],
        userMap: { boss: "b-pass" },
        releaseUnusedNodesAfterMs: 0,
        maxMaterializedElements: BOUND,
      },
    });
    anonymous = system.opcua[0]!;
    boss = await connectOpcua(system.opcuaUrls[0]!, pki, {
      type: UserTokenType.UserName,
      userName: "boss",
      password: "b-pass",
    });
  });

  after(async () => {
    await boss?.close().catch(() => undefined);
    await system?.stop();
    rmSync(pki, { recursive: true, force: true });
  });

  test(`${mode}: a session the access rules hide a submodel from makes none of its nodes`, async () => {
    assert.equal(await identifiables(), 0);
    // Anonymous may read only the ACCESS_MANY submodels ending in 7.
    assert.ok(!(await anonymous.read(`${ACCESS_SM_1}|P/Value`)).statusCode.isGood());
    assert.ok(!(await anonymous.read(valueNode(0))).statusCode.isGood());
    assert.equal((await anonymous.children(`${ACCESS_SM_1}|`)).size, 0);
    assert.ok(!(await anonymous.write(valueNode(1), { dataType: DataType.Int32, value: 5 })).isGood());
    assert.equal(await identifiables(), 0, "denied requests made nodes");
    assert.equal(await elements(), 0);
    // What it may read is made as usual.
    await readMany(anonymous, 7);
    assert.equal(await identifiables(), 1);
    assert.equal(await elements(), 1);
  });

  test(`${mode}: walking more submodels than fit keeps the elements made within the bound; every read answers right`, async () => {
    for (let i = 0; i < ACCESS_MANY.length; i++) {
      await readMany(boss, i);
      const made = await elements();
      assert.ok(made <= BOUND, `${made} elements made after reading ${i + 1} submodels, bound ${BOUND}`);
    }
    assert.equal(await elements(), BOUND);
    // Released ones come back on demand, with the same NodeIds and their values.
    for (const i of [0, 1, 2, 3, 0]) await readMany(boss, i);
    assert.ok((await elements()) <= BOUND);
    // A browse of a released submodel makes it again too.
    const children = await boss.children(`${ACCESS_MANY[10]}|`);
    assert.equal(children.get("V")?.nodeId.value, `${ACCESS_MANY[10]}|V`);
  });

  test(`${mode}: writes to many submodels at once all land, though making their nodes releases others' (a write's nodes stay until it is answered)`, async () => {
    for (let round = 0; round < 3; round++) {
      // One submodel made already, so its write needs no making and starts at once; the others'
      // makes then release the least recently used, that one among them.
      assert.ok((await boss.read(valueNode(5))).statusCode.isGood());
      const targets = Array.from({ length: 20 }, (_, i) => i);
      const statuses = await Promise.all(
        targets.map((i) => boss.write(valueNode(i), { dataType: DataType.Int32, value: 100 * (round + 1) + i })),
      );
      statuses.forEach((status, i) => assert.ok(status.isGood(), `round ${round}, ${valueNode(i)}: ${status}`));
      // Answered, the writes hold nothing: what exceeds the bound goes at once, without waiting for
      // the next make (this suite never releases for idleness). It stayed at 20 elements.
      const until = Date.now() + 3_000;
      while ((await elements()) > BOUND && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok((await elements()) <= BOUND, `round ${round}: ${await elements()} elements made, bound ${BOUND}`);
      for (const i of targets) assert.equal((await boss.read(valueNode(i))).value.value, 100 * (round + 1) + i);
    }
    // Back to what the other tests expect.
    for (let i = 0; i < 20; i++)
      assert.ok((await boss.write(valueNode(i), { dataType: DataType.Int32, value: i })).isGood());
    assert.ok((await elements()) <= BOUND);
  });

  test(`${mode}: a monitored item's submodel is never released to make room and keeps notifying; pins may exceed the bound`, async () => {
    const monitor = await boss.monitor(valueNode(20));
    await monitor.waitFor((value) => value.value.value === 20, 5000, "the initial 20");
    for (let i = 0; i < ACCESS_MANY.length; i++) {
      await readMany(boss, i);
      assert.ok((await elements()) <= BOUND);
    }
    const status = await boss.write(valueNode(20), { dataType: DataType.Int32, value: 2020 });
    assert.ok(status.isGood(), status.toString());
    await monitor.waitFor((value) => value.value.value === 2020, 5000, "2020 after the walk");

    // More watched submodels than the bound: all stay made and all notify.
    const watched = [30, 31, 32, 33];
    const monitors = await Promise.all(watched.map((i) => boss.monitor(valueNode(i))));
    for (const [k, i] of watched.entries())
      await monitors[k]!.waitFor((value) => value.value.value === i, 5000, `the initial ${i}`);
    assert.ok((await elements()) >= watched.length + 1, "the pins win over the bound");
    // The operator is told, at warn level (pino's 40), as docs/opcua.md says.
    const warned = readFileSync(system.opcuaLogs[0]!, "utf8")
      .split("\n")
      .filter((line) => line.includes("exceed maxMaterializedElements"));
    assert.ok(warned.length > 0, "the bound that cannot be kept is logged");
    assert.ok(
      warned.every((line) => JSON.parse(line).level === 40),
      warned.join("\n"),
    );
    for (let i = 40; i < 45; i++) await readMany(boss, i);
    for (const [k, i] of [[0, 20], ...watched.map((i, k) => [k + 1, i])] as [number, number][]) {
      const written = await boss.write(valueNode(i), { dataType: DataType.Int32, value: 1000 + i });
      assert.ok(written.isGood(), written.toString());
      await (k === 0 ? monitor : monitors[k - 1]!).waitFor(
        (value) => value.value.value === 1000 + i,
        5000,
        `${1000 + i} on a watched submodel`,
      );
    }
    await Promise.all([monitor, ...monitors].map((m) => m.stop()));
    // Unwatched, they go as soon as room is needed.
    for (let i = 0; i < 6; i++) await readMany(boss, i);
    assert.ok((await elements()) <= BOUND);
  });
}
