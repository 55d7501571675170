/**
 * Black-box suite of the access rules over OPC UA, embedded and distributed: real UserName, X.509
 * (a trusted user certificate) and Anonymous sessions see only the nodes the rules let them read (browse
 * hides the rest), UserAccessLevel and UserExecutable follow UPDATE and EXECUTE, and writes and
 * calls without the right answer BadUserAccessDenied; monitored items carry no value the session may
 * not read, also when its rights change while the item lives. The same rules as the engine's contract
 * suite, plus one matching a submodel by semanticId; HTTP writes as admin with a bearer token.
 */

import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  ACCESS_KINDS_RULES,
  ACCESS_RULES,
  ACCESS_SM_1,
  ACCESS_SM_2,
  ACCESS_SM_KINDS,
  accessKindsSubmodel,
  accessModel,
} from "@twinport/shared/test-support";
import {
  AccessLevelFlag,
  AttributeIds,
  type ClientSession,
  DataType,
  type DataValue,
  makeBrowsePath,
  OPCUACertificateManager,
  type StatusCode,
  StatusCodes,
  type UserIdentityInfo,
  UserTokenType,
} from "node-opcua";
import { eventually } from "../test-support/eventually.ts";
import { b64 } from "../test-support/http-client.ts";
import { connectOpcua, type OpcuaTestClient, type ValueMonitor } from "../test-support/opcua-client.ts";
import {
  type OpenIdProvider,
  signingKeys,
  startOpenIdProvider,
  TWINPORT_AUDIENCE,
} from "../test-support/openid-provider.ts";
import type { Mode } from "../test-support/system.ts";
import { type OpcuaSystem, startOpcuaSystem } from "./opcua-system.ts";

const USERS: Record<string, string> = {
  reader: "r-pass",
  partial: "p-pass",
  operator: "o-pass",
  boss: "b-pass",
  semantic: "s-pass",
  kinds: "k-pass",
};
/** ACCESS_SM_2's semanticId in the access model: the `semantic` user reads whatever submodel carries it. */
const OTHER_SEMANTIC_ID = "urn:access:sem:other";
const rules = [
  ...ACCESS_RULES,
  ...ACCESS_KINDS_RULES,
  { subjects: [{ user: "semantic" }], rights: ["READ"], objects: [{ semanticId: OTHER_SEMANTIC_ID }] },
];
const node = (path: string, sub?: string) => `${ACCESS_SM_1}|${path}${sub ? `/${sub}` : ""}`;
const isDenied = (value: DataValue) =>
  value.statusCode.value === StatusCodes.BadUserAccessDenied.value && value.value.value === null;
/** Every notification so far is a refusal without a value (OPC 10000-4 5.12.2), or nothing came. */
const assertOnlyDenied = (monitor: ValueMonitor, who: string) =>
  assert.ok(
    monitor.values.every(isDenied),
    `${who} got ${monitor.values.map((v) => `${v.statusCode.name} ${v.value.value}`).join(" | ")}`,
  );

