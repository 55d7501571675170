import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type RegistryServer, startRegistryServer } from "./registry-server.ts";

const b64 = (id: string) => Buffer.from(id).toString("base64url");
const AAS_ID = "https://example.com/ids/aas/pump-1";
const SM_ID = "https://example.com/ids/sm/nameplate-1";
const endpoint = (iface: string, path: string) => ({
  interface: iface,
  protocolInformation: {
    href: `https://twin.example.com:8443/api/v3.0/${path}`,
    endpointProtocol: "HTTP",
    endpointProtocolVersion: ["1.1"],
  },
});
const submodelDescriptor = {
  id: SM_ID,
  idShort: "Nameplate",
  semanticId: {
    type: "ExternalReference",
    keys: [{ type: "GlobalReference", value: "https://admin-shell.io/idta/nameplate/3/0/Nameplate" }],
  },
  endpoints: [endpoint("SUBMODEL-3.0", `submodels/${b64(SM_ID)}`)],
};
const shellDescriptor = {
  id: AAS_ID,
  idShort: "Pump1",
  assetKind: "Instance",
  globalAssetId: "https://example.com/assets/pump-1",
  endpoints: [endpoint("AAS-3.0", `shells/${b64(AAS_ID)}`)],
  submodelDescriptors: [submodelDescriptor],
};

let registry: RegistryServer;
before(async () => {
  registry = await startRegistryServer();
});
after(() => registry.stop());

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown; location: string | null }> {
  const response = await fetch(`${registry.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text ? JSON.parse(text) : undefined,
    location: response.headers.get("location"),
  };
}

describe("registry test server", () => {
  test("a correct shell descriptor: 201 + Location, then 409, GET 200, PUT 204, DELETE 204, then 404s", async () => {
    const posted = await call("POST", "/shell-descriptors", shellDescriptor);
    assert.equal(posted.status, 201, JSON.stringify(posted.json));
    assert.equal(posted.location, `/api/v3.0/shell-descriptors/${b64(AAS_ID)}`);
    assert.equal((await call("POST", "/shell-descriptors", shellDescriptor)).status, 409);
    assert.deepEqual((await call("GET", `/shell-descriptors/${b64(AAS_ID)}`)).json, shellDescriptor);
    assert.equal(
      (await call("PUT", `/shell-descriptors/${b64(AAS_ID)}`, { ...shellDescriptor, idShort: "Pump2" })).status,
      204,
    );
    assert.equal(registry.shells.get(AAS_ID)!.idShort, "Pump2");
    // Padded ids (FA³ST sends them) are accepted too.
    assert.equal((await call("GET", `/shell-descriptors/${b64(AAS_ID)}==`)).status, 200);
    assert.equal(
      (await call("GET", `/shell-descriptors/${b64(AAS_ID)}/submodel-descriptors/${b64(SM_ID)}`)).status,
      200,
    );
    assert.equal((await call("DELETE", `/shell-descriptors/${b64(AAS_ID)}`)).status, 204);
    assert.equal((await call("DELETE", `/shell-descriptors/${b64(AAS_ID)}`)).status, 404);
    assert.equal((await call("PUT", `/shell-descriptors/${b64(AAS_ID)}`, shellDescriptor)).status, 404);
    assert.equal((await call("GET", `/shell-descriptors/${b64(AAS_ID)}`)).status, 404);
  });

  test('schema violations answer 400 with a Result: "assetKind":"INSTANCE", FA³ST 1.3.0 reference types, a submodel descriptor without endpoints', async () => {
    for (const bad of [
      { ...shellDescriptor, assetKind: "INSTANCE" },
      {
        ...shellDescriptor,
        submodelDescriptors: [
          {
            ...submodelDescriptor,
            semanticId: { type: "EXTERNAL_REFERENCE", keys: [{ type: "GLOBAL_REFERENCE", value: "x" }] },
          },
        ],
      },
      { ...shellDescriptor, submodelDescriptors: [{ id: SM_ID }] },
      { ...shellDescriptor, endpoints: [] },
    ]) {
      const answer = await call("POST", "/shell-descriptors", bad);
      assert.equal(answer.status, 400);
      const messages = (answer.json as { messages: { text: string }[] }).messages;
      assert.ok(messages.length > 0 && messages.every((m) => typeof m.text === "string"));
    }
    assert.match(
      JSON.stringify((await call("POST", "/shell-descriptors", { ...shellDescriptor, assetKind: "INSTANCE" })).json),
      /assetKind/,
    );
    assert.equal(
      (
        await call("POST", "/submodel-descriptors", {
          id: SM_ID,
          endpoints: [
            { interface: "SUBMODEL-3.0", protocolInformation: { href: "x", endpointProtocolVersion: "1.1" } },
          ],
        })
      ).status,
      400,
    );
    assert.equal(registry.shells.size, 0);
  });

  test("submodel registry: 201/409/204/404; a PUT whose body names another id is a 400", async () => {
    assert.equal((await call("POST", "/submodel-descriptors", submodelDescriptor)).status, 201);
    assert.equal((await call("POST", "/submodel-descriptors", submodelDescriptor)).status, 409);
    assert.equal(
      (await call("PUT", `/submodel-descriptors/${b64(SM_ID)}`, { ...submodelDescriptor, id: "other" })).status,
      400,
    );
    assert.equal((await call("PUT", `/submodel-descriptors/${b64(SM_ID)}`, submodelDescriptor)).status, 204);
    assert.equal((await call("DELETE", `/submodel-descriptors/${b64(SM_ID)}`)).status, 204);
    assert.equal((await call("DELETE", `/submodel-descriptors/${b64(SM_ID)}`)).status, 404);
  });

  test("records requests; 500 on demand; stop and start on the same port keep the state", async () => {
    registry.clear();
    registry.behaviour = "fail-500";
    assert.equal((await call("POST", "/submodel-descriptors", submodelDescriptor)).status, 500);
    registry.behaviour = "normal";
    assert.equal((await call("POST", "/submodel-descriptors", submodelDescriptor)).status, 201);
    assert.deepEqual(
      registry.requests.map((r) => [r.method, r.path, r.status]),
      [
        ["POST", "/submodel-descriptors", 500],
        ["POST", "/submodel-descriptors", 201],
      ],
    );
    assert.deepEqual(registry.requests[1]!.body, submodelDescriptor);
    const port = registry.port;
    await registry.stop();
    await assert.rejects(call("GET", "/submodel-descriptors"));
    await registry.start();
    assert.equal(registry.port, port);
    assert.equal((await call("GET", `/submodel-descriptors/${b64(SM_ID)}`)).status, 200);
  });

  test("hang: the request is never answered until the server stops", async () => {
    registry.behaviour = "hang";
    const pending = call("GET", "/submodel-descriptors").then(
      () => "answered",
      () => "failed",
    );
    const raced = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve("pending"), 300))]);
    assert.equal(raced, "pending");
    registry.behaviour = "normal";
    await registry.stop();
    assert.equal(await pending, "failed");
    await registry.start();
  });

  test("a required header is enforced", async () => {
    const guarded = await startRegistryServer({
      requiredHeader: { name: "Authorization", value: "Bearer t" },
      prefix: "/registry/api/v3.0",
    });
    try {
      assert.equal((await fetch(`${guarded.url}/submodel-descriptors`)).status, 401);
      assert.equal(
        (await fetch(`${guarded.url}/submodel-descriptors`, { headers: { authorization: "Bearer t" } })).status,
        200,
      );
    } finally {
      await guarded.stop();
    }
  });
});
