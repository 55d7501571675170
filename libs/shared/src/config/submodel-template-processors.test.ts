import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError } from "./config-error.ts";
import { loadConfig } from "./load-config.ts";
import { AIMC_PROCESSOR_CLASS, derivedAssetConnection } from "./submodel-template-processors.ts";
import { validateConfig, validateConfigWithWarnings } from "./validate-config.ts";

const FAAAST_CLASS = "de.fraunhofer.iosb.ilt.faaast.service.submodeltemplate.aimc.AimcSubmodelTemplateProcessor";
const BASE = {
  persistence: { "@class": "persistence.memory.PersistenceInMemory" },
  messageBus: { "@class": "messagebus.internal.MessageBusInternal" },
  fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
};

const load = (...submodelTemplateProcessors: unknown[]) =>
  validateConfig({ ...BASE, submodelTemplateProcessors }).submodelTemplateProcessors;

function issues(...submodelTemplateProcessors: unknown[]): readonly string[] {
  try {
    load(...submodelTemplateProcessors);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.issues;
  }
  assert.fail("expected a ConfigError");
}

describe("submodelTemplateProcessors", () => {
  test("a second processor entry is named as ignored (only the first runs)", () => {
    const { warnings } = validateConfigWithWarnings({
      ...BASE,
      submodelTemplateProcessors: [{ "@class": FAAAST_CLASS }, { "@class": FAAAST_CLASS, subscriptionInterval: 50 }],
    });
    assert.ok(
      warnings.some((w) =>
        /Ignoring submodelTemplateProcessors\[1\.\.1\]: only the first processor entry is used/.test(w),
      ),
      warnings.join("\n"),
    );
  });

  test("FA³ST's full class name, its short suffix, defaults", () => {
    assert.deepEqual(load({ "@class": FAAAST_CLASS }), [
      { "@class": AIMC_PROCESSOR_CLASS, credentials: {}, opcuaSecurityBaseDir: {}, subscriptionInterval: 1000 },
    ]);
    assert.deepEqual(load({ "@class": AIMC_PROCESSOR_CLASS, subscriptionInterval: 250 })[0]!.subscriptionInterval, 250);
    // FA³ST's own test writes 0; FA³ST's HTTP subscription provider then polls at its floor of 100 ms.
    assert.equal(load({ "@class": AIMC_PROCESSOR_CLASS, subscriptionInterval: 0 })[0]!.subscriptionInterval, 0);
    assert.deepEqual(validateConfig(BASE).submodelTemplateProcessors, []);
  });

  test("FA³ST 1.3.0 credentials (and main's @class BasicCredentials), keyed by the exact base", () => {
    const [processor] = load({
      "@class": FAAAST_CLASS,
      credentials: {
        "http://myserver.example.com:8088": [{ username: "user1", password: "pw1" }],
        "mqtt://broker:1883": [
          { "@class": "de.fraunhofer.iosb.ilt.faaast.service.model.credentials.BasicCredentials", username: "u" },
        ],
      },
    });
    assert.deepEqual(processor!.credentials["http://myserver.example.com:8088"], [
      { username: "user1", password: "pw1" },
    ]);
    assert.deepEqual(processor!.credentials["mqtt://broker:1883"]![0], {
      "@class": "de.fraunhofer.iosb.ilt.faaast.service.model.credentials.BasicCredentials",
      username: "u",
      password: "",
    });
  });

  test("unknown keys, unknown classes and bad values are refused with their path", () => {
    assert.match(
      issues({ "@class": FAAAST_CLASS, subscriptionIntervall: 5 }).join("\n"),
      /Unknown key 'submodelTemplateProcessors\[0\]\.subscriptionIntervall'/,
    );
    assert.match(
      issues({ "@class": "submodeltemplate.foo.FooProcessor" }).join("\n"),
      /Unknown @class 'submodeltemplate\.foo\.FooProcessor'.*Known: submodeltemplate\.aimc\.AimcSubmodelTemplateProcessor/,
    );
    assert.match(issues({ "@class": FAAAST_CLASS, subscriptionInterval: -1 }).join("\n"), /subscriptionInterval/);
    assert.match(
      issues({ "@class": FAAAST_CLASS, credentials: { "http://h": [{ user: "x" }] } }).join("\n"),
      /credentials/,
    );
    assert.match(
      issues({
        "@class": FAAAST_CLASS,
        credentials: { "opc.tcp://h:4840": [{ "@class": "CertificateCredentials", username: "x" }] },
      }).join("\n"),
      /CertificateCredentials/,
    );
    // FA³ST main's CertificateCredentials (issue 18.7).
    const [withCertificate] = load({
      "@class": FAAAST_CLASS,
      credentials: {
        "https://h:8443": [
          {
            "@class": "de.fraunhofer.iosb.ilt.faaast.service.submodeltemplate.aimc.config.CertificateCredentials",
            authenticationCertificate: { keyStorePath: "client.p12", keyStorePassword: "changeit" },
          },
        ],
      },
    });
    assert.deepEqual(withCertificate!.credentials["https://h:8443"]![0], {
      "@class": "de.fraunhofer.iosb.ilt.faaast.service.submodeltemplate.aimc.config.CertificateCredentials",
      authenticationCertificate: { keyStoreType: "PKCS12", keyStorePath: "client.p12", keyStorePassword: "changeit" },
    });
  });

  test("command-line overrides reach the section like any other", () => {
    const { config } = loadConfig({
      role: "embedded",
      overrides: [
        `submodelTemplateProcessors.0.@class=${FAAAST_CLASS}`,
        "submodelTemplateProcessors.0.subscriptionInterval=500",
      ],
    });
    assert.equal(config.submodelTemplateProcessors[0]!.subscriptionInterval, 500);
  });
});

describe("derivedAssetConnection", () => {
  test("applies the defaults of hand-written connections", () => {
    const connection = derivedAssetConnection(
      {
        "@class": "assetconnection.http.HttpAssetConnection",
        baseUrl: "http://h:1",
        subscriptionProviders: { "(Submodel)s, (Property)p": { format: "JSON", path: "/p" } },
      },
      "AIMC x",
    ) as { headers: unknown; subscriptionProviders: Record<string, { interval: number; headers: unknown }> };
    assert.deepEqual(connection.headers, {});
    assert.equal(connection.subscriptionProviders["(Submodel)s, (Property)p"]!.interval, 1000);
  });

  test("an interval under 100 ms (FA³ST's subscriptionInterval 0) polls at FA³ST's floor of 100 ms", () => {
    const connection = derivedAssetConnection(
      {
        "@class": "assetconnection.http.HttpAssetConnection",
        baseUrl: "http://h:1",
        subscriptionProviders: { "(Submodel)s, (Property)p": { format: "JSON", path: "/p", interval: 0 } },
      },
      "AIMC x",
    ) as { subscriptionProviders: Record<string, { interval: number }> };
    assert.equal(connection.subscriptionProviders["(Submodel)s, (Property)p"]!.interval, 100);
  });

  test("a config the schema refuses is a ConfigError naming where it came from", () => {
    assert.throws(
      () =>
        derivedAssetConnection({ "@class": "assetconnection.http.HttpAssetConnection", baseUrl: "ftp://h" }, "AIMC x"),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /^AIMC x: baseUrl: /);
        return true;
      },
    );
  });
});
