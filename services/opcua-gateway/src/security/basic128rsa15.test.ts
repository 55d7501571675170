import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { decryptsPkcs1v15 } from "../../../../bin/security-revert.ts";
import { spawnTwinport } from "../../../../bin/test-support/spawn-twinport.ts";
import { freePort } from "../../../../tests/test-support/servers.ts";

// BASIC128RSA15 works on Node 20 only in a node started with this flag, in the server and the
// client alike; this test runner has not got it. The server is the real `twinport` command, which
// must add the flag by itself; the client is a helper process started with it.
// Node 24 decrypts PKCS#1 v1.5 itself (implicit rejection) and refuses the flag as an unknown CVE:
// the flag goes only where this node needs it, as the launcher decides for the server.
const FLAG = "--security-revert=CVE-2023-46809";
const CLIENT_FLAGS = decryptsPkcs1v15() ? [] : [FLAG];
const OPEN_SESSION = new URL("./test-support/open-session.ts", import.meta.url).pathname;
const run = promisify(execFile);

const dir = mkdtempSync(join(tmpdir(), "twinport-basic128rsa15-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the client helper under `flags`; see test-support/open-session.ts. */
async function openSessions(url: string, flags: string[], retryMs: number, steps: string[]): Promise<{ ok: boolean; attempts: number; error?: string }[]> {
  const { stdout } = await run(process.execPath, [...flags, "--import", "tsx", OPEN_SESSION, url, join(dir, "client-pki"), String(retryMs), ...steps], {
    env: { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg") },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

async function eventually(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("a configuration with BASIC128RSA15: twinport serves SignAndEncrypt with it (restarting itself under the node flag where this node needs it)", async () => {
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
  const twinport = spawnTwinport(["-c", join(dir, "config.json"), "--empty-model"], { cwd: dir, env: { XDG_CONFIG_HOME: join(dir, "xdg") }, readyTimeoutMs: 30_000 });
  try {
    const ready = await twinport.ready;
    const url = `opc.tcp://127.0.0.1:${tcpPort}`;
    assert.deepEqual(ready.opcua, [url]);

    // The client is refused at first (its certificate is unknown) and retries while the test
    // trusts it the operator's way: from rejected/ to certs/.
    const sessions = openSessions(url, CLIENT_FLAGS, 20_000, ["Basic128Rsa15:SignAndEncrypt", "Basic128Rsa15:Sign"]);
    await eventually(() => readdirSync(join(serverPki, "rejected")).length === 1, "the client certificate in rejected/");
    const [file] = readdirSync(join(serverPki, "rejected"));
    renameSync(join(serverPki, "rejected", file!), join(serverPki, "certs", file!));
    const [signAndEncrypt, sign] = await sessions;
    assert.equal(signAndEncrypt?.ok, true, signAndEncrypt?.error);
    assert.ok(signAndEncrypt!.attempts > 1, "the first attempt, before the certificate was trusted, was refused");
    assert.deepEqual(sign, { ok: true, attempts: 1 });
  } finally {
    // SIGTERM reaches the re-run process through the launcher, which exits with its code.
    assert.equal(await twinport.stop(), 0, twinport.stderr());
  }
});
