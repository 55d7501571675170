import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { detectHost, interfaceBase } from "./interface-bases.ts";

const endpoint = (extra: Partial<Parameters<typeof interfaceBase>[0]> = {}) =>
  ({ host: "0.0.0.0", port: 8443, sslEnabled: true, profiles: [], ...extra }) as Parameters<typeof interfaceBase>[0];

describe("where descriptors point", () => {
  test("hostname replaces the host; scheme from sslEnabled; the port is kept unless it is the scheme's default", () => {
    assert.equal(
      interfaceBase(endpoint({ hostname: "twin.example.com" })).apiRoot,
      "https://twin.example.com:8443/api/v3.0",
    );
    assert.equal(
      interfaceBase(endpoint({ hostname: "twin.example.com", port: 443 })).apiRoot,
      "https://twin.example.com/api/v3.0",
    );
    assert.equal(
      interfaceBase(endpoint({ hostname: "twin.example.com", port: 80, sslEnabled: false })).apiRoot,
      "http://twin.example.com/api/v3.0",
    );
    assert.equal(interfaceBase(endpoint({ hostname: "fd00::1" })).apiRoot, "https://[fd00::1]:8443/api/v3.0");
  });

  test("a hostname with a scheme is the whole external base (reverse proxy), with /api/v3.0 added once", () => {
    assert.equal(
      interfaceBase(endpoint({ hostname: "https://proxy.example.com/twin" })).apiRoot,
      "https://proxy.example.com/twin/api/v3.0",
    );
    assert.equal(
      interfaceBase(endpoint({ hostname: "https://proxy.example.com/twin/api/v3.0/" })).apiRoot,
      "https://proxy.example.com/twin/api/v3.0",
    );
  });

  test("without hostname: a specific bind address, else a detected address, never loopback or 0.0.0.0", () => {
    assert.equal(interfaceBase(endpoint({ host: "10.1.2.3" })).apiRoot, "https://10.1.2.3:8443/api/v3.0");
    for (const host of ["0.0.0.0", "127.0.0.1", "::", "localhost"]) {
      const detected = detectHost(host);
      assert.ok(!["0.0.0.0", "127.0.0.1", "::", "localhost", "::1"].includes(detected), `${host} → ${detected}`);
    }
  });

  test("profiles decide which interfaces an endpoint offers", () => {
    assert.deepEqual([interfaceBase(endpoint()).servesShells, interfaceBase(endpoint()).servesSubmodels], [true, true]);
    const submodelOnly = interfaceBase(endpoint({ profiles: ["SUBMODEL_REPOSITORY_READ"] }));
    assert.deepEqual([submodelOnly.servesShells, submodelOnly.servesSubmodels], [false, true]);
    const shellsOnly = interfaceBase(endpoint({ profiles: ["AAS_REPOSITORY_FULL", "DISCOVERY_FULL"] }));
    assert.deepEqual([shellsOnly.servesShells, shellsOnly.servesSubmodels], [true, false]);
  });
});
