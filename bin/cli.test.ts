import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort } from "../tests/test-support/servers.ts";
import { spawnTwinport } from "./test-support/spawn-twinport.ts";

const EXAMPLE_MODEL = new URL("../examples/model.json", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "twinport-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function getJson(url: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A config with an HTTPS endpoint on a free loopback port and state kept in the test folder. */
async function httpConfig(name: string): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      core: { stateDir: join(dir, "state") },
      endpoints: [
        {
          "@class": "de.fraunhofer.iosb.ilt.faaast.service.endpoint.http.HttpEndpoint",
          port,
          host: "127.0.0.1",
          sslEnabled: true,
        },
      ],
    }),
  );
  return { file, port };
}

function assertOneLine(stderr: string, pattern: RegExp): void {
  // Structured log records (pino JSON lines) may accompany it; the message for the person is one line.
  const human = stderr
    .trimEnd()
    .split("\n")
    .filter((line) => !line.startsWith('{"level":'))
    .join("\n");
  assert.equal(human.split("\n").length, 1, stderr);
  assert.match(human, pattern);
  assert.doesNotMatch(human, /\n\s+at /, "no stack trace");
}

test("--help lists the commands and exits 0", async () => {
  const cli = spawnTwinport(["--help"]);
  assert.equal(await cli.exited, 0);
  for (const command of ["model-store", "http-gateway", "opcua-gateway", "embedded"])
    assert.match(cli.stdout(), new RegExp(`^  ${command}\\s`, "m"));
  assert.equal(cli.stderr(), "");
});

test("a bad option exits 2 with one clear line", async () => {
  const cli = spawnTwinport(["--port", "80"]);
  assert.equal(await cli.exited, 2);
  assertOneLine(cli.stderr(), /^twinport: Unknown option '--port'\. Run 'twinport --help' for the options\.$/);
  assert.equal(cli.stdout(), "");
});

test("an unknown key in the config file exits 2 naming it", async () => {
  const file = join(dir, "typo.json");
  writeFileSync(file, JSON.stringify({ endpoints: [{ "@class": "endpoint.http.HttpEndpoint", prot: 8443 }] }));
  const cli = spawnTwinport(["-c", file]);
  assert.equal(await cli.exited, 2);
  assertOneLine(
    cli.stderr(),
    /^twinport: Unknown key 'endpoints\[0\]\.prot'\. Did you mean 'port'\? Allowed: @class, profiles, .*\bport\b/,
  );
});