export function opcuaAccessSuite(mode: Mode): void {
  describe(`access rules over OPC UA, ${mode} mode`, () => {
    let system: OpcuaSystem;
    let pki: string;
    const sessions = new Map<string, OpcuaTestClient>();
    const as = (user: string) => sessions.get(user)!;

    let devicePki: OPCUACertificateManager;
    let provider: OpenIdProvider;
    let adminToken: string;
    /** A PATCH over HTTP as admin (a bearer token whose role the rules grant everything). */
    const patch = async (path: string, body: unknown) => {
      const response = await system.http.request("PATCH", path, {
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${adminToken}` },
      });
      assert.equal(response.status, 204, `PATCH ${path}: ${response.text}`);
    };
    const patchValue = (submodelId: string, path: string, value: number) =>
      patch(`/submodels/${b64(submodelId)}/submodel-elements/${path}/$value`, value);
    before(async () => {
      provider = await startOpenIdProvider({
        clients: [{ id: "admin", alg: "ES256", claims: { roles: ["admin"] } }],
        keys: await signingKeys("opcua-access"),
      });
      const security = {
        authentication: { bearer: { issuer: provider.issuer, audience: TWINPORT_AUDIENCE } },
        roleAssignments: [{ user: "boss", roles: ["admin"] }],
        rules,
      };
      pki = mkdtempSync(join(tmpdir(), "twinport-opcua-access-client-"));
      // An X.509 user identity whose subject DN (RFC 4514) is CN=device,O=Twinport: the rules'
      // certificateSubject. The gateway's user PKI trusts it.
      devicePki = new OPCUACertificateManager({
        rootFolder: join(pki, "device-identity"),
        automaticallyAcceptUnknownCertificate: true,
      });
      await devicePki.initialize();
      const pem = join(pki, "device.pem");
      await devicePki.createSelfSignedCertificate({
        applicationUri: "urn:user:device",
        subject: "/O=Twinport/CN=device",
        dns: [],
        startDate: new Date(),
        validity: 30,
        outputFile: pem,
      });
      const device: UserIdentityInfo = {
        type: UserTokenType.Certificate,
        certificateData: Buffer.from(new X509Certificate(readFileSync(pem)).raw),
        privateKey: readFileSync(devicePki.privateKey, "utf8"),
      };
      system = await startOpcuaSystem(mode, {
        model: { ...accessModel(), submodels: [...(accessModel().submodels as unknown[]), accessKindsSubmodel()] },
        config: { security },
        opcuaEndpoint: { supportedAuthentications: ["Anonymous", "UserName", "Certificate"], userMap: USERS },
        prepareOpcuaDir: (dir) => {
          mkdirSync(join(dir, "USERS_PKI", "CA", "certs"), { recursive: true });
          writeFileSync(
            join(dir, "USERS_PKI", "CA", "certs", "device.der"),
            (device as { certificateData: Buffer }).certificateData,
          );
        },
      });
      adminToken = await provider.token("admin");
      sessions.set("anonymous", system.opcua[0]!);
      sessions.set("device", await connectOpcua(system.opcuaUrls[0]!, pki, device));
      for (const [userName, password] of Object.entries(USERS))
        sessions.set(
          userName,
          await connectOpcua(system.opcuaUrls[0]!, pki, { type: UserTokenType.UserName, userName, password }),
        );
    });
    after(async () => {
      for (const [user, client] of sessions) if (user !== "anonymous") await client.close().catch(() => undefined);
      await system?.stop();
      await provider?.stop();
      await devicePki?.dispose();
      rmSync(pki, { recursive: true, force: true });
    });

    test("browse shows each session only what it may read", async () => {
      const environment = async (user: string) =>
        [...(await as(user).children("AASEnvironment")).keys()].filter((name) => name !== "ConceptDescriptions").sort();
      assert.deepEqual(await environment("anonymous"), ["Many17", "Many27", "Many37", "Many47", "Many7"]);
      assert.deepEqual(await environment("reader"), ["Nameplate", "ShellA"]);
      assert.deepEqual(await environment("partial"), ["Nameplate"]);
      assert.equal((await environment("boss")).length, 2 + 3 + 50);
      // authenticated users read Cd2, the reader Cd1 too, anonymous none.
      assert.deepEqual([...(await as("reader").children("AASEnvironment/ConceptDescriptions")).keys()].sort(), [
        "Cd1",
        "Cd2",
      ]);
      assert.deepEqual([...(await as("anonymous").children("AASEnvironment/ConceptDescriptions")).keys()], []);
      // Element-scoped READ on C.X: the submodel's own attributes, C on the way, X, nothing else.
      const nameplate = [...(await as("partial").children(`${ACCESS_SM_1}|`)).keys()];
      assert.ok(
        nameplate.includes("C") && !nameplate.includes("P") && !nameplate.includes("L") && !nameplate.includes("Op"),
        nameplate.join(", "),
      );
      assert.deepEqual(
        [...(await as("partial").children(node("C"))).keys()].filter((name) => name.length <= 2),
        ["X"],
      );
      // EXECUTE alone makes the Operation reachable, nothing else of the submodel.
      const operator = [...(await as("operator").children(`${ACCESS_SM_1}|`)).keys()];
      assert.ok(operator.includes("Op") && !operator.includes("C") && !operator.includes("P"), operator.join(", "));
    });

    test("an element that cannot hold what is granted is not on the way: neither browsable nor readable", async () => {
      const kind = (path: string, sub?: string) => `${ACCESS_SM_KINDS}|${path}${sub ? `/${sub}` : ""}`;
      // The boss makes the nodes (ADR 0036), so the refusals below come from the rules.
      assert.equal((await as("boss").read(kind("C", "Value"))).value.value, "C_SECRET");
      assert.equal((await as("boss").read(kind("L", "Value"))).value.value, "L_SECRET");
      assert.equal((await as("boss").read(kind("E", "GlobalAssetId"))).value.value, "urn:E_SECRET-ASSET");
      assert.equal((await as("boss").read(kind("E.Ok", "Value"))).value.value, "e-ok");
      // A grant on C.Ok or L[0] where C and L are Properties reaches neither (a black-box finding:
      // L's Value read Good); an Entity or a relationship on the way shows no value of its own.
      for (const [path, sub] of [
        ["C", "Value"],
        ["L", "Value"],
        ["N.Z", "Value"],
        ["E", "GlobalAssetId"],
        ["E", "SpecificAssetId"],
        ["R", "First/Keys"],
        ["R", "Second/Keys"],
        ["E.Secret", "Value"],
      ] as const) {
        assert.equal((await as("boss").read(kind(path, sub))).statusCode, StatusCodes.Good, `${path}/${sub}`);
        const read = await as("kinds").read(kind(path, sub));
        assert.ok(isDenied(read), `${path}/${sub}: ${read.statusCode.name} ${read.value.value}`);
      }
      assert.equal((await as("kinds").read(kind("E.Ok", "Value"))).value.value, "e-ok");
      assert.equal((await as("kinds").read(kind("E", "EntityType"))).statusCode, StatusCodes.Good);
      const shown = [...(await as("kinds").children(`${ACCESS_SM_KINDS}|`)).keys()].filter((name) => name.length === 1);
      assert.deepEqual(shown.sort(), ["E", "K", "M", "R"]);
      const entity = [...(await as("kinds").children(kind("E"))).keys()];
      assert.ok(
        entity.includes("Statement") && entity.includes("EntityType") && !entity.includes("GlobalAssetId"),
        entity.join(", "),
      );
      assert.deepEqual([...(await as("kinds").children(kind("E", "Statement"))).keys()], ["Ok"]);
    });

    test("a monitored item on a Property on the way to a grant below it carries no value", async () => {
      const value = `${ACCESS_SM_KINDS}|C/Value`;
      // The boss's item first: it makes the node (ADR 0036).
      const admin = await as("boss").monitor(value);
      const hidden = await as("kinds").monitor(value);
      try {
        await hidden.waitFor(isDenied, 5000, "BadUserAccessDenied for C");
        await patch(`/submodels/${b64(ACCESS_SM_KINDS)}/submodel-elements/C/$value`, "C_SECRET_2");
        await admin.waitFor((v) => v.value.value === "C_SECRET_2", 5000, "C = C_SECRET_2 for the admin");
        await sleep(300);
        assertOnlyDenied(hidden, "kinds on C");
      } finally {
        await Promise.all([hidden, admin].map((monitor) => monitor.stop()));
      }
    });

    test("TranslateBrowsePathsToNodeIds finds only nodes the session may browse", async () => {
      // node-opcua's service did not ask the session: a hidden element's name answered Good with its
      // NodeId, an unknown one BadNoMatch, so names could be tried out (a black-box finding).
      const translate = async (user: string, relative: string) => {
        const client = as(user);
        const path = makeBrowsePath(client.nodeId(`${ACCESS_SM_1}|`), relative.replaceAll("NS", String(client.ns)));
        return (await client.session.translateBrowsePath(path)).statusCode;
      };
      assert.equal(await translate("partial", "/NS:C"), StatusCodes.Good);
      assert.equal(await translate("partial", "/NS:C/NS:X"), StatusCodes.Good);
      for (const hidden of ["/NS:P", "/NS:C/NS:XY", "/NS:L", "/NS:Nope"])
        assert.equal(await translate("partial", hidden), StatusCodes.BadNoMatch, hidden);
      assert.equal(await translate("boss", "/NS:P"), StatusCodes.Good);
      assert.equal(await translate("boss", "/NS:Nope"), StatusCodes.BadNoMatch);
    });

    test("reads: what the rules do not grant is BadUserAccessDenied", async () => {
      assert.equal((await as("reader").read(node("P", "Value"))).value.value, 1);
      assert.equal((await as("partial").read(node("C.X", "Value"))).value.value, 10);
      assert.equal((await as("partial").read(node("C.XY", "Value"))).statusCode, StatusCodes.BadUserAccessDenied);
      assert.equal((await as("anonymous").read(node("P", "Value"))).statusCode, StatusCodes.BadUserAccessDenied);
      assert.equal((await as("operator").read(node("P", "Value"))).statusCode, StatusCodes.BadUserAccessDenied);
    });

    test("UserAccessLevel follows UPDATE, UserExecutable follows EXECUTE", async () => {
      const level = async (user: string, local: string) =>
        (await as(user).read(local, AttributeIds.UserAccessLevel)).value.value as number;
      const executable = async (user: string) =>
        (await as(user).read(node("Op", "Invoke"), AttributeIds.UserExecutable)).value.value as boolean;
      assert.equal((await level("reader", node("P", "Value"))) & AccessLevelFlag.CurrentWrite, 0);
      assert.equal(
        (await level("reader", node("P", "Value"))) & AccessLevelFlag.CurrentRead,
        AccessLevelFlag.CurrentRead,
      );
      assert.equal(
        (await level("partial", node("C.X", "Value"))) & AccessLevelFlag.CurrentWrite,
        AccessLevelFlag.CurrentWrite,
      );
      assert.equal(
        (await level("boss", node("P", "Value"))) & AccessLevelFlag.CurrentWrite,
        AccessLevelFlag.CurrentWrite,
      );
      // The node's own AccessLevel stays what the model allows.
      assert.equal(
        ((await as("reader").read(node("P", "Value"), AttributeIds.AccessLevel)).value.value as number) &
          AccessLevelFlag.CurrentWrite,
        AccessLevelFlag.CurrentWrite,
      );
      assert.equal(await executable("operator"), true);
      assert.equal(await executable("boss"), true);
      assert.equal(await executable("reader"), false);
    });

    test("writes and calls without the right answer BadUserAccessDenied; with it they reach the store", async () => {
      assert.equal(
        await as("reader").write(node("P", "Value"), { dataType: DataType.Int32, value: 5 }),
        StatusCodes.BadUserAccessDenied,
      );
      assert.equal(
        await as("anonymous").write(node("P", "Value"), { dataType: DataType.Int32, value: 5 }),
        StatusCodes.BadUserAccessDenied,
      );
      assert.equal(
        await as("partial").write(node("C.XY", "Value"), { dataType: DataType.Int32, value: 5 }),
        StatusCodes.BadUserAccessDenied,
      );
      assert.equal(
        await as("partial").write(node("C.X", "Value"), { dataType: DataType.Int32, value: 42 }),
        StatusCodes.Good,
      );
      assert.equal((await as("partial").read(node("C.X", "Value"))).value.value, 42);
      assert.equal(
        await as("boss").write(node("P", "Value"), { dataType: DataType.Int32, value: 6 }),
        StatusCodes.Good,
      );
      await eventually(
        async () => (await as("reader").read(node("P", "Value"))).value.value,
        (value) => value === 6,
        "P = 6 for the reader",
      );
      assert.equal(
        (await as("reader").call(node("Op"), node("Op", "Invoke"))).statusCode,
        StatusCodes.BadUserAccessDenied,
      );
      assert.equal(
        (await as("anonymous").call(node("Op"), node("Op", "Invoke"))).statusCode,
        StatusCodes.BadUserAccessDenied,
      );
      // Allowed: the call runs (no provider is configured, so the execution fails, not the access).
      const called = await as("operator").call(node("Op"), node("Op", "Invoke"));
      assert.notEqual(called.statusCode, StatusCodes.BadUserAccessDenied);
      assert.equal(called.statusCode, StatusCodes.BadDeviceFailure);
    });

    test("an X.509 identity is its certificate subject: READ and UPDATE on P, nothing else", async () => {
      const nameplate = [...(await as("device").children(`${ACCESS_SM_1}|`)).keys()];
      assert.ok(nameplate.includes("P") && !nameplate.includes("C") && !nameplate.includes("Op"), nameplate.join(", "));
      assert.equal((await as("device").read(node("C.X", "Value"))).statusCode, StatusCodes.BadUserAccessDenied);
      assert.equal(
        await as("device").write(node("C.X", "Value"), { dataType: DataType.Int32, value: 1 }),
        StatusCodes.BadUserAccessDenied,
      );
      assert.equal(
        await as("device").write(node("P", "Value"), { dataType: DataType.Int32, value: 3 }),
        StatusCodes.Good,
      );
      assert.equal((await as("device").read(node("P", "Value"))).value.value, 3);
    });

    test("monitored items are created on any node, but a value the session may not read never arrives", async () => {
      // Partial's items first: they make the submodel's nodes, which anonymous could not (ADR 0036).
      const readable = await as("partial").monitor(node("C.X", "Value"));
      const hidden = await as("partial").monitor(node("C.XY", "Value"));
      const stranger = await as("anonymous").monitor(node("P", "Value"));
      const admin = await as("boss").monitor(node("C.XY", "Value"));
      // Not only the value: a subscription to another attribute of a node it may not read tells the
      // session no more (a Read of DisplayName is answered, ADR 0024; a subscription is held to Read).
      const name = await as("partial").monitor(node("C.XY"), { attributeId: AttributeIds.DisplayName });
      const readableName = await as("partial").monitor(node("C.X"), { attributeId: AttributeIds.DisplayName });
      try {
        await readableName.waitFor((v) => v.statusCode.isGood(), 5000, "C.X's DisplayName");
        await name.waitFor(isDenied, 5000, "BadUserAccessDenied for C.XY's DisplayName");
        // OPC 10000-4 5.12.2: the item is created; its notifications say the user may not read it.
        assert.equal(hidden.statusCode.value, StatusCodes.Good.value);
        assert.equal(stranger.statusCode.value, StatusCodes.Good.value);
        await hidden.waitFor(isDenied, 5000, "BadUserAccessDenied for C.XY");
        await stranger.waitFor(isDenied, 5000, "BadUserAccessDenied for P");
        for (const value of [111, 222]) {
          await patchValue(ACCESS_SM_1, "C.XY", value);
          await patchValue(ACCESS_SM_1, "P", value);
        }
        await patchValue(ACCESS_SM_1, "C.X", 333);
        await admin.waitFor((v) => v.value.value === 222, 5000, "C.XY = 222 for the admin");
        await readable.waitFor((v) => v.value.value === 333, 5000, "C.X = 333 for partial");
        // Publishing every 5 ms: anything queued for the hidden items would have arrived by now.
        await sleep(300);
        assertOnlyDenied(hidden, "partial on C.XY");
        assertOnlyDenied(stranger, "anonymous on P");
        assert.equal(hidden.values.length, 1, "the refusal is told once");
        assertOnlyDenied(name, "partial on C.XY's DisplayName");
      } finally {
        await Promise.all([readable, hidden, stranger, admin, name, readableName].map((monitor) => monitor.stop()));
      }
    });

    test("a monitored item follows the rights as they change: a semanticId moved out of the rule", async () => {
      const semanticId = (value: string) => ({
        type: "ExternalReference",
        keys: [{ type: "GlobalReference", value }],
      });
      const q = `${ACCESS_SM_2}|Q/Value`;
      const item = await as("semantic").monitor(q);
      const admin = await as("boss").monitor(q);
      try {
        await patchValue(ACCESS_SM_2, "Q", 3);
        await item.waitFor((v) => v.value.value === 3, 5000, "Q = 3 while the rule matches");
        await patch(`/submodels/${b64(ACCESS_SM_2)}`, { semanticId: semanticId("urn:access:sem:moved") });
        for (const value of [4, 44]) await patchValue(ACCESS_SM_2, "Q", value);
        await admin.waitFor((v) => v.value.value === 44, 5000, "Q = 44 for the admin");
        await item.waitFor(isDenied, 5000, "BadUserAccessDenied once the semanticId moved");
        await sleep(300);
        const hidden = item.values.slice(item.values.findIndex(isDenied));
        assert.ok(hidden.every(isDenied), hidden.map((v) => `${v.statusCode.name} ${v.value.value}`).join(" | "));
        // Rights back, data back (5.12.2: "the Server shall start sending data").
        await patch(`/submodels/${b64(ACCESS_SM_2)}`, { semanticId: semanticId(OTHER_SEMANTIC_ID) });
        await patchValue(ACCESS_SM_2, "Q", 5);
        await item.waitFor((v) => v.value.value === 5, 5000, "Q = 5 once the rule matches again");
      } finally {
        await Promise.all([item.stop(), admin.stop()]);
      }
    });

    test("a monitored item follows the rights as they change: the session's user changes", async () => {
      const client = await connectOpcua(system.opcuaUrls[0]!, pki, {
        type: UserTokenType.UserName,
        userName: "reader",
        password: USERS.reader!,
      });
      const item = await client.monitor(node("P", "Value"));
      // Publishing every 3 s: a change right after a message waits in the queue for the next one.
      const slow = await client.monitor(node("P", "Value"), { publishingInterval: 3000 });
      const admin = await as("boss").monitor(node("P", "Value"));
      try {
        await slow.waitFor((v) => v.statusCode.isGood(), 10_000, "the slow item's first value");
        await patchValue(ACCESS_SM_1, "P", 7);
        await item.waitFor((v) => v.value.value === 7, 5000, "P = 7 for the reader");
        // ActivateSession with another identity on the same session: anonymous may not read P. The
        // slow item holds 7, queued while the reader could read it; it must not leave now.
        const changed = await (
          client.session as ClientSession & { changeUser(user: UserIdentityInfo): Promise<StatusCode> }
        ).changeUser({ type: UserTokenType.Anonymous });
        assert.equal(changed.value, StatusCodes.Good.value);
        for (const value of [8, 88]) await patchValue(ACCESS_SM_1, "P", value);
        await admin.waitFor((v) => v.value.value === 88, 5000, "P = 88 for the admin");
        await item.waitFor(isDenied, 5000, "BadUserAccessDenied once the session is anonymous");
        await slow.waitFor(isDenied, 10_000, "BadUserAccessDenied on the slow item");
        await sleep(300);
        const after = item.values.slice(item.values.findIndex(isDenied));
        assert.ok(after.every(isDenied), after.map((v) => `${v.statusCode.name} ${v.value.value}`).join(" | "));
        assert.ok(
          slow.values.every((v) => v.value.value !== 7 && v.value.value !== 8 && v.value.value !== 88),
          slow.values.map((v) => `${v.statusCode.name} ${v.value.value}`).join(" | "),
        );
        // Back to a user who may read P, with no change of P: the items get its current value at
        // once, not the refusal recorded under the anonymous user (it stayed until P next changed).
        const back = await (
          client.session as ClientSession & { changeUser(user: UserIdentityInfo): Promise<StatusCode> }
        ).changeUser({ type: UserTokenType.UserName, userName: "reader", password: USERS.reader! });
        assert.equal(back.value, StatusCodes.Good.value);
        await item.waitFor((v) => v.value.value === 88, 5000, "P = 88 once the session is the reader again");
        await slow.waitFor((v) => v.value.value === 88, 10_000, "P = 88 on the slow item too");
      } finally {
        await admin.stop();
        await client.close();
      }
    });
  });
}
