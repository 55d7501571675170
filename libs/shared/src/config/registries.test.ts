import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ConfigError, loadConfig, registryApiRoot } from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "twinport-registries-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;
function load(core: unknown, overrides: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const file = join(dir, `config-${count++}.json`);
  writeFileSync(file, JSON.stringify({ core }));
  return loadConfig({ role: "embedded", configFile: file, overrides, env }).config.core;
}
function refused(core: unknown): string {
  try {
    load(core);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail("expected a ConfigError");
}

describe("registry API root", () => {
  test("FA³ST 1.3.0 style (no prefix) gets /api/v3.0; FA³ST main style (with prefix) is kept; paths survive", () => {
    assert.equal(registryApiRoot("http://reg:8080"), "http://reg:8080/api/v3.0/");
    assert.equal(registryApiRoot("http://reg:8080/"), "http://reg:8080/api/v3.0/");
    assert.equal(registryApiRoot("https://h/registry"), "https://h/registry/api/v3.0/");
    assert.equal(registryApiRoot("https://h/registry/api/v3.0"), "https://h/registry/api/v3.0/");
    assert.equal(registryApiRoot("https://h/api/v3.0/"), "https://h/api/v3.0/");
    assert.equal(registryApiRoot("https://h/api/v3.1"), "https://h/api/v3.1/");
  });
});

describe("core.aasRegistries / submodelRegistries / registrySynchronization", () => {
  test("defaults: no registries, FA³ST's unregister on shutdown", () => {
    const core = load({});
    assert.deepEqual(core.aasRegistries, []);
    assert.deepEqual(core.submodelRegistries, []);
    assert.deepEqual(core.registrySynchronization, {
      retryMinDelay: 1000,
      retryMaxDelay: 60_000,
      requestTimeout: 10_000,
      reconcileInterval: 300_000,
      unregisterOnShutdown: true,
      shutdownTimeout: 3000,
    });
  });

  test("plain URLs (FA³ST) and objects with their own headers, several of each", () => {
    const core = load({
      aasRegistries: ["http://a:8080", { url: "https://b/reg/api/v3.0", headers: { Authorization: "Bearer b" } }],
      submodelRegistries: ["http://s:8081/"],
      registrySynchronization: {
        auth: { header: { name: "X-Api-Key", value: "k" } },
        retryMinDelay: 50,
        retryMaxDelay: 500,
        unregisterOnShutdown: false,
      },
    });
    assert.deepEqual(core.aasRegistries, [
      { url: "http://a:8080", apiRoot: "http://a:8080/api/v3.0/", headers: {} },
      { url: "https://b/reg/api/v3.0", apiRoot: "https://b/reg/api/v3.0/", headers: { Authorization: "Bearer b" } },
    ]);
    assert.deepEqual(core.submodelRegistries, [
      { url: "http://s:8081/", apiRoot: "http://s:8081/api/v3.0/", headers: {} },
    ]);
    assert.deepEqual((core.registrySynchronization as { auth?: unknown }).auth, {
      header: { name: "X-Api-Key", value: "k" },
    });
    assert.equal(core.registrySynchronization.retryMinDelay, 50);
    assert.equal(core.registrySynchronization.unregisterOnShutdown, false);
    assert.equal(core.registrySynchronization.requestTimeout, 10_000);
  });

  test("command line and environment set the lists as JSON", () => {
    const core = load({}, ['core.aasRegistries=["http://cli:1"]'], {
      TWINPORT_CORE_SUBMODELREGISTRIES: '["http://env:2/api/v3.0"]',
    });
    assert.equal(core.aasRegistries[0]!.apiRoot, "http://cli:1/api/v3.0/");
    assert.equal(core.submodelRegistries[0]!.apiRoot, "http://env:2/api/v3.0/");
  });

  test("refused: unknown keys, non-HTTP URLs, header injection, inverted retry bounds", () => {
    assert.match(refused({ aasRegistries: [{ url: "http://a", header: {} }] }), /aasRegistries/);
    assert.match(refused({ registrySynchronization: { retry: 1 } }), /registrySynchronization/);
    assert.match(refused({ aasRegistries: ["ftp://a"] }), /aasRegistries/);
    assert.match(refused({ submodelRegistries: ["not a url"] }), /submodelRegistries/);
    assert.match(refused({ aasRegistries: [{ url: "http://a", headers: { "Bad Name": "x" } }] }), /headers\.Bad Name/);
    assert.match(
      refused({ registrySynchronization: { auth: { header: { name: "A", value: "x\r\nHost: evil" } } } }),
      /line breaks/,
    );
    assert.match(refused({ registrySynchronization: { retryMinDelay: 500, retryMaxDelay: 100 } }), /retryMaxDelay/);
    assert.match(
      refused({ registrySynchronization: { auth: { header: { name: "Bad Name", value: "x" } } } }),
      /auth\.header\.name/,
    );
  });

  test("an auth header is sent only when both name and value are set (FA³ST): empty, null or half-set auth is none", () => {
    for (const auth of [
      {},
      null,
      { header: null },
      { header: { name: "Authorization" } },
      { header: { name: "", value: "" } },
      { header: { name: "Authorization", value: "" } },
      { header: { name: "Authorization", value: null } },
      { header: { name: "  ", value: "Bearer x" } },
    ])
      assert.equal(
        (load({ registrySynchronization: { auth } }).registrySynchronization as { auth?: unknown }).auth,
        undefined,
        JSON.stringify(auth),
      );
  });
});