test("an override through __proto__ exits 2 naming it, before anything starts", async () => {
  const cli = spawnTwinport(["--empty-model", "assetConnections[0].__proto__.polluted=1"]);
  assert.equal(await cli.exited, 2);
  assertOneLine(
    cli.stderr(),
    /^twinport: Invalid override 'assetConnections\[0\]\.__proto__\.polluted=1': '__proto__' cannot be part of a configuration path \(it reaches JavaScript's object prototype\)$/,
  );
  assert.equal(cli.stdout(), "");
});

test("an OPC UA endpoint with UserName as the only way in and no user in userMap exits 2 naming userMap", async () => {
  const cli = spawnTwinport([
    "--endpoint",
    "opcua",
    "--empty-model",
    "endpoints[0].supportedAuthentications=UserName",
    "endpoints[0].supportedSecurityPolicies=BASIC256SHA256",
    `endpoints[0].tcpPort=${await freePort()}`,
    "endpoints[0].host=127.0.0.1",
  ]);
  // An endpoint that started anyway is stopped, not waited for.
  const outcome = await Promise.race([
    cli.exited,
    cli.ready.then(
      () => "ready",
      () => "exited",
    ),
  ]);
  if (outcome === "ready") await cli.stop();
  assert.equal(outcome, 2);
  assertOneLine(
    cli.stderr(),
    /^twinport: Missing 'endpoints\[0\]\.userMap': supportedAuthentications lists UserName only, .* no client could ever open a session\./,
  );
  assert.equal(cli.stdout(), "");
});

/** Runs the CLI until it exits; a start that hangs is ended after `limitMs`, so the test fails instead of waiting. */
async function exitWithin(
  limitMs: number,
  args: string[],
): Promise<{ code: number | null; ms: number; stderr: string }> {
  const started = Date.now();
  const cli = spawnTwinport(args);
  const timer = setTimeout(() => cli.child.kill("SIGKILL"), limitMs);
  const code = await cli.exited;
  clearTimeout(timer);
  assert.equal(cli.stdout(), "");
  return { code, ms: Date.now() - started, stderr: cli.stderr() };
}

test("a fileStorage.path or core.stateDir under /proc exits 2 within seconds naming the setting (Node's recursive mkdir loops there)", async () => {
  const http = async () => [
    "--endpoint",
    "http",
    "--empty-model",
    `endpoints[0].port=${await freePort()}`,
    "endpoints[0].host=127.0.0.1",
  ];
  const files = await exitWithin(10_000, [
    ...(await http()),
    `core.stateDir=${join(dir, "proc-state")}`,
    'fileStorage={"@class":"filestorage.filesystem.FileStorageFilesystem","path":"/proc/1/x"}',
  ]);
  assert.equal(files.code, 2, files.stderr);
  assert.ok(files.ms < 10_000);
  assertOneLine(
    files.stderr,
    /^twinport: Invalid value at 'fileStorage\.path': '\/proc\/1\/x' is under \/proc, .* \(from the command line\)$/,
  );
  // HTTPS with no certificate configured makes its own in core.stateDir.
  const state = await exitWithin(10_000, [...(await http()), "core.stateDir=/proc/1/x"]);
  assert.equal(state.code, 2, state.stderr);
  assertOneLine(state.stderr, /^twinport: Invalid value at 'core\.stateDir': '\/proc\/1\/x' is under \/proc, /);
});

test("a fileStorage.path whose folder cannot be made exits 2 at once naming the setting and the folder", async () => {
  writeFileSync(join(dir, "a-file"), "");
  const blocked = join(dir, "a-file", "files");
  const cli = await exitWithin(10_000, [
    "--endpoint",
    "http",
    "--empty-model",
    `endpoints[0].port=${await freePort()}`,
    "endpoints[0].host=127.0.0.1",
    `core.stateDir=${join(dir, "blocked-state")}`,
    `fileStorage={"@class":"filestorage.filesystem.FileStorageFilesystem","path":"${blocked}"}`,
  ]);
  assert.equal(cli.code, 2, cli.stderr);
  assertOneLine(
    cli.stderr,
    new RegExp(
      `^twinport: fileStorage\\.path '${blocked}' cannot be used: cannot create the folder '${join(dir, "a-file")}': EEXIST`,
    ),
  );
});

test("embedded mode with persistence.cluster exits 2 naming it, instead of using the default Redis URL", async () => {
  const cli = await exitWithin(15_000, [
    "--endpoint",
    "http",
    "--empty-model",
    `endpoints[0].port=${await freePort()}`,
    "endpoints[0].host=127.0.0.1",
    'persistence={"@class":"persistence.redis.PersistenceRedis","cluster":{"nodes":["redis://127.0.0.1:1"]}}',
  ]);
  assert.equal(cli.code, 2, cli.stderr);
  assert.match(
    cli.stderr,
    /^twinport: persistence\.cluster \(a Redis Cluster\) is served by the distributed mode's model-store/m,
  );
  assert.doesNotMatch(cli.stderr, /6379/);
});

test("a missing model file exits 1 naming it", async () => {
  const cli = spawnTwinport(["--endpoint", "http", "-m", join(dir, "nope.json")]);
  assert.equal(await cli.exited, 1);
  assertOneLine(cli.stderr(), /^twinport embedded: Cannot read model file '.*nope\.json': no such file$/);
});

test("embedded with -m: ready line, HTTPS serves the 3 shells, SIGTERM exits 0", async () => {
  const { file, port } = await httpConfig("embedded");
  const cli = spawnTwinport(["-c", file, "-m", EXAMPLE_MODEL, "--endpoint", "http"], {
    cwd: dir,
    env: { TWINPORT_SERVICE_PORT: "443" },
  });
  const details = await cli.ready;
  assert.deepEqual(details, { http: [`https://127.0.0.1:${port}/api/v3.0`], opcua: [] });
  assert.equal(cli.stdout(), `twinport embedded ready ${JSON.stringify(details)}\n`);
  // Kubernetes-style service variables are warnings, not errors.
  assert.match(cli.stderr(), /"component":"config".*"msg":"Ignoring environment variable TWINPORT_SERVICE_PORT/);
  const { status, body } = await getJson(`https://127.0.0.1:${port}/api/v3.0/shells`);
  assert.equal(status, 200);
  assert.equal(body.result.length, 3);
  assert.equal(await cli.stop(), 0);
});

test("model.json in the working directory is the default model; --empty-model skips it", async () => {
  const cwd = mkdtempSync(join(dir, "cwd-"));
  copyFileSync(EXAMPLE_MODEL, join(cwd, "model.json"));
  const { file, port } = await httpConfig("cwd-model");
  const withModel = spawnTwinport(["-c", file, "--endpoint", "http"], { cwd });
  await withModel.ready;
  assert.equal((await getJson(`https://127.0.0.1:${port}/api/v3.0/shells`)).body.result.length, 3);
  assert.equal(await withModel.stop(), 0);

  const empty = spawnTwinport(["-c", file, "--endpoint", "http", "--empty-model"], { cwd });
  await empty.ready;
  assert.equal((await getJson(`https://127.0.0.1:${port}/api/v3.0/shells`)).body.result.length, 0);
  assert.equal(await empty.stop(), 0);
});

test("a port in use exits 1 with a message naming the setting", async () => {
  const { file, port } = await httpConfig("in-use");
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
  try {
    const cli = spawnTwinport(["-c", file, "--empty-model"]);
    assert.equal(await cli.exited, 1);
    assertOneLine(
      cli
        .stderr()
        .split("\n")
        .filter((line) => !line.startsWith("node-opcua"))
        .join("\n"),
      new RegExp(
        `^twinport embedded: HTTP endpoint cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use\\. Change endpoints\\[0\\]\\.port, or stop`,
      ),
    );
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test("an endpoint or management host that does not resolve exits 1 naming the host setting, not the port", async () => {
  const { file, port } = await httpConfig("no-such-host");
  const endpointHost = spawnTwinport([
    "-c",
    file,
    "--empty-model",
    "endpoints[0].host=nohost.invalid",
    "core.managementPort=-1",
  ]);
  assert.equal(await endpointHost.exited, 1);
  assertOneLine(
    endpointHost.stderr(),
    new RegExp(
      `^twinport embedded: HTTP endpoint cannot listen on nohost\\.invalid:${port}: the host name 'nohost\\.invalid' does not resolve \\(getaddrinfo (ENOTFOUND|EAI_AGAIN) nohost\\.invalid\\)\\. Change endpoints\\[0\\]\\.host to an address of this machine`,
    ),
  );
  const managementHost = spawnTwinport([
    "-c",
    file,
    "--empty-model",
    "core.managementHost=nohost.invalid",
    "core.managementPort=0",
  ]);
  assert.equal(await managementHost.exited, 1);
  assertOneLine(
    managementHost.stderr(),
    /^twinport embedded: Management port cannot listen on nohost\.invalid:0: the host name 'nohost\.invalid' does not resolve .*\. Change core\.managementHost \(TWINPORT_CORE_MANAGEMENTHOST\) to an address of this machine/,
  );
});

test("embedded without --endpoint serves every configured endpoint, OPC UA included", async () => {
  const [port, tcpPort] = [await freePort(), await freePort()];
  const file = join(dir, "both.json");
  writeFileSync(
    file,
    JSON.stringify({
      core: { stateDir: join(dir, "state") },
      endpoints: [
        { "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1" },
        {
          "@class": "endpoint.opcua.OpcUaEndpoint",
          tcpPort,
          host: "127.0.0.1",
          hostname: "127.0.0.1",
          secondsTillShutdown: 0,
          serverCertificateBasePath: join(dir, "PKI"),
          userCertificateBasePath: join(dir, "USERS_PKI"),
        },
      ],
    }),
  );
  const cli = spawnTwinport(["-c", file, "--empty-model"], { cwd: dir });
  assert.deepEqual(await cli.ready, {
    http: [`https://127.0.0.1:${port}/api/v3.0`],
    opcua: [`opc.tcp://127.0.0.1:${tcpPort}`],
  });
  assert.equal(cli.stdout().trimEnd().split("\n").length, 1, "node-opcua's output stays off stdout");
  assert.equal(await cli.stop(), 0);
});
