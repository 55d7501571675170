/**
 * MQTT publishing to a secured broker, black-box, in either mode: mosquitto with a password file
 * (anonymous refused) and a TLS listener that requires a client certificate from our test CA.
 * Twinport connects as FA³ST's MessageBusMqtt does: a PKCS#12 client key store (clientCertificate)
 * that also holds the broker's certificate to trust, TLS on sslPort, username and password.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connectAsync } from "mqtt";
import { b64, createHttpClient, type HttpClient } from "../test-support/http-client.ts";
import {
  type Certified,
  opensslCertificate,
  opensslIssuedCertificate,
  opensslPkcs12,
} from "../test-support/openssl-keystores.ts";
import {
  freePort,
  type RunningMosquitto,
  type RunningServer,
  startMosquitto,
  startNats,
  startRedis,
} from "../test-support/servers.ts";
import { findCertificate, type Mode, startTwinport, type TwinportProcess } from "../test-support/system.ts";
import { type EventSubscriber, subscribeEvents } from "./mqtt-subscriber.ts";

const FAAAST = "de.fraunhofer.iosb.ilt.faaast.service";
const PREFIX = "secured/events/";
const USERS = { twinport: "publisher-secret", consumer: "consumer-secret" };

export function mqttSecuredSuite(mode: Mode): void {
  let redis: RunningServer | undefined;
  let nats: RunningServer | undefined;
  let broker: RunningMosquitto;
  let subscriber: EventSubscriber;
  let http: HttpClient;
  const processes: TwinportProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), "twinport-mqtt-secured-"));

  before(async () => {
    const ca = opensslCertificate(dir, "mqtt-test-ca", "rsa", { ca: true });
    const client = opensslIssuedCertificate(dir, "twinport-publisher", ca);
    broker = await startMosquitto({ users: USERS, tls: true, clientCaFile: ca.certFile });
    // The broker's self-signed certificate, trusted through the client key store as FA³ST does.
    const brokerCertFile = join(dir, "broker.cert.pem");
    writeFileSync(brokerCertFile, broker.certificate!);
    const brokerCert = { cert: broker.certificate!, certFile: brokerCertFile } as Certified;
    const keyStore = opensslPkcs12(join(dir, "client.p12"), client, {
      storePassword: "changeit",
      extraCertificates: [brokerCert],
    });
    subscriber = await subscribeEvents(broker.url, PREFIX, { username: "consumer", password: USERS.consumer });
    const publishing = {
      host: "127.0.0.1",
      sslPort: broker.tlsPort,
      username: "twinport",
      password: USERS.twinport,
      clientCertificate: { keyStoreType: "PKCS12", keyStorePath: keyStore, keyStorePassword: "changeit" },
      topicPrefix: PREFIX,
    };
    const httpPort = await freePort();
    const endpoints = [
      { "@class": `${FAAAST}.endpoint.http.HttpEndpoint`, port: httpPort, host: "127.0.0.1", sslEnabled: true },
    ];
    let config: Record<string, unknown>;
    if (mode === "embedded") {
      config = {
        endpoints,
        messageBus: { "@class": `${FAAAST}.messagebus.mqtt.MessageBusMqtt`, useInternalServer: false, ...publishing },
      };
    } else {
      redis = await startRedis();
      nats = await startNats();
      config = {
        endpoints,
        persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
        messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url, mqtt: publishing },
      };
    }
    const start = async (role: "embedded" | "model-store" | "http-gateway") => {
      const cwd = mkdtempSync(join(dir, `${role}-`));
      writeFileSync(join(cwd, "config.json"), JSON.stringify(config));
      const engine = role !== "http-gateway";
      processes.push(
        await startTwinport({ role, cwd, args: ["-c", "config.json", ...(engine ? ["--empty-model"] : [])] }),
      );
      return cwd;
    };
    let httpDir: string;
    if (mode === "embedded") httpDir = await start("embedded");
    else {
      await start("model-store");
      httpDir = await start("http-gateway");
    }
    http = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(httpDir) });
  });

  after(async () => {
    http?.close();
    await subscriber?.close().catch(() => undefined);
    await Promise.all(processes.map((p) => p.stop()));
    await broker?.stop();
    await nats?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the broker refuses a client without a certificate, and anonymous ones", async () => {
    await assert.rejects(
      connectAsync(broker.tlsUrl!, {
        username: "twinport",
        password: USERS.twinport,
        ca: broker.certificate!,
        reconnectPeriod: 0,
        connectTimeout: 5000,
      }),
    );
    await assert.rejects(connectAsync(broker.url, { reconnectPeriod: 0, connectTimeout: 5000 }));
  });

  test("changes are published over TLS with the client certificate and the password", async () => {
    const submodelId = `urn:test:mqtt:secured:${randomUUID()}`;
    const from = subscriber.messages.length;
    const created = await http.request("POST", "/submodels", {
      body: JSON.stringify({
        modelType: "Submodel",
        id: submodelId,
        submodelElements: [{ modelType: "Property", idShort: "On", valueType: "xs:boolean", value: "false" }],
      }),
    });
    assert.equal(created.status, 201, created.text);
    const patched = await http.request("PATCH", `/submodels/${b64(submodelId)}/submodel-elements/On/$value`, {
      body: JSON.stringify("true"),
    });
    assert.equal(patched.status, 204, patched.text);
    const [create, change] = await subscriber.waitFor(2, from, 20_000);
    assert.equal(create!.topic, `${PREFIX}ElementCreateEventMessage`);
    assert.equal(create!.body.value.id, submodelId);
    assert.equal(change!.topic, `${PREFIX}ValueChangeEventMessage`);
    assert.deepEqual(change!.body.newValue, { modelType: "Property", dataType: "xs:boolean", value: true });
    assert.equal(change!.seq, create!.seq + 1);
  });
}
