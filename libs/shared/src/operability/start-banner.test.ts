import assert from "node:assert/strict";
import { test } from "node:test";
import { renderStartBanner } from "./start-banner.ts";

test("the banner is one block: a label column, every URL, the counts, where certificates live, open or secured", () => {
  const text = renderStartBanner({
    role: "embedded",
    mode: "embedded: every part in one process (memory store, in-process bus)",
    http: [
      {
        url: "https://127.0.0.1:8443/api/v3.0",
        extras: [{ label: "Swagger UI", url: "https://127.0.0.1:8443/api/v3.0/swagger-ui/" }],
        certificate: "/srv/.twinport/https-self-signed-cert.pem (self-signed)",
      },
    ],
    opcua: [
      {
        url: "opc.tcp://127.0.0.1:4840",
        securityPolicies: ["NONE", "BASIC256SHA256"],
        authentications: ["Anonymous"],
        pki: "/srv/.twinport/PKI/CA",
        userPki: "/srv/.twinport/USERS_PKI/CA",
      },
    ],
    management: "http://127.0.0.1:9464",
    model: { files: ["examples/model.json"], shells: 3, submodels: 6, elements: 12_345, conceptDescriptions: 1 },
    security: "OPEN: no security section",
    stateDir: "/srv/.twinport",
    files: "memory (lost when the process stops, as the model)",
  });
  const lines = text.split("\n");
  assert.match(lines[0]!, /^─+$/);
  assert.deepEqual(lines.slice(1, -2), [
    " Twinport      embedded: every part in one process (memory store, in-process bus)",
    " HTTP API      https://127.0.0.1:8443/api/v3.0",
    "   Swagger UI  https://127.0.0.1:8443/api/v3.0/swagger-ui/",
    " OPC UA        opc.tcp://127.0.0.1:4840",
    "   policies    NONE, BASIC256SHA256",
    "   logins      Anonymous",
    " Management    http://127.0.0.1:9464  (/health /ready /metrics)",
    " Model         3 shells, 6 submodels, 12,345 elements, 1 concept description  (examples/model.json)",
    " HTTPS cert    /srv/.twinport/https-self-signed-cert.pem (self-signed)",
    " OPC UA PKI    /srv/.twinport/PKI/CA",
    "   user PKI    /srv/.twinport/USERS_PKI/CA",
    " Files         memory (lost when the process stops, as the model)",
    " State         /srv/.twinport",
    " Security      OPEN: no security section",
  ]);
});
