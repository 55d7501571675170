import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  connectNats,
  createEngine,
  createMemoryRepository,
  createNatsEventBus,
  createNatsStoreClient,
  loadConfig,
  type NatsConnection,
  type OpcUaEndpointConfig,
  serveCommandsOverNats,
} from "@twinport/shared";
import { connectOpcua, type OpcuaTestClient } from "../../../../tests/test-support/opcua-client.ts";
import { elementNode, opcuaTestEnvironment, VALUES_SUBMODEL } from "../../../../tests/test-support/opcua-model.ts";
import { freePort, type RunningServer, startNats } from "../../../../tests/test-support/servers.ts";
import { type RunningOpcuaGateway, startOpcuaGateway } from "../index.ts";

// Distributed wiring (NATS store client and event bus) against a real nats-server that restarts:
// whatever happened while the gateway was cut off, the reconnect makes it resync from the store.

const dir = mkdtempSync(join(tmpdir(), "twinport-opcua-nats-"));
const cleanup: (() => Promise<unknown>)[] = [];

after(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

test("after a NATS reconnect the gateway resyncs and shows changes it never got an event for", async () => {
  let nats: RunningServer = await startNats();
  cleanup.push(() => nats.stop());
  const connections: NatsConnection[] = [];
  const quiet = () => undefined;
  const storeSide = await connectNats({ url: nats.url, name: "model-store", onChange: quiet });
  const gatewaySide = await connectNats({ url: nats.url, name: "opcua-gateway", onChange: quiet });
  connections.push(storeSide, gatewaySide);
  cleanup.push(async () => Promise.all(connections.map((connection) => connection.close())));
  // The store publishes no events at all: only a resync can bring its changes to the gateway.
  const engine = createEngine({ repository: createMemoryRepository() });
  cleanup.push(() => engine.close());
  const responder = await serveCommandsOverNats({ connection: storeSide, handler: engine });
  cleanup.push(() => responder.close());
  const loaded = await engine.execute({
    type: "LoadEnvironment",
    params: { body: JSON.stringify(opcuaTestEnvironment()) },
  });
  assert.ok(loaded.ok);

  const store = createNatsStoreClient({ connection: gatewaySide, requestTimeoutMs: 5000 });
  const bus = createNatsEventBus({ connection: gatewaySide, onSubscriberError: quiet });
  const port = await freePort();
  const { config } = loadConfig({
    role: "opcua-gateway",
    endpointKinds: ["opcua"],
    overrides: [
      `endpoints[0].tcpPort=${port}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].hostname=127.0.0.1",
      "endpoints[0].secondsTillShutdown=0",
      `endpoints[0].serverCertificateBasePath=${join(dir, "PKI", "CA")}`,
      `endpoints[0].userCertificateBasePath=${join(dir, "USERS_PKI", "CA")}`,
    ],
  });
  const log: string[] = [];
  const gateway: RunningOpcuaGateway = await startOpcuaGateway({
    store,
    bus,
    endpoint: config.endpoints[0] as OpcUaEndpointConfig,
    stateDir: dir,
    log: (line) => log.push(line),
  });
  cleanup.push(() => gateway.stop());
  const opcua: OpcuaTestClient = await connectOpcua(gateway.endpointUrl, dir);
  cleanup.push(() => opcua.close());
  const value = elementNode(VALUES_SUBMODEL, "TInt", "Value");
  assert.equal((await opcua.read(value)).value.value, 5000);

  const patched = await engine.execute({
    type: "PatchSubmodelElementValueByPath",
    params: { submodelId: VALUES_SUBMODEL, idShortPath: "TInt", body: "1234" },
  });
  assert.ok(patched.ok);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal((await opcua.read(value)).value.value, 5000, "no event, no change yet");

  await nats.stop();
  nats = await startNats({ port: nats.port });
  const until = Date.now() + 15_000;
  while ((await opcua.read(value)).value.value !== 1234) {
    assert.ok(Date.now() < until, `no resync after the reconnect; log:\n${log.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(
    log.some((line) => line.includes("resync (the message bus reconnected)")),
    log.join("\n"),
  );
});
