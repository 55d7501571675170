/**
 * FA³ST Service configuration files, written for this suite in FA³ST's shapes (every key FA³ST
 * v1.3 documents, plus the main-branch keys users already write), loaded as a user would: each
 * starts, starts with warnings, or fails with a message naming the fix
 * (docs/faaast-compatibility.md states the rule these outcomes follow).
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ConfigError, type HttpEndpointConfig, loadConfig } from "@twinport/shared";
import { EXAMPLE_MODEL, REPO_ROOT, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const FIXTURES = join(REPO_ROOT, "tests/fixtures/faaast-configs");
const fixture = (name: string) => join(FIXTURES, name);

type Outcome = { loads: true; warnings: RegExp[] } | { loads: false; error: RegExp };

const ignored = (option: string) =>
  new RegExp(`^FA³ST option ${option.replace(/[[\].()]/g, "\\$&")} is not supported by Twinport and is ignored`);

/** Every fixture and what loading it must give: nothing may be left out (checked below). */
const EXPECTED: Record<string, Outcome> = {
  "core-v1.3.json": { loads: true, warnings: [] },
  "core-main.json": { loads: true, warnings: [ignored("core.serviceName")] },
  "core-typo.json": {
    loads: false,
    error: /Unknown key 'core\.assetConnectionRetryIntervall'\. Did you mean 'assetConnectionRetryInterval'\?/,
  },
  "endpoint-http-v1.3.json": {
    loads: true,
    warnings: [
      ignored("endpoints[0].httpVersion"),
      ignored("endpoints[0].subprotocol"),
      ignored("endpoints[0].subprotocolBody"),
      ignored("endpoints[0].subprotocolBodyEncoding"),
      // FA³ST's documented example: loads, though no browser sends an Origin without a scheme.
      /^'endpoints\[0\]\.corsAllowedOrigin' names 'localhost', which has no scheme: browsers send an Origin such as 'http:\/\/localhost'/,
    ],
  },
  "endpoint-http-served.json": { loads: true, warnings: [ignored("endpoints[0].httpVersion")] },
  "endpoint-http-bad-prefix.json": {
    loads: false,
    error: /endpoints\[0\]\.pathPrefix': expected "", "\/" or a path starting with "\/" and not ending with "\/"/,
  },
  "endpoint-opcua-v1.3.json": { loads: true, warnings: [] },
  // FA³ST main's profile value for its runtime operation-connection API.
  "endpoints-both.json": {
    loads: true,
    warnings: [ignored("endpoints[0].profiles FAAAST_OPERATION_PROVIDER_RUNTIME")],
  },
  "endpoint-custom-class.json": {
    loads: false,
    error: /Unknown @class 'com\.example\.faaast\.MyEndpoint' at endpoints\[0\]\. Known: endpoint\.http\.HttpEndpoint/,
  },
  "persistence-memory.json": { loads: true, warnings: [ignored("persistence.initialModel")] },
  "persistence-file.json": {
    loads: false,
    error:
      /Unknown @class '.*persistence\.file\.PersistenceFile' at persistence\. FA³ST's file persistence has no Twinport counterpart: use persistence\.redis\.PersistenceRedis.*Known: /,
  },
  "persistence-mongo.json": {
    loads: false,
    error:
      /Unknown @class '.*persistence\.mongo\.PersistenceMongo' at persistence\. Known: persistence\.memory\.PersistenceInMemory, persistence\.redis\.PersistenceRedis/,
  },
  "filestorage-filesystem.json": { loads: true, warnings: [] },
  // FA³ST's own doc example writes "filestorage", which FA³ST silently ignores (Jackson is case-sensitive).
  "filestorage-doc-example.json": { loads: false, error: /Unknown key 'filestorage'\. Did you mean 'fileStorage'\?/ },
  "filestorage-memory.json": { loads: true, warnings: [] },
  "messagebus-internal.json": { loads: true, warnings: [] },
  "assetconnection-http-v1.3.json": {
    loads: true,
    warnings: [
      ignored(
        "assetConnections[0].subscriptionProviders.[ModelRef](Submodel)urn:example:submodel:drive, (SubmodelElementCollection)Status, (Property)Temperature.method",
      ),
      ignored(
        "assetConnections[0].subscriptionProviders.[ModelRef](Submodel)urn:example:submodel:drive, (SubmodelElementCollection)Status, (Property)Temperature.template",
      ),
    ],
  },
  "assetconnection-http-subscription-no-format.json": {
    loads: false,
    error: /Missing 'assetConnections\[0\]\.subscriptionProviders\..*\.format': add "format": "JSON"/,
  },
  "assetconnection-opcua-v1.3.json": { loads: true, warnings: [] },
  "assetconnection-mqtt-v1.3.json": { loads: true, warnings: [] },
  "assetconnection-modbus-main.json": {
    loads: false,
    error: /Unknown @class '.*assetconnection\.modbus\.ModbusAssetConnection' at assetConnections\[0\]\. Known: /,
  },
  "aimc-processor-main.json": { loads: true, warnings: [] },
  "assetconnection-typo.json": {
    loads: false,
    error: /Unknown key 'assetConnections\[0\]\.baseURL'\. Did you mean 'baseUrl'\?/,
  },
};

