// Test helper run as its own process:
//   node [--security-revert=CVE-2023-46809] --import tsx open-session.ts <url> <client PKI folder> <retry ms> <Policy:Mode>...
// For each Policy:Mode (e.g. Basic128Rsa15:SignAndEncrypt) it opens a secure channel and an
// anonymous session and reads the server state, retrying for up to <retry ms> until that works
// (so the test can trust the client certificate meanwhile), then prints one JSON line:
// [{"ok":true,"attempts":2}, …]. A process of its own because BASIC128RSA15 needs that node flag
// in the client too, and a test runner cannot add it to itself.
import { AttributeIds, MessageSecurityMode, OPCUACertificateManager, OPCUAClient, SecurityPolicy, setDebugLogger, setErrorLogger, setWarningLogger } from "node-opcua";

const [url, pkiFolder, retryMs, ...steps] = process.argv.slice(2);
if (!url || !pkiFolder || !retryMs || steps.length === 0) throw new Error("usage: open-session.ts <url> <client PKI folder> <retry ms> <Policy:Mode>...");
// node-opcua's chatter would mix with the one JSON line on stdout.
for (const setLogger of [setWarningLogger, setErrorLogger, setDebugLogger]) setLogger(() => undefined);

const clientCertificateManager = new OPCUACertificateManager({ rootFolder: pkiFolder, automaticallyAcceptUnknownCertificate: true });

async function attempt(policy: string, mode: string): Promise<void> {
  const client = OPCUAClient.create({
    endpointMustExist: false,
    securityPolicy: SecurityPolicy[policy as keyof typeof SecurityPolicy],
    securityMode: MessageSecurityMode[mode as keyof typeof MessageSecurityMode],
    clientCertificateManager,
    connectionStrategy: { maxRetry: 0, initialDelay: 50, maxDelay: 100 },
  });
  try {
    await client.connect(url!);
    const session = await client.createSession();
    const state = await session.read({ nodeId: "i=2259", attributeId: AttributeIds.Value }); // Server_ServerStatus_State
    await session.close();
    if (state.statusCode.name !== "Good") throw new Error(state.statusCode.name);
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

const results: { ok: boolean; attempts: number; error?: string }[] = [];
for (const step of steps) {
  const [policy, mode] = step.split(":") as [string, string];
  const deadline = Date.now() + Number(retryMs);
  for (let attempts = 1; ; attempts++) {
    try {
      await attempt(policy, mode);
      results.push({ ok: true, attempts });
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        results.push({ ok: false, attempts, error: (error as Error).message });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
await clientCertificateManager.dispose();
process.stdout.write(`${JSON.stringify(results)}\n`);
process.exit(0);
