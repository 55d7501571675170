/**
 * The shipped examples with security switched on (issue 13) load as each role would load them:
 * examples/config-container-secured.json with the overrides examples/compose-secured.yml sets, the
 * same file in the Kubernetes example, and the compose override mounting it into every service.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { loadConfig, type OpcUaEndpointConfig } from "@twinport/shared";

const at = (path: string) => new URL(`../${path}`, import.meta.url).pathname;
const SECURED = at("examples/config-container-secured.json");
const SERVICES = ["model-store", "http-gateway", "opcua-gateway"] as const;

test("the secured container configuration loads for every role, with the issuer and OPC UA users from the environment", () => {
  const env = {
    TWINPORT_SECURITY_AUTHENTICATION_BEARER_ISSUER: "https://login.example.com/realms/plant",
    TWINPORT_SECURITY_AUTHENTICATION_BEARER_AUDIENCE: "twinport-api",
    TWINPORT_ENDPOINTS_1_USERMAP: '{"line-operator":"a long password"}',
  };
  for (const role of SERVICES) {
    const { config, warnings } = loadConfig({ role, configFile: SECURED, env });
    assert.deepEqual(warnings, [], role);
    assert.equal(config.security?.authentication.bearer?.issuer, "https://login.example.com/realms/plant");
    assert.equal(config.security?.authentication.bearer?.audience, "twinport-api");
    assert.ok(config.security!.rules.length > 0);
    const opcua = config.endpoints.find((endpoint) => endpoint["@class"].endsWith("OpcUaEndpoint")) as OpcUaEndpointConfig;
    assert.deepEqual(opcua.supportedAuthentications, ["UserName"]);
    assert.deepEqual(opcua.userMap, { "line-operator": "a long password" });
  }
});

test("the Kubernetes example mounts the same configuration; the compose override mounts it into every Twinport service", () => {
  assert.deepEqual(JSON.parse(readFileSync(at("examples/k8s-secured/config.json"), "utf8")), JSON.parse(readFileSync(SECURED, "utf8")));
  const override = parse(readFileSync(at("examples/compose-secured.yml"), "utf8"), { merge: true }) as { services: Record<string, { volumes: string[]; environment: Record<string, string> }> };
  for (const service of SERVICES) {
    assert.ok(override.services[service]!.volumes.includes("./examples/config-container-secured.json:/etc/twinport/config.json:ro"), service);
    assert.match(override.services[service]!.environment.TWINPORT_SECURITY_AUTHENTICATION_BEARER_ISSUER!, /TWINPORT_ISSUER/);
  }
  assert.match(override.services["opcua-gateway"]!.environment.TWINPORT_ENDPOINTS_1_USERMAP!, /OPCUA_USERS/);
});
