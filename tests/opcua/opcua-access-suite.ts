/**
 * Black-box suite of the access rules over OPC UA, embedded and distributed: real UserName, X.509
 * (a trusted user certificate) and Anonymous sessions see only the nodes the rules let them read (browse
 * hides the rest), UserAccessLevel and UserExecutable follow UPDATE and EXECUTE, and writes and
 * calls without the right answer BadUserAccessDenied. The same rules as the engine's contract suite.
 */

import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ACCESS_RULES, ACCESS_SM_1, accessModel } from "@twinport/shared/test-support";
import {
  AccessLevelFlag,
  AttributeIds,
  DataType,
  OPCUACertificateManager,
  StatusCodes,
  type UserIdentityInfo,
  UserTokenType,
} from "node-opcua";
import { eventually } from "../test-support/eventually.ts";
import { connectOpcua, type OpcuaTestClient } from "../test-support/opcua-client.ts";
import type { Mode } from "../test-support/system.ts";
import { type OpcuaSystem, startOpcuaSystem } from "./opcua-system.ts";

const USERS: Record<string, string> = { reader: "r-pass", partial: "p-pass", operator: "o-pass", boss: "b-pass" };
const security = { roleAssignments: [{ user: "boss", roles: ["admin"] }], rules: ACCESS_RULES };
const node = (path: string, sub?: string) => `${ACCESS_SM_1}|${path}${sub ? `/${sub}` : ""}`;

export function opcuaAccessSuite(mode: Mode): void {
  describe(`access rules over OPC UA, ${mode} mode`, () => {
    let system: OpcuaSystem;
    let pki: string;
    const sessions = new Map<string, OpcuaTestClient>();
    const as = (user: string) => sessions.get(user)!;

    let devicePki: OPCUACertificateManager;
    before(async () => {
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
        model: accessModel(),
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
      await devicePki?.dispose();
      rmSync(pki, { recursive: true, force: true });
    });

    test("browse shows each session only what it may read", async () => {
      const environment = async (user: string) =>
        [...(await as(user).children("AASEnvironment")).keys()].filter((name) => name !== "ConceptDescriptions").sort();
      assert.deepEqual(await environment("anonymous"), ["Many17", "Many27", "Many37", "Many47", "Many7"]);
      assert.deepEqual(await environment("reader"), ["Nameplate", "ShellA"]);
      assert.deepEqual(await environment("partial"), ["Nameplate"]);
      assert.equal((await environment("boss")).length, 2 + 2 + 50);
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
  });
}
