/**
 * Stopping a real `twinport` process with signals, the way a terminal, npm and orchestrators send
 * them: Ctrl-C on `npm start` (SIGINT twice at once), a second Ctrl-C that forces the exit, and
 * core.shutdownDelay, during which /ready answers 503 while the endpoints still serve
 * (docs/adr/0052).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort } from "../tests/test-support/servers.ts";
import { spawnTwinport, type TwinportProcess } from "./test-support/spawn-twinport.ts";

const dir = mkdtempSync(join(tmpdir(), "twinport-shutdown-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Embedded, one HTTPS endpoint on a free port, the management port on a free one (named in the ready
 * line); with `opcua`, an OPC UA endpoint too, as `npm start` has (its stop gives clients
 * secondsTillShutdown, 2 s).
 */
async function startEmbedded(
  env: NodeJS.ProcessEnv = {},
  options: { opcua?: boolean } = {},
): Promise<{ cli: TwinportProcess; api: string; management: string }> {
  const port = await freePort();
  const file = join(dir, `config-${port}.json`);
  const opcua = {
    "@class": "endpoint.opcua.OpcUaEndpoint",
    tcpPort: await freePort(),
    host: "127.0.0.1",
    hostname: "127.0.0.1",
    serverCertificateBasePath: join(dir, "state/PKI/CA"),
    userCertificateBasePath: join(dir, "state/USERS_PKI/CA"),
  };
  writeFileSync(
    file,
    JSON.stringify({
      core: { stateDir: join(dir, "state"), managementPort: 0 },
      endpoints: [
        { "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: true },
        ...(options.opcua ? [opcua] : []),
      ],
    }),
  );
  const cli = spawnTwinport(["-c", file, "--empty-model", ...(options.opcua ? [] : ["--endpoint", "http"])], {
    cwd: dir,
    env: { TWINPORT_CORE_MANAGEMENTPORT: "0", ...env },
  });
  const details = (await cli.ready) as { management: string };
  return { cli, api: `https://127.0.0.1:${port}/api/v3.0`, management: details.management };
}

/** A GET on a new connection (no keep-alive), so it shows whether the endpoint still accepts. */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", reject);
    req.end();
  });
}

/** GET over `agent`: the status and the answer's Connection header. */
function agentGet(url: string, agent: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
    });
    req.on("error", reject);
    req.end();
  });
}

const logMessages = (stderr: string): string[] =>
  stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

test("Ctrl-C on npm start (SIGINT from the terminal and again from npm, at once) is one graceful stop: exit 0", async () => {
  const { cli } = await startEmbedded({}, { opcua: true });
  cli.child.kill("SIGINT");
  // npm's copy comes a moment later (two signals sent back to back would merge into one pending signal).
  await new Promise((resolve) => setTimeout(resolve, 100));
  cli.child.kill("SIGINT");
  assert.equal(await cli.exited, 0, cli.stderr());
  assert.ok(logMessages(cli.stderr()).includes("stopped"), cli.stderr());
  assert.doesNotMatch(cli.stderr(), /again, exiting without waiting/);
});

test("core.shutdownDelay: after SIGTERM /ready answers 503 while HTTPS still accepts new connections; then it stops, exit 0", async () => {
  const { cli, api, management } = await startEmbedded({ TWINPORT_CORE_SHUTDOWNDELAY: "PT2S" });
  assert.equal(await freshGet(`${api}/shells`), 200);
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });
  assert.deepEqual(await agentGet(`${api}/shells`, agent), { status: 200, connection: "keep-alive" });
  cli.child.kill("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 300));
  const ready = await fetch(`${management}/ready`);
  assert.equal(ready.status, 503);
  assert.deepEqual(await ready.json(), { status: "stopping" });
  assert.equal(await freshGet(`${api}/shells`), 200, "a connection the balancer still sends is served");
  // A kept-alive client is served and told to close, so it reconnects through its balancer elsewhere.
  assert.deepEqual(await agentGet(`${api}/shells`, agent), { status: 200, connection: "close" });
  agent.destroy();
  assert.equal(await cli.exited, 0, cli.stderr());
  const messages = logMessages(cli.stderr());
  assert.ok(
    messages.some((msg) => /serving on for 2 s \(core\.shutdownDelay\)/.test(msg)),
    cli.stderr(),
  );
  assert.ok(messages.includes("stopped"), cli.stderr());
});

test("a second Ctrl-C after the first one's echo forces the exit: code 1, without waiting for the shutdown", async () => {
  const { cli } = await startEmbedded({ TWINPORT_CORE_SHUTDOWNDELAY: "PT10S" });
  cli.child.kill("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(cli.child.exitCode, null, "still in its shutdown delay");
  cli.child.kill("SIGINT");
  assert.equal(await cli.exited, 1);
  assert.match(cli.stderr(), /\ntwinport embedded: SIGINT again, exiting without waiting for the shutdown\n/);
  assert.ok(!logMessages(cli.stderr()).includes("stopped"));
});
