/**
 * The shipped examples with security switched on (issue 13) load as each role would load them:
 * examples/config-container-secured.json with the overrides examples/compose-secured.yml sets, the
 * same file in the Kubernetes example, and the compose override mounting it into every service.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { loadConfig, type OpcUaEndpointConfig } from "@twinport/shared";
import { parse, parseAllDocuments } from "yaml";
import { toolBinary } from "./test-support/deployment-tools.ts";

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
    const opcua = config.endpoints.find((endpoint) =>
      endpoint["@class"].endsWith("OpcUaEndpoint"),
    ) as OpcUaEndpointConfig;
    assert.deepEqual(opcua.supportedAuthentications, ["UserName"]);
    assert.deepEqual(opcua.userMap, { "line-operator": "a long password" });
  }
});

test("without the OPC UA users the secured configuration still loads for the model-store and http-gateway (compose gives them to the opcua-gateway only), and the opcua-gateway refuses it naming the key", () => {
  const env = { TWINPORT_SECURITY_AUTHENTICATION_BEARER_ISSUER: "https://login.example.com/realms/plant" };
  for (const role of ["model-store", "http-gateway"] as const)
    assert.deepEqual(loadConfig({ role, configFile: SECURED, env }).warnings, [], role);
  assert.throws(
    () => loadConfig({ role: "opcua-gateway", configFile: SECURED, env }),
    /^ConfigError: Missing 'endpoints\[1\]\.userMap': supportedAuthentications lists UserName only/,
  );
});

test("the Kubernetes example mounts the same configuration; the compose override mounts it into every Twinport service", () => {
  assert.deepEqual(
    JSON.parse(readFileSync(at("examples/k8s-secured/config.json"), "utf8")),
    JSON.parse(readFileSync(SECURED, "utf8")),
  );
  const override = parse(readFileSync(at("examples/compose-secured.yml"), "utf8"), { merge: true }) as {
    services: Record<string, { volumes: string[]; environment: Record<string, string> }>;
  };
  for (const service of SERVICES) {
    assert.ok(
      override.services[service]!.volumes.includes(
        "./examples/config-container-secured.json:/etc/twinport/config.json:ro",
      ),
      service,
    );
    assert.match(
      override.services[service]!.environment.TWINPORT_SECURITY_AUTHENTICATION_BEARER_ISSUER!,
      /TWINPORT_ISSUER/,
    );
  }
  assert.match(override.services["opcua-gateway"]!.environment.TWINPORT_ENDPOINTS_1_USERMAP!, /OPCUA_USERS/);
});

test("docker-compose merges the override: each Twinport service mounts the secured configuration only, with the issuer set", () => {
  const env = {
    PATH: process.env.PATH ?? "",
    TWINPORT_ISSUER: "https://login.example.com/realms/plant",
    OPCUA_USERS: '{"line-operator":"secret"}',
  };
  const run = spawnSync(
    toolBinary("docker-compose"),
    ["-f", "docker-compose.yml", "-f", "examples/compose-secured.yml", "config"],
    { cwd: at(""), env, encoding: "utf8", timeout: 60_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const merged = parse(run.stdout) as {
    services: Record<string, { volumes: string[]; environment: Record<string, string> }>;
  };
  for (const service of SERVICES) {
    const configs = merged.services[service]!.volumes.filter((volume) => volume.includes(":/etc/twinport/config.json"));
    assert.equal(configs.length, 1, `${service}: ${configs.join(", ")}`);
    assert.match(configs[0]!, /examples\/config-container-secured\.json:\/etc\/twinport\/config\.json:ro$/);
    assert.equal(
      merged.services[service]!.environment.TWINPORT_SECURITY_AUTHENTICATION_BEARER_ISSUER,
      "https://login.example.com/realms/plant",
    );
  }
  assert.equal(
    merged.services["opcua-gateway"]!.environment.TWINPORT_ENDPOINTS_1_USERMAP,
    '{"line-operator":"secret"}',
  );
});

test("kubectl kustomize renders the Kubernetes example: the secured configuration, OPC UA users from the Secret", () => {
  const run = spawnSync(toolBinary("kubectl"), ["kustomize", at("examples/k8s-secured")], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const objects = parseAllDocuments(run.stdout).map(
    (doc) => doc.toJSON() as { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: any },
  );
  const config = objects.find(
    (object) => object.kind === "ConfigMap" && object.metadata.name.startsWith("twinport-config-"),
  )!;
  assert.deepEqual(JSON.parse(config.data!["config.json"]!), JSON.parse(readFileSync(SECURED, "utf8")));
  const opcua = objects.find((object) => object.kind === "Deployment" && object.metadata.name === "opcua-gateway")!;
  const users = opcua.spec.template.spec.containers[0].env.find(
    (entry: { name: string }) => entry.name === "TWINPORT_ENDPOINTS_1_USERMAP",
  );
  assert.deepEqual(users.valueFrom.secretKeyRef, { name: "opcua-users", key: "userMap" });
  for (const name of SERVICES) {
    const deployment = objects.find((object) => object.kind === "Deployment" && object.metadata.name === name)!;
    assert.ok(
      deployment.spec.template.spec.volumes.some(
        (volume: { configMap?: { name: string } }) => volume.configMap?.name === config.metadata.name,
      ),
      `${name} mounts ${config.metadata.name}`,
    );
  }
});
