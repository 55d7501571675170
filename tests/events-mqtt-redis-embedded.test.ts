/**
 * Embedded mode on Redis publishes from the event log, like the model-store: what was committed
 * while the broker was away is published even after the process itself restarted, from the position
 * saved in Redis (docs/events-mqtt.md, Delivery).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type EventSubscriber, subscribeEvents } from "./events/mqtt-subscriber.ts";
import { b64, createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import {
  freePort,
  type RunningMosquitto,
  type RunningServer,
  startMosquitto,
  startRedis,
} from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const PREFIX = "redis/events/";
const SUBMODEL = "urn:test:mqtt:embedded-redis";
let redis: RunningServer;
let broker: RunningMosquitto;
let brokerPort: number;
let httpPort: number;
let twinport: TwinportProcess;
let http: HttpClient;
let subscriber: EventSubscriber;
const dir = mkdtempSync(join(tmpdir(), "twinport-mqtt-redis-"));
const brokerData = mkdtempSync(join(tmpdir(), "twinport-mqtt-redis-broker-"));

const start = async () => {
  twinport = await startTwinport({ role: "embedded", cwd: dir, args: ["-c", "config.json", "--empty-model"] });
  http?.close();
  http = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dir) });
};

before(async () => {
  redis = await startRedis();
  brokerPort = await freePort();
  httpPort = await freePort();
  broker = await startMosquitto({ port: brokerPort, persistenceDir: brokerData });
  subscriber = await subscribeEvents(broker.url, PREFIX, { clientId: "redis-consumer", clean: false });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
      persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
      messageBus: {
        "@class": "messagebus.mqtt.MessageBusMqtt",
        useInternalServer: false,
        host: "127.0.0.1",
        port: brokerPort,
        topicPrefix: PREFIX,
      },
    }),
  );
  await start();
});

after(async () => {
  http?.close();
  await subscriber?.close().catch(() => undefined);
  await twinport?.stop();
  await broker?.stop();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(brokerData, { recursive: true, force: true });
});

test("events committed while the broker was down are published after the process restarted", async () => {
  const created = await http.request("POST", "/submodels", {
    body: JSON.stringify({
      modelType: "Submodel",
      id: SUBMODEL,
      submodelElements: [{ modelType: "Property", idShort: "Count", valueType: "xs:int", value: "0" }],
    }),
  });
  assert.equal(created.status, 201, created.text);
  const [first] = await subscriber.waitFor(1);
  await broker.stop();
  for (let i = 1; i <= 3; i++) {
    const response = await http.request("PATCH", `/submodels/${b64(SUBMODEL)}/submodel-elements/Count/$value`, {
      body: JSON.stringify(String(i)),
    });
    assert.equal(response.status, 204, response.text);
  }
  await twinport.stop();
  broker = await startMosquitto({ port: brokerPort, persistenceDir: brokerData });
  await start();
  const messages = await subscriber.waitFor(3, 1, 30_000);
  assert.deepEqual(
    messages.map((m) => [m.seq, m.body.newValue.value]),
    [1, 2, 3].map((value) => [first!.seq + value, value]),
  );
});