function load(name: string, overrides: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return loadConfig({ role: "embedded", configFile: fixture(name), overrides, env });
}

describe("FA³ST configuration files: start, warn or fail", () => {
  test("every fixture has an expected outcome", () => {
    assert.deepEqual(
      readdirSync(FIXTURES)
        .filter((name) => name.endsWith(".json"))
        .sort(),
      Object.keys(EXPECTED).sort(),
    );
  });

  for (const [name, outcome] of Object.entries(EXPECTED)) {
    test(`${name}: ${outcome.loads ? (outcome.warnings.length ? "loads with warnings" : "loads") : "fails"}`, () => {
      if (!outcome.loads) {
        assert.throws(
          () => load(name),
          (error) => error instanceof ConfigError && outcome.error.test(error.message),
        );
        return;
      }
      const { warnings } = load(name);
      assert.equal(warnings.length, outcome.warnings.length, warnings.join("\n"));
      outcome.warnings.forEach((pattern, i) => assert.match(warnings[i]!, pattern));
    });
  }

  test("implemented FA³ST keys take effect: operationTimeout, pathPrefix, existingDataPath, validation objects", () => {
    assert.equal(load("core-main.json").config.core.operationHandleTtl, "PT7200S");
    const [http] = load("endpoint-http-served.json").config.endpoints as [HttpEndpointConfig];
    assert.equal(http.pathPrefix, "/aas");
    assert.equal(
      (load("endpoint-http-served.json", ["endpoints[0].pathPrefix=/"]).config.endpoints[0] as HttpEndpointConfig)
        .pathPrefix,
      "",
    );
    const storage = load("filestorage-filesystem.json").config.fileStorage;
    assert.deepEqual(storage, {
      "@class": "filestorage.filesystem.FileStorageFilesystem",
      path: "./my/file/cache",
      existingDataPath: "./my/initial/data",
    });
    // FA³ST's default for create/update turns only validateConstraints off: a mix of switches means "validate".
    assert.equal(load("core-v1.3.json").config.core.validationOnCreate, true);
    assert.throws(
      () => load("core-main.json", ["core.operationHandleTtl=PT1H"]),
      /operationTimeout \(FA³ST, ms\) and operationHandleTtl say different things/,
    );
  });

  test("command line and environment follow the same rule: FA³ST options warn, typos fail (CLI) or are named (env)", () => {
    const cli = load("endpoints-both.json", ["endpoints[0].httpVersion=HTTP_2", "core.serviceName=x"]);
    assert.deepEqual(
      cli.warnings.map((w) => w.replace(/ \(.*$/, "")),
      [
        "FA³ST option endpoints[0].profiles FAAAST_OPERATION_PROVIDER_RUNTIME is not supported by Twinport and is ignored",
        "FA³ST option endpoints[0].httpVersion is not supported by Twinport and is ignored",
        "FA³ST option core.serviceName is not supported by Twinport and is ignored",
      ],
    );
    assert.equal("httpVersion" in cli.config.endpoints[0]!, false);
    assert.throws(() => load("endpoints-both.json", ["endpoints[0].prot=8080"]), /Did you mean 'port'\?/);
    const env = load("endpoints-both.json", [], {
      TWINPORT_ENDPOINTS_0_HTTPVERSION: "HTTP_2",
      TWINPORT_ENDPOINTS_0_CORSENABLD: "true",
    });
    assert.deepEqual(
      env.warnings.map((w) => w.replace(/ \(.*$/, "")),
      [
        "FA³ST option endpoints[0].profiles FAAAST_OPERATION_PROVIDER_RUNTIME is not supported by Twinport and is ignored",
        "Ignoring environment variable TWINPORT_ENDPOINTS_0_CORSENABLD: Unknown key 'endpoints[0].corsenabld'. Did you mean 'corsEnabled'? Allowed: @class, profiles, certificate, corsAllowCredentials, corsAllowedHeaders, corsAllowedMethods, corsAllowedOrigin, corsEnabled, isCorsEnabled, corsExposedHeaders, corsMaxAge, hostname, includeErrorDetails, port, sniEnabled, sslEnabled, pathPrefix, host, maxRequestBodySize, maxConnections, maxBufferedRequestBodySize, consoleEnabled, openApiEnabled",
        "Environment variable TWINPORT_ENDPOINTS_0_HTTPVERSION: FA³ST option endpoints[0].httpVersion is not supported by Twinport and is ignored",
      ],
    );
  });
});

describe("FA³ST configuration files: started", () => {
  const started: TwinportProcess[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const process of started) await process.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const workDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "twinport-faaast-config-"));
    dirs.push(dir);
    return dir;
  };
  /** Loopback only, free ports, no management port: the file's own settings otherwise. */
  const start = async (name: string, cwd: string, extra: string[] = []) => {
    const process = await startTwinport({
      cwd,
      args: [
        "-c",
        fixture(name),
        "endpoints[0].port=0",
        "endpoints[0].host=127.0.0.1",
        "core.managementPort=-1",
        ...extra,
      ],
    });
    started.push(process);
    return process;
  };
  const httpBase = (process: TwinportProcess) => {
    const [url] = process.details.http as string[];
    return url!.replace(/\/api\/v3\.0$/, "");
  };

  test("endpoint-http-served.json: the API answers under pathPrefix and under /api/v3.0; the warning is in the log", async () => {
    const process = await start("endpoint-http-served.json", workDir(), ["--empty-model"]);
    const base = httpBase(process);
    for (const path of ["/aas/shells", "/api/v3.0/shells", "/aas/description"]) {
      assert.equal((await fetch(`${base}${path}`)).status, 200, path);
    }
    assert.equal((await fetch(`${base}/shells`)).status, 404);
    // Validation on create is on by default: FA³ST's AID example is refused with its findings
    // grouped, the template named and the switch said (issue 18.5); its canonical-reading defects
    // ("True", a dateTime with a space, empty lists and idShorts) are not among them.
    const [aid] = JSON.parse(
      readFileSync(join(REPO_ROOT, "tests/fixtures/aid-aimc/faaast-shaped-example.json"), "utf8"),
    ).submodels;
    const refused = await fetch(`${base}/aas/submodels`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(aid),
    });
    assert.equal(refused.status, 400);
    const { messages } = (await refused.json()) as { messages: { text: string }[] };
    assert.match(
      messages[0]!.text,
      /^Invalid Submodel \(IDTA 02017 Asset Interfaces Description \(AID\), semanticId https:\/\/admin-shell\.io\/idta\/AssetInterfacesDescription\/1\/0\/Submodel\): 6 findings of 1 kind: 6× Keys must contain at least one item\..*core\.validationOnCreate/,
    );
    assert.ok(
      !messages.some((m) => /consistent with the value type|AASd-120|ID-short|Embedded data/.test(m.text)),
      messages.map((m) => m.text).join("\n"),
    );
    assert.match(
      readFileSync(process.logFile, "utf8"),
      /FA³ST option endpoints\[0\]\.httpVersion is not supported by Twinport and is ignored/,
    );
  });

  test("persistence-memory.json: initialModelFile loads the model; initialModel is named as ignored", async () => {
    const cwd = workDir();
    copyFileSync(EXAMPLE_MODEL, join(cwd, "initial-model.json"));
    const process = await start("persistence-memory.json", cwd, [
      "--endpoint",
      "http",
      "endpoints[0].sslEnabled=false",
    ]);
    const shells = (await (await fetch(`${httpBase(process)}/api/v3.0/shells`)).json()) as { result: unknown[] };
    assert.ok(shells.result.length > 0);
    assert.match(readFileSync(process.logFile, "utf8"), /FA³ST option persistence\.initialModel is not supported/);
  });

  test("filestorage-filesystem.json: the files of existingDataPath are in the store at start, the originals untouched", async () => {
    const cwd = workDir();
    mkdirSync(join(cwd, "my/initial/data/aasx/files"), { recursive: true });
    writeFileSync(join(cwd, "my/initial/data/aasx/files/manual.pdf"), "%PDF-1.4 manual");
    await start("filestorage-filesystem.json", cwd, [
      "--endpoint",
      "http",
      "--empty-model",
      "endpoints[0].sslEnabled=false",
    ]);
    const stored = readdirSync(join(cwd, "my/file/cache")).filter((name) => name.endsWith(".file"));
    assert.equal(stored.length, 1);
    assert.match(
      readFileSync(join(cwd, "my/file/cache", stored[0]!), "utf8"),
      /\/aasx\/files\/manual\.pdf.*%PDF-1\.4 manual/s,
    );
    assert.equal(readFileSync(join(cwd, "my/initial/data/aasx/files/manual.pdf"), "utf8"), "%PDF-1.4 manual");
  });
});
