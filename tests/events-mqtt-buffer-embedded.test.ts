/**
 * Embedded mode on memory has no event log: while the broker is away, change events wait in memory,
 * at most messageBus.maxBufferedEvents. Past that bound the newer ones are not published, and the log
 * names them (docs/events-mqtt.md). Distributed mode has no such bound: it reads the event log.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type EventSubscriber, subscribeEvents } from "./events/mqtt-subscriber.ts";
import { eventually } from "./test-support/eventually.ts";
import { b64, createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { freePort, type RunningMosquitto, startMosquitto } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const PREFIX = "buffer/events/";
const SUBMODEL = "urn:test:mqtt:buffer";
let broker: RunningMosquitto;
let brokerPort: number;
let twinport: TwinportProcess;
let http: HttpClient;
let subscriber: EventSubscriber;
const dir = mkdtempSync(join(tmpdir(), "twinport-mqtt-buffer-"));
const brokerData = mkdtempSync(join(tmpdir(), "twinport-mqtt-buffer-broker-"));

before(async () => {
  brokerPort = await freePort();
  broker = await startMosquitto({ port: brokerPort, persistenceDir: brokerData });
  subscriber = await subscribeEvents(broker.url, PREFIX, { clientId: "buffer-consumer", clean: false });
  const httpPort = await freePort();
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
      messageBus: {
        "@class": "messagebus.mqtt.MessageBusMqtt",
        useInternalServer: false,
        host: "127.0.0.1",
        port: brokerPort,
        topicPrefix: PREFIX,
        maxBufferedEvents: 3,
      },
    }),
  );
  twinport = await startTwinport({ role: "embedded", cwd: dir, args: ["-c", "config.json", "--empty-model"] });
  http = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dir) });
});

after(async () => {
  http?.close();
  await subscriber?.close().catch(() => undefined);
  await twinport?.stop();
  await broker?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(brokerData, { recursive: true, force: true });
});

const setCount = async (value: number) => {
  const response = await http.request("PATCH", `/submodels/${b64(SUBMODEL)}/submodel-elements/Count/$value`, {
    body: JSON.stringify(String(value)),
  });
  assert.equal(response.status, 204, response.text);
};

test("past maxBufferedEvents the newer events are dropped and the log says which; publishing resumes", async () => {
  const created = await http.request("POST", "/submodels", {
    body: JSON.stringify({
      modelType: "Submodel",
      id: SUBMODEL,
      submodelElements: [{ modelType: "Property", idShort: "Count", valueType: "xs:int", value: "0" }],
    }),
  });
  assert.equal(created.status, 201, created.text);
  await subscriber.waitFor(1);
  await broker.stop();
  for (let i = 1; i <= 5; i++) await setCount(i);
  broker = await startMosquitto({ port: brokerPort, persistenceDir: brokerData });
  const held = await subscriber.waitFor(3, 1, 30_000);
  assert.deepEqual(
    held.map((m) => m.body.newValue.value),
    [1, 2, 3],
  );
  await setCount(6);
  const [resumed] = await subscriber.waitFor(1, 4, 15_000);
  assert.equal(resumed!.body.newValue.value, 6);
  // Nothing of 4 and 5 came (a broker may repeat what it had in flight, never what it never got).
  assert.deepEqual([...new Set(subscriber.messages.slice(1).map((m) => m.body.newValue.value))], [1, 2, 3, 6]);
  const log = await eventually(
    () => readFileSync(twinport.logFile, "utf8") + readFileSync(join(dir, "embedded.out"), "utf8"),
    (text) => /events seq (\d+)\.\.(\d+) were not published/.test(text),
    "the log line naming the dropped events",
  );
  const [, from, to] = /events seq (\d+)\.\.(\d+) were not published/.exec(log)!;
  assert.equal(Number(to) - Number(from), 1, "two events (4 and 5) were dropped");
  assert.equal(Number(from), held[2]!.seq + 1);
});
