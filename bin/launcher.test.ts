/**
 * The launcher (bin/twinport.js) in both of its modes: compiled (dist/, what production and
 * `npm start` run) and sources (the twinport-source condition with tsx, what this test runner
 * uses). What each process loaded is recorded by a preloaded hook (test-support/record-modules.mjs)
 * instead of being inferred from timings, so "--help loads no role" is a fact, not a guess.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { freePort } from "../tests/test-support/servers.ts";
import { spawnTwinport } from "./test-support/spawn-twinport.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const BIN = join(ROOT, "bin/twinport.js");
const RECORDER = new URL("./test-support/record-modules.mjs", import.meta.url).href;
const EXAMPLE_MODEL = join(ROOT, "examples/model.json");
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "twinport-launcher-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** NODE_OPTIONS of each mode, with the recorder preloaded; the test runner's own is the sources mode. */
const MODES = {
  compiled: `--import=${RECORDER}`,
  sources: `${process.env.NODE_OPTIONS ?? ""} --import=${RECORDER}`,
};
type Mode = keyof typeof MODES;
assert.match(
  process.env.NODE_OPTIONS ?? "",
  /--conditions=twinport-source/,
  "run through npm test (scripts/test.sh sets the sources mode)",
);

let records = 0;
function recordFile(): string {
  return join(dir, `modules-${++records}.txt`);
}
/** Our own modules a process loaded, as repository paths (third-party and builtins left out). */
function ownModules(file: string): string[] {
  const urls = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  return [
    ...new Set(
      urls
        .filter((url) => url.startsWith(`file://${ROOT}`) && !url.includes("/node_modules/"))
        .map((url) => url.slice(`file://${ROOT}`.length)),
    ),
  ];
}
function allModules(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

async function twinport(mode: Mode, args: string[]): Promise<{ stdout: string; modules: string[]; all: string[] }> {
  const file = recordFile();
  const { stdout } = await run(process.execPath, [BIN, ...args], {
    env: { ...process.env, NODE_OPTIONS: MODES[mode], RECORD_MODULES_FILE: file },
    timeout: 30_000,
  });
  return { stdout, modules: ownModules(file), all: allModules(file) };
}

/** The launcher itself: bin/twinport.js and the heap settings it applies first (ADR 0043). */
const LAUNCHER = ["bin/heap-settings.js", "bin/twinport.js"];

for (const mode of ["compiled", "sources"] as const) {
  test(`${mode}: --help and --version answer from the command-line parser alone, loading no role`, async () => {
    const parser =
      mode === "compiled" ? "libs/shared/dist/config/command-line.js" : "libs/shared/src/config/command-line.ts";
    for (const args of [["--help"], ["-h"], ["http-gateway", "--help"], ["opcua-gateway", "-c", "x.json", "--help"]]) {
      const { stdout, modules } = await twinport(mode, args);
      assert.match(stdout, /^Usage: twinport \[command\]/, args.join(" "));
      assert.deepEqual(modules.sort(), [...LAUNCHER, parser].sort(), args.join(" "));
    }
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
    for (const args of [["--version"], ["-v"], ["model-store", "--version"]]) {
      const { stdout, modules, all } = await twinport(mode, args);
      assert.equal(stdout, `twinport ${version}\n`, args.join(" "));
      assert.deepEqual(modules.sort(), [...LAUNCHER, parser].sort(), args.join(" "));
      // No third-party package either (in the sources mode tsx itself is loaded, before anything of ours).
      assert.deepEqual(
        all.filter(
          (url) =>
            url.includes("/node_modules/") &&
            !url.includes("/node_modules/tsx/") &&
            !url.includes("/node_modules/get-tsconfig/") &&
            !url.includes("/node_modules/esbuild/") &&
            !url.includes("/node_modules/resolve-pkg-maps/"),
        ),
        [],
        args.join(" "),
      );
    }
    // The recorder does see a role loading: a command line that goes on to a role loads the shared
    // library (and fails there, on the missing file), so the absence above means something.
    const file = recordFile();
    await assert.rejects(
      run(process.execPath, [BIN, "-c", join(dir, "missing.json")], {
        env: { ...process.env, NODE_OPTIONS: MODES[mode], RECORD_MODULES_FILE: file },
      }),
      (error: { code: number; stderr: string }) => error.code === 2 && /Cannot read config file/.test(error.stderr),
    );
    const loaded = ownModules(file);
    assert.ok(
      loaded.some((path) => /^libs\/shared\/(dist|src)\/index\.(js|ts)$/.test(path)),
      JSON.stringify(loaded),
    );
  });
}

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

test("compiled: embedded mode serves from dist/ alone (no TypeScript source, no tsx) and stops cleanly", async () => {
  const port = await freePort();
  const tcpPort = await freePort();
  const config = join(dir, "embedded.json");
  writeFileSync(
    config,
    JSON.stringify({
      core: { stateDir: join(dir, "embedded-state") },
      endpoints: [
        {
          "@class": "de.fraunhofer.iosb.ilt.faaast.service.endpoint.http.HttpEndpoint",
          port,
          host: "127.0.0.1",
          sslEnabled: true,
        },
        // The OPC UA endpoint loads the nodeset XML the build copies beside the compiled code.
        {
          "@class": "endpoint.opcua.OpcUaEndpoint",
          tcpPort,
          host: "127.0.0.1",
          hostname: "127.0.0.1",
          secondsTillShutdown: 0,
          serverCertificateBasePath: join(dir, "PKI", "CA"),
          userCertificateBasePath: join(dir, "USERS_PKI", "CA"),
        },
      ],
    }),
  );
  const file = recordFile();
  const cli = spawnTwinport(["-c", config, "-m", EXAMPLE_MODEL], {
    cwd: dir,
    env: { NODE_OPTIONS: MODES.compiled, RECORD_MODULES_FILE: file, XDG_CONFIG_HOME: join(dir, "xdg") },
    readyTimeoutMs: 60_000,
  });
  try {
    const ready = await cli.ready;
    assert.deepEqual(ready.http, [`https://127.0.0.1:${port}/api/v3.0`]);
    assert.deepEqual(ready.opcua, [`opc.tcp://127.0.0.1:${tcpPort}`]);
    const shells = await getJson(`https://127.0.0.1:${port}/api/v3.0/shells`);
    assert.equal(shells.status, 200);
    assert.equal(shells.body.result.length, 3);
  } finally {
    assert.equal(await cli.stop(), 0, cli.stderr());
  }
  const modules = ownModules(file);
  assert.ok(
    modules.includes("dist/embedded.js") && modules.includes("services/opcua-gateway/dist/index.js"),
    JSON.stringify(modules),
  );
  assert.deepEqual(
    modules.filter((path) => /\.[cm]?ts$/.test(path) && !path.endsWith(".d.ts")),
    [],
  );
  assert.deepEqual(
    allModules(file).filter((url) => url.includes("/node_modules/tsx/")),
    [],
  );
});

test("compiled: a configuration with BASIC128RSA15 is served by the launcher itself, no re-run under a node flag", async () => {
  const tcpPort = await freePort();
  const config = join(dir, "basic128rsa15.json");
  writeFileSync(
    config,
    JSON.stringify({
      endpoints: [
        {
          "@class": "endpoint.opcua.OpcUaEndpoint",
          tcpPort,
          host: "127.0.0.1",
          hostname: "127.0.0.1",
          secondsTillShutdown: 0,
          supportedSecurityPolicies: ["NONE", "BASIC128RSA15"],
          serverCertificateBasePath: join(dir, "rsa15", "PKI", "CA"),
          userCertificateBasePath: join(dir, "rsa15", "USERS_PKI", "CA"),
        },
      ],
    }),
  );
  const file = recordFile();
  const cli = spawnTwinport(["-c", config, "--empty-model"], {
    cwd: dir,
    env: { NODE_OPTIONS: MODES.compiled, RECORD_MODULES_FILE: file, XDG_CONFIG_HOME: join(dir, "xdg") },
    readyTimeoutMs: 60_000,
  });
  try {
    const ready = await cli.ready;
    assert.deepEqual(ready.opcua, [`opc.tcp://127.0.0.1:${tcpPort}`]);
    // Node 24 decrypts PKCS#1 v1.5 itself and refuses --security-revert=CVE-2023-46809 (exit 12):
    // the launcher serves in its own process, with no child node. (ps exits 1 when it lists nothing.)
    const children = spawnSync("ps", ["-o", "pid=", "--ppid", String(cli.child.pid)], { encoding: "utf8" })
      .stdout.trim()
      .split(/\s+/)
      .filter(Boolean);
    assert.deepEqual(children, [], "no re-run");
  } finally {
    assert.equal(await cli.stop(), 0, cli.stderr());
  }
  const modules = ownModules(file);
  assert.ok(modules.includes("services/opcua-gateway/dist/index.js"), JSON.stringify(modules));
  assert.deepEqual(
    modules.filter((path) => /\.[cm]?ts$/.test(path) && !path.endsWith(".d.ts")),
    [],
  );
});
