import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  AttributeIds,
  MessageSecurityMode,
  OPCUACertificateManager,
  OPCUAClient,
  SecurityPolicy,
  setDebugLogger,
  setErrorLogger,
  setWarningLogger,
} from "node-opcua";
import { spawnTwinport } from "../../../../bin/test-support/spawn-twinport.ts";
import { freePort } from "../../../../tests/test-support/servers.ts";
import { assertBasic128Rsa15Servable, rsaPkcs1DecryptionUnavailable } from "./rsa-pkcs1-decryption.ts";

// The client's refused attempts (before the test trusts its certificate) are expected: keep
// node-opcua's warnings about them out of the test output.
for (const setLogger of [setWarningLogger, setErrorLogger, setDebugLogger]) setLogger(() => undefined);

const dir = mkdtempSync(join(tmpdir(), "twinport-basic128rsa15-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Opens a Basic128Rsa15 channel and an anonymous session, reads the server state, closes. */
async function openSession(
  url: string,
  mode: MessageSecurityMode,
  clientCertificateManager: OPCUACertificateManager,
): Promise<void> {
  const client = OPCUAClient.create({
    endpointMustExist: false,
    securityPolicy: SecurityPolicy.Basic128Rsa15,
    securityMode: mode,
    clientCertificateManager,
    connectionStrategy: { maxRetry: 0, initialDelay: 50, maxDelay: 100 },
  });
  try {
    await client.connect(url);
    const session = await client.createSession();
    const state = await session.read({ nodeId: "i=2259", attributeId: AttributeIds.Value }); // Server_ServerStatus_State
    await session.close();
    assert.equal(state.statusCode.name, "Good");
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

async function eventually(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("this Node.js decrypts RSA PKCS#1 v1.5 without any flag (its OpenSSL does implicit rejection)", () => {
  assert.equal(rsaPkcs1DecryptionUnavailable(), undefined);
});

test("a configuration with BASIC128RSA15: the plain twinport command serves Sign and SignAndEncrypt with it", async () => {
  const tcpPort = await freePort();
  const serverPki = join(dir, "PKI", "CA");
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      endpoints: [
        {
          "@class": "endpoint.opcua.OpcUaEndpoint",
          tcpPort,
          host: "127.0.0.1",
          hostname: "127.0.0.1",
          secondsTillShutdown: 0,
          supportedSecurityPolicies: ["NONE", "BASIC128RSA15"],
          serverCertificateBasePath: serverPki,
          userCertificateBasePath: join(dir, "USERS_PKI", "CA"),
        },
      ],
    }),
  );
  const twinport = spawnTwinport(["-c", join(dir, "config.json"), "--empty-model"], {
    cwd: dir,
    env: { XDG_CONFIG_HOME: join(dir, "xdg") },
    readyTimeoutMs: 30_000,
  });
  const clientCertificateManager = new OPCUACertificateManager({
    rootFolder: join(dir, "client-pki"),
    automaticallyAcceptUnknownCertificate: true,
  });
  try {
    const ready = await twinport.ready;
    const url = `opc.tcp://127.0.0.1:${tcpPort}`;
    assert.deepEqual(ready.opcua, [url]);

    // Refused at first (the client certificate is unknown), then trusted the operator's way:
    // from rejected/ to certs/, after which the same client gets in.
    await assert.rejects(openSession(url, MessageSecurityMode.SignAndEncrypt, clientCertificateManager));
    await eventually(
      () => readdirSync(join(serverPki, "rejected")).length === 1,
      "the client certificate in rejected/",
    );
    const [file] = readdirSync(join(serverPki, "rejected"));
    renameSync(join(serverPki, "rejected", file!), join(serverPki, "certs", file!));
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await openSession(url, MessageSecurityMode.SignAndEncrypt, clientCertificateManager);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    await openSession(url, MessageSecurityMode.Sign, clientCertificateManager);
  } finally {
    await clientCertificateManager.dispose();
    assert.equal(await twinport.stop(), 0, twinport.stderr());
  }
});

test("a runtime that refuses PKCS#1 v1.5 decryption: BASIC128RSA15 is a start-up error naming the reason and the setting", () => {
  // Node 24's bundled OpenSSL always decrypts, so Node's refusal (what a Node ≥ 22 built against an
  // OpenSSL without implicit rejection throws, word for word) stands in for that runtime here.
  const refuse = (): Buffer => {
    throw Object.assign(new TypeError("RSA_PKCS1_PADDING is no longer supported for private decryption"), {
      code: "ERR_INVALID_ARG_VALUE",
    });
  };
  assert.equal(
    rsaPkcs1DecryptionUnavailable(refuse as never),
    "RSA_PKCS1_PADDING is no longer supported for private decryption",
  );
  assert.throws(
    () => assertBasic128Rsa15Servable(["NONE", "BASIC128RSA15"], refuse as never),
    (error: Error) => {
      assert.match(error.message, /supportedSecurityPolicies lists BASIC128RSA15/);
      assert.match(error.message, /RSA_PKCS1_PADDING is no longer supported/);
      assert.match(error.message, /no --security-revert for CVE-2023-46809/);
      assert.ok(error.message.includes(`Node.js ${process.version}`), error.message);
      return true;
    },
  );
  // Without the policy nothing is probed, and nothing is refused.
  assertBasic128Rsa15Servable(["NONE", "BASIC256SHA256"], refuse as never);
});
