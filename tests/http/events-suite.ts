/**
 * Black-box suite of GET /api/v3.0/events (issue 15, docs/events.md), embedded and distributed,
 * with a real EventSource client: writes over HTTP and OPC UA followed in seq order; filters;
 * resume with Last-Event-ID without gap or duplicate across restarts (distributed: an http-gateway
 * and the model-store; embedded with a memory store: the seq starts again, so the stream says
 * `reset`); retention; heartbeats; overflow of a slow client; the end of streams on SIGTERM; the
 * access rules.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DataType } from "node-opcua";
import { b64 } from "../test-support/http-client.ts";
import { connectOpcua } from "../test-support/opcua-client.ts";
import { elementNode } from "../test-support/opcua-model.ts";
import { signingKeys, startOpenIdProvider, TWINPORT_AUDIENCE } from "../test-support/openid-provider.ts";
import type { Mode } from "../test-support/system.ts";
import { follow, openRaw, openSlowReader, parseEvents, type StreamEvent, waitUntil } from "./events-client.ts";
import { type EventsSystem, startEventsSystem } from "./events-system.ts";

const SHELL = "urn:events:aas:1";
const SENSORS = "urn:events:sm:sensors";
const OTHER = "urn:events:sm:other";
const reference = (value: string) => ({ type: "ExternalReference", keys: [{ type: "GlobalReference", value }] });
const property = (idShort: string, valueType: string, value: string, extra: Record<string, unknown> = {}) => ({
  modelType: "Property",
  idShort,
  valueType,
  value,
  ...extra,
});

function eventsModel() {
  return {
    assetAdministrationShells: [
      {
        modelType: "AssetAdministrationShell",
        id: SHELL,
        idShort: "Pump",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:events:asset:1" },
        submodels: [SENSORS, OTHER].map((id) => ({ type: "ModelReference", keys: [{ type: "Submodel", value: id }] })),
      },
    ],
    submodels: [
      {
        modelType: "Submodel",
        id: SENSORS,
        idShort: "Sensors",
        semanticId: reference("urn:events:sem:sensors"),
        submodelElements: [
          property("Temp", "xs:int", "20"),
          {
            modelType: "SubmodelElementCollection",
            idShort: "Group",
            value: [property("Inner", "xs:string", "a")],
          },
          property("GroupSuffix", "xs:string", "b"),
          property("Text", "xs:string", "x"),
          // No provider runs it: an invocation ends Failed, with its events all the same.
          {
            modelType: "Operation",
            idShort: "Calibrate",
            inputVariables: [{ value: property("Mode", "xs:string", "normal") }],
          },
        ],
      },
      {
        modelType: "Submodel",
        id: OTHER,
        idShort: "Other",
        semanticId: reference("urn:events:sem:other"),
        submodelElements: [
          property("Count", "xs:int", "0"),
          property("Special", "xs:int", "0", { semanticId: reference("urn:events:sem:special") }),
        ],
      },
    ],
  };
}

/** Small limits, so retention, heartbeats and overflow show within a test. */
const EVENTS_CONFIG = { retentionMaxEvents: 40, heartbeatIntervalMs: 250, maxBufferedBytes: 16_384, maxStreams: 12 };

const valueUrl = (submodelId: string, path: string) =>
  `/submodels/${b64(submodelId)}/submodel-elements/${encodeURIComponent(path)}/$value`;

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers };
}

async function patchValue(base: string, submodelId: string, path: string, value: string, headers = {}) {
  const response = await call(base, "PATCH", valueUrl(submodelId, path), value, headers);
  assert.equal(response.status, 204, response.text);
}

/** The events of a body that may have been cut in the middle of one: the complete ones. */
const completeEvents = (text: string) => parseEvents(text.slice(0, text.lastIndexOf("\n\n") + 2));

/** The change events (not reset/overflow/shutdown) of a list. */
const changes = (events: StreamEvent[]) => events.filter((e) => e.type.includes("."));

/** Seqs strictly one after another: no gap, no duplicate. */
function assertConsecutive(events: StreamEvent[], what: string): void {
  const seqs = changes(events).map((e) => Number(e.id));
  for (let i = 1; i < seqs.length; i++)
    assert.equal(seqs[i], seqs[i - 1]! + 1, `${what}: seq ${seqs[i]} follows ${seqs[i - 1]} (${seqs.join(",")})`);
  for (const event of changes(events)) assert.equal(event.data.seq, Number(event.id), "id is the seq");
}

export function eventsSuite(mode: Mode): void {
  describe(`event stream (GET /events), ${mode} mode`, () => {
    let system: EventsSystem;
    let dir: string;
    let api: string;
    /** Writes go through the other gateway in distributed mode: the stream must not depend on where they commit. */
    let writer: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "twinport-events-"));
      const model = join(dir, "events-model.json");
      writeFileSync(model, JSON.stringify(eventsModel()));
      system = await startEventsSystem(mode, { model, config: { events: EVENTS_CONFIG }, opcua: true });
      api = system.api[0]!;
      writer = system.api[system.api.length - 1]!;
    });
    after(async () => {
      await system?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("follows writes over HTTP and OPC UA in seq order, with ValueOnly values, elements and deletions", async () => {
      const follower = follow(`${api}/events`);
      try {
        await waitUntil(() => follower.opens === 1, "the stream to open");
        await patchValue(writer, SENSORS, "Temp", "21", { "X-Correlation-Id": "write-21" });
        const opcua = await connectOpcua(system.opcuaUrl!, join(dir, "opcua-client"));
        try {
          const status = await opcua.write(elementNode(SENSORS, "Temp", "Value"), {
            dataType: DataType.Int32,
            value: 22,
          });
          assert.equal(status.name, "Good");
        } finally {
          await opcua.close();
        }
        const created = await call(writer, "POST", `/submodels/${b64(SENSORS)}/submodel-elements`, {
          ...property("New", "xs:double", "1.5"),
        });
        assert.equal(created.status, 201, created.text);
        const deleted = await call(writer, "DELETE", `/submodels/${b64(SENSORS)}/submodel-elements/New`);
        assert.equal(deleted.status, 204, deleted.text);
        await follower.waitFor((events) => events.length >= 4, "four events");
        const [byHttp, byOpcua, creation, deletion] = follower.events;
        assert.deepEqual(
          follower.events.map((e) => e.type),
          ["element.value-changed", "element.value-changed", "element.created", "element.deleted"],
        );
        assertConsecutive(follower.events, "writes");
        assert.deepEqual(
          { ...byHttp!.data, time: undefined },
          {
            seq: Number(byHttp!.id),
            kind: "element.value-changed",
            id: SENSORS,
            idShortPath: "Temp",
            revision: Number(byHttp!.id),
            time: undefined,
            origin: "http",
            correlationId: "write-21",
            value: 21,
          },
        );
        assert.ok(Math.abs(Date.parse(byHttp!.data.time as string) - Date.now()) < 60_000, "time is the commit's");
        assert.equal(byOpcua!.data.origin, "opcua");
        assert.equal(byOpcua!.data.value, 22);
        assert.deepEqual(creation!.data.element, property("New", "xs:double", "1.5"));
        assert.equal(creation!.data.idShortPath, "New");
        assert.equal(deletion!.data.idShortPath, "New");
        assert.ok(!("element" in deletion!.data) && !("value" in deletion!.data) && !("href" in deletion!.data));
      } finally {
        follower.close();
      }
    });

    test("filters: kinds, id, semanticId (of the submodel, or of the element), idShortPath on whole segments", async () => {
      const semantic = (reference: unknown) => b64(JSON.stringify(reference));
      const streams = {
        shells: follow(`${api}/events?kinds=shell`),
        elementsOfOther: follow(`${api}/events?kinds=element,operation&id=${b64(OTHER)}`),
        sensorsBySemanticId: follow(`${api}/events?semanticId=${semantic(reference("urn:events:sem:sensors"))}`),
        // A bare key value (the 3.0 wording) matches the element's own semanticId.
        special: follow(`${api}/events?semanticId=${b64("urn:events:sem:special")}`),
        group: follow(`${api}/events?idShortPath=Group`),
      };
      try {
        for (const [name, stream] of Object.entries(streams))
          await waitUntil(() => stream.opens === 1, `${name} to open`);
        await patchValue(writer, SENSORS, "Temp", "30");
        await patchValue(writer, SENSORS, "Group.Inner", "b");
        await patchValue(writer, SENSORS, "GroupSuffix", "c");
        await patchValue(writer, OTHER, "Count", "1");
        await patchValue(writer, OTHER, "Special", "2");
        const shell = await call(writer, "GET", `/shells/${b64(SHELL)}`);
        const renamed = await call(writer, "PUT", `/shells/${b64(SHELL)}`, {
          ...JSON.parse(shell.text),
          idShort: "Pump2",
        });
        assert.equal(renamed.status, 204, renamed.text);
        // The shell update is the last write: every stream has seen what it will see once it is there.
        const last = async (name: keyof typeof streams, count: number) =>
          streams[name].waitFor((events) => events.length >= count, `${name}: ${count} events`);
        await last("shells", 1);
        await last("elementsOfOther", 2);
        await last("sensorsBySemanticId", 3);
        await last("special", 1);
        await last("group", 1);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const seen = (name: keyof typeof streams) =>
          streams[name].events.map((e) => `${e.type} ${e.data.idShortPath ?? e.data.id}`);
        assert.deepEqual(seen("shells"), [`shell.updated ${SHELL}`]);
        assert.equal((streams.shells.events[0]!.data.shell as { idShort: string }).idShort, "Pump2");
        assert.deepEqual(seen("elementsOfOther"), ["element.value-changed Count", "element.value-changed Special"]);
        assert.deepEqual(seen("sensorsBySemanticId"), [
          "element.value-changed Temp",
          "element.value-changed Group.Inner",
          "element.value-changed GroupSuffix",
        ]);
        assert.deepEqual(seen("special"), ["element.value-changed Special"]);
        assert.deepEqual(seen("group"), ["element.value-changed Group.Inner"]);
      } finally {
        for (const stream of Object.values(streams)) stream.close();
      }
    });

    test("bad filters and positions are 400 with a Result; an endpoint without the profile does not serve /events", async () => {
      for (const query of [
        "kinds=shell,pumps",
        "id=not%20base64url!",
        `semanticId=${b64("[]")}`,
        "after=-1",
        "after=abc",
        // idShortPath prefixes no element can have (they would stream nothing).
        "idShortPath=Lst%5B01%5D",
        "idShortPath=Lst%5B1",
        "idShortPath=A..B",
        "idShortPath=%5B1%5D",
      ]) {
        const response = await call(api, "GET", `/events?${query}`);
        assert.equal(response.status, 400, `${query}: ${response.text}`);
        assert.ok(Array.isArray(JSON.parse(response.text).messages), response.text);
      }
      const badHeader = await call(api, "GET", "/events", undefined, { "Last-Event-ID": "yesterday" });
      assert.equal(badHeader.status, 400, badHeader.text);
      const unserved = await call(system.readOnlyApi, "GET", "/events");
      assert.equal(unserved.status, 404, unserved.text);
      assert.equal((await call(system.readOnlyApi, "GET", "/submodels")).status, 200);
    });

    test("heartbeat comments keep an idle stream alive", async () => {
      const raw = await openRaw(`${api}/events?kinds=concept-description`);
      try {
        assert.equal(raw.status, 200);
        await waitUntil(() => raw.text().split(": heartbeat\n\n").length > 3, "three heartbeats", 5000);
      } finally {
        raw.close();
      }
    });

    test("resumes with Last-Event-ID or after: replays what was missed, then continues live, no gap, no duplicate", async () => {
      const first = follow(`${api}/events?kinds=element`);
      await waitUntil(() => first.opens === 1, "the stream to open");
      await patchValue(writer, SENSORS, "Temp", "40");
      await first.waitFor((events) => events.length === 1, "the first event");
      const position = first.events[0]!.id;
      first.close();
      for (let i = 41; i < 46; i++) await patchValue(writer, SENSORS, "Temp", String(i));
      // The header, as a reconnecting EventSource sends it; and the query form.
      const missed = [41, 42, 43, 44, 45];
      for (const resumed of [
        follow(`${api}/events?kinds=element`, { "Last-Event-ID": position }),
        follow(`${api}/events?kinds=element&after=${position}`),
      ]) {
        try {
          await resumed.waitFor((events) => events.length >= missed.length, "the missed events");
          assert.deepEqual(
            resumed.events.map((e) => e.data.value),
            missed,
          );
          assert.equal(Number(resumed.events[0]!.id), Number(position) + 1);
          const next = missed.at(-1)! + 1;
          await patchValue(writer, SENSORS, "Temp", String(next));
          await resumed.waitFor((events) => events.some((e) => e.data.value === next), "the live event");
          assertConsecutive(resumed.events, "replay then live");
          missed.push(next);
        } finally {
          resumed.close();
        }
      }
    });

    test("a client reading at its own pace replays far more than maxBufferedBytes without overflow", async () => {
      const first = follow(`${api}/events?id=${b64(SENSORS)}&idShortPath=Text`);
      await waitUntil(() => first.opens === 1, "the stream to open");
      await patchValue(writer, SENSORS, "Text", "start");
      await first.waitFor((events) => events.length === 1, "the first event");
      const position = first.events[0]!.id;
      first.close();
      // 30 events of ~4 KiB: ~120 KiB to replay, against a buffer of 16 KiB (EVENTS_CONFIG).
      const texts = Array.from({ length: 30 }, (_, i) => `${i}:${"y".repeat(4000)}`);
      for (const text of texts) await patchValue(writer, SENSORS, "Text", text);
      const resumed = follow(`${api}/events?id=${b64(SENSORS)}&idShortPath=Text&after=${position}`);
      try {
        await resumed.waitFor((events) => events.length >= texts.length, "every missed event");
        assert.deepEqual(
          resumed.events.map((e) => e.data.value),
          texts,
        );
        assert.ok(
          resumed.events.every((e) => e.type !== "overflow"),
          "no overflow",
        );
        assertConsecutive(resumed.events, "the replay");
      } finally {
        resumed.close();
      }
    });

    test("streams that open while writes go on join replay and live without gap or duplicate", async () => {
      const start = follow(`${api}/events?kinds=element`);
      await waitUntil(() => start.opens === 1, "the stream to open");
      await patchValue(writer, OTHER, "Count", "200");
      await start.waitFor((events) => events.length === 1, "a first event");
      start.close();
      const position = Number(start.events[0]!.id);
      // Writes through both gateways, several in flight, while streams open from that position.
      const writes = (async () => {
        for (let i = 201; i < 231; i += 3)
          await Promise.all(
            [0, 1, 2].map((k) => patchValue(system.api[(i + k) % system.api.length]!, OTHER, "Count", String(i + k))),
          );
      })();
      const joined = [];
      for (let i = 0; i < 6; i++) {
        joined.push(follow(`${system.api[i % system.api.length]}/events?kinds=element&after=${position}`));
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      await writes;
      try {
        for (const stream of joined) {
          await stream.waitFor((events) => events.length >= 30, "all 30 writes");
          assert.equal(Number(stream.events[0]!.id), position + 1);
          assertConsecutive(stream.events, "replay joined to live");
          assert.equal(stream.events.length, 30);
        }
      } finally {
        for (const stream of joined) stream.close();
      }
    });

    if (mode === "distributed") {
      test("a stream resumes through an http-gateway restart and a model-store restart without gap or duplicate", async () => {
        const follower = follow(`${api}/events?id=${b64(SENSORS)}`);
        const raw = await openRaw(`${api}/events?kinds=shell`);
        try {
          await waitUntil(() => follower.opens === 1, "the stream to open");
          for (let i = 50; i < 53; i++) await patchValue(writer, SENSORS, "Temp", String(i));
          await follower.waitFor((events) => events.length === 3, "three events");
          // SIGTERM: every open stream gets a final event and ends cleanly.
          await system.gateways[0]!.stop();
          assert.equal(await raw.ended, "end");
          assert.equal(parseEvents(raw.text()).at(-1)?.type, "shutdown");
          for (let i = 53; i < 58; i++) await patchValue(writer, SENSORS, "Temp", String(i));
          await system.gateways[0]!.start();
          await follower.waitFor(
            (events) => changes(events).length === 8,
            "the events written while the gateway was down",
          );
          // One `shutdown`, or two when the EventSource reconnected on a connection the stopping
          // gateway still held (it is then told to come back later, rather than refused).
          const control = follower.events.filter((e) => !e.type.includes(".")).map((e) => e.type);
          assert.ok(control.length >= 1 && control.every((type) => type === "shutdown"), control.join(","));
          assert.ok(follower.opens >= 2, "the EventSource reconnected");
          await system.store!.stop();
          await system.store!.start();
          for (let i = 58; i < 61; i++) await patchValue(writer, SENSORS, "Temp", String(i));
          await follower.waitFor((events) => changes(events).length === 11, "the events after the model-store restart");
          assert.deepEqual(
            changes(follower.events).map((e) => e.data.value),
            Array.from({ length: 11 }, (_, i) => 50 + i),
          );
          assertConsecutive(follower.events, "across restarts");
        } finally {
          follower.close();
          raw.close();
        }
      });
    }

    test("retention: a position older than the log starts with reset (oldest retained seq), then goes on live", async () => {
      const start = follow(`${api}/events?kinds=element`);
      await waitUntil(() => start.opens === 1, "the stream to open");
      await patchValue(writer, SENSORS, "Temp", "100");
      await start.waitFor((events) => events.length === 1, "a first event");
      start.close();
      const old = Number(start.events[0]!.id);
      for (let i = 0; i < 45; i++) await patchValue(writer, OTHER, "Count", String(i));
      // Distributed: the outbox keeper trims once a second.
      let events: StreamEvent[] = [];
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const raw = await openRaw(`${api}/events?after=${old}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        raw.close();
        events = parseEvents(raw.text());
        if (events[0]?.type === "reset") break;
      }
      const [reset, ...rest] = events;
      assert.equal(reset?.type, "reset", JSON.stringify(events.slice(0, 2)));
      const latest = Number(reset!.data.latest);
      assert.equal(reset!.data.after, old);
      assert.ok(Number(reset!.data.oldest) > old + 1, `oldest ${reset!.data.oldest} is past ${old + 1}`);
      assert.equal(Number(reset!.id), latest, "a reconnect resumes after the reset");
      assert.ok(latest >= old + 45);
      assert.ok(rest.every((e) => Number(e.id) > latest));
      // A position still retained replays without reset.
      const recent = await openRaw(`${api}/events?after=${latest - 5}`);
      await waitUntil(() => parseEvents(recent.text()).length >= 5, "five retained events");
      recent.close();
      assert.deepEqual(
        parseEvents(recent.text()).map((e) => Number(e.id)),
        [1, 2, 3, 4, 5].map((i) => latest - 5 + i),
      );
    });

    test("past events.maxStreams open streams, a further one is refused with 503 and a Result; one closed makes room", async () => {
      const open: Awaited<ReturnType<typeof openRaw>>[] = [];
      try {
        let refused: Awaited<ReturnType<typeof openRaw>> | undefined;
        // Other tests' streams may still be closing: open until the bound answers.
        for (let i = 0; i < EVENTS_CONFIG.maxStreams + 2 && refused === undefined; i++) {
          const stream = await openRaw(`${api}/events`);
          if (stream.status === 200) open.push(stream);
          else refused = stream;
        }
        assert.ok(refused, `${open.length} streams opened without a refusal`);
        assert.equal(refused.status, 503);
        await refused.ended;
        const body = JSON.parse(refused.text());
        assert.match(body.messages[0].text, /events\.maxStreams/);
        open.pop()!.close();
        const until = Date.now() + 10_000;
        for (;;) {
          const again = await openRaw(`${api}/events`);
          again.close();
          if (again.status === 200) break;
          assert.ok(Date.now() < until, "a stream opens again once one closed");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        for (const stream of open) stream.close();
      }
    });

    test("a slow client gets a final overflow event instead of unbounded buffering", async () => {
      const raw = await openRaw(`${api}/events?id=${b64(SENSORS)}&idShortPath=Text`);
      raw.pause();
      const big = "x".repeat(200_000);
      for (let i = 0; i < 60; i++) await patchValue(writer, SENSORS, "Text", `${i}${big}`);
      raw.resume();
      assert.equal(await raw.ended, "end");
      const events = parseEvents(raw.text());
      const last = events.at(-1);
      assert.equal(last?.type, "overflow", `${events.length} events, last ${last?.type}`);
      assert.ok(events.length < 60, `${events.length} of 60 events reached the slow client`);
      assertConsecutive(events.slice(0, -1), "before the overflow");
      // The stream behind it is unaffected: a new client resumes where the slow one was cut off.
      const position = last!.data.lastSeq;
      assert.equal(typeof position, "number");
    });

    if (mode === "embedded") {
      test("a restarted memory store starts its seq again: a resuming client is told to reset", async () => {
        const follower = follow(`${api}/events?kinds=element`);
        const raw = await openRaw(`${api}/events?kinds=shell`);
        try {
          await waitUntil(() => follower.opens === 1, "the stream to open");
          await patchValue(writer, SENSORS, "Temp", "70");
          await follower.waitFor((events) => events.length === 1, "an event");
          const before = Number(follower.events[0]!.id);
          await system.gateways[0]!.stop();
          assert.equal(await raw.ended, "end");
          assert.equal(parseEvents(raw.text()).at(-1)?.type, "shutdown");
          await system.gateways[0]!.start();
          await follower.waitFor((events) => events.length === 3, "the shutdown and the reset");
          const [shutdown, reset] = [follower.events[1]!, follower.events[2]!];
          assert.equal(shutdown.type, "shutdown");
          assert.equal(reset.type, "reset");
          assert.equal(reset.data.after, before);
          assert.ok(Number(reset.data.latest) < before, "the new store is behind the old position");
          await patchValue(writer, SENSORS, "Temp", "71");
          await follower.waitFor((events) => events.length === 4, "the next change");
          assert.equal(follower.events[3]!.data.value, 71);
          assert.equal(Number(follower.events[3]!.id), Number(reset.data.latest) + 1);
        } finally {
          follower.close();
          raw.close();
        }
      });
    }

    // What waits for the client after its overflow (4 MiB, behind the few MB the sockets hold) takes
    // a slow client far longer than the 5 s grace.
    describe("after an overflow (maxBufferedBytes 4 MiB)", () => {
      let slow: EventsSystem;
      let slowApi: string;
      before(async () => {
        slow = await startEventsSystem(mode, {
          model: join(dir, "events-model.json"),
          config: { events: { ...EVENTS_CONFIG, maxBufferedBytes: 4_194_304 } },
        });
        slowApi = slow.api[0]!;
      });
      after(async () => {
        await slow?.stop();
      });

      /** A reader that reads nothing while 12 MB of events pass: the sockets fill, then its stream overflows. */
      async function overflowedReader(fill: string) {
        const reader = await openSlowReader(`${slowApi}/events?id=${b64(SENSORS)}&idShortPath=Text`);
        assert.equal(reader.status, 200);
        const big = fill.repeat(100_000);
        const writeTo = slow.api[slow.api.length - 1]!;
        for (let i = 0; i < 120; i++) await patchValue(writeTo, SENSORS, "Text", `${i}${big}`);
        return reader;
      }

      test("a slow client that keeps reading is not cut: it takes everything, the overflow event last", async (t) => {
        const reader = await overflowedReader("y");
        t.after(() => reader.close());
        const started = Date.now();
        // 600 KB/s for 10 s: not enough for what is queued, but the server sees progress within every
        // grace (its socket takes more once the kernel's send buffer drained by a third: ~1.3 MB).
        reader.readAtPace(60_000, 100);
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        reader.readAtPace(65_536, 5);
        const ended = await reader.ended;
        const events = completeEvents(reader.text());
        assert.equal(ended, "end", `cut after ${Date.now() - started} ms and ${events.length} events`);
        assert.equal(events.at(-1)?.type, "overflow", `${events.length} events, last ${events.at(-1)?.type}`);
        assertConsecutive(events.slice(0, -1), "before the overflow");
      });

      test("a client that stopped reading is cut once a grace passes without progress", async (t) => {
        const reader = await overflowedReader("z");
        t.after(() => reader.close());
        // Longer than the grace without reading; then what the sockets held arrives, and no end.
        await new Promise((resolve) => setTimeout(resolve, 8_000));
        reader.readAtPace(65_536, 5);
        assert.equal(await reader.ended, "aborted");
        assert.notEqual(completeEvents(reader.text()).at(-1)?.type, "overflow");
      });
    });
  });

  describe(`event stream and the access rules, ${mode} mode`, () => {
    let system: EventsSystem;
    let dir: string;
    let provider: Awaited<ReturnType<typeof startOpenIdProvider>>;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "twinport-events-access-"));
      const model = join(dir, "events-model.json");
      writeFileSync(model, JSON.stringify(eventsModel()));
      provider = await startOpenIdProvider({
        keys: await signingKeys("events"),
        clients: [
          { id: "writer", alg: "RS256", claims: { roles: ["writer"] } },
          { id: "watcher", alg: "ES256", claims: { roles: ["watcher"] } },
          { id: "brief", alg: "ES256", ttlSeconds: 2, claims: { roles: ["watcher"] } },
          // Past setTimeout's 2^31 − 1 ms (~24.8 days): Node would fire such a timer after 1 ms.
          { id: "monthly", alg: "ES256", ttlSeconds: 30 * 24 * 3600, claims: { roles: ["watcher"] } },
        ],
      });
      const security = {
        authentication: {
          bearer: { issuer: provider.issuer, audience: TWINPORT_AUDIENCE, rolesClaims: ["roles"], clockSkewSeconds: 1 },
        },
        rules: [
          { subjects: [{ role: "writer" }], rights: ["READ", "UPDATE", "EXECUTE"], objects: [{ all: true }] },
          {
            subjects: [{ role: "watcher" }],
            rights: ["READ"],
            objects: [{ submodels: SENSORS }, { submodels: OTHER, idShortPath: "Count" }],
          },
        ],
      };
      system = await startEventsSystem(mode, { model, config: { events: EVENTS_CONFIG, security } });
    });
    after(async () => {
      await system?.stop();
      await provider?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("a stream carries only what its caller may read; a caller who may read nothing is refused", async () => {
      const api = system.api[0]!;
      const writer = { authorization: `Bearer ${await provider.token("writer")}` };
      const watcher = { authorization: `Bearer ${await provider.token("watcher")}` };
      const anonymous = await call(api, "GET", "/events");
      assert.equal(anonymous.status, 401, anonymous.text);
      assert.equal(anonymous.headers.get("www-authenticate"), 'Bearer realm="twinport"');
      const forged = await call(api, "GET", "/events", undefined, { authorization: "Bearer not-a-token" });
      assert.equal(forged.status, 401, forged.text);

      const watching = follow(`${api}/events`, watcher);
      const everything = follow(`${api}/events`, writer);
      try {
        await waitUntil(() => watching.opens === 1 && everything.opens === 1, "the streams to open");
        const target = system.api.at(-1)!;
        await patchValue(target, SENSORS, "Temp", "25", writer);
        await patchValue(target, OTHER, "Special", "9", writer);
        await patchValue(target, OTHER, "Count", "9", writer);
        const submodel = await call(target, "GET", `/submodels/${b64(OTHER)}`, undefined, writer);
        const put = await call(
          target,
          "PUT",
          `/submodels/${b64(OTHER)}`,
          { ...JSON.parse(submodel.text), idShort: "Other2" },
          writer,
        );
        assert.equal(put.status, 204, put.text);
        const shell = await call(target, "GET", `/shells/${b64(SHELL)}`, undefined, writer);
        assert.equal((await call(target, "PUT", `/shells/${b64(SHELL)}`, JSON.parse(shell.text), writer)).status, 204);
        await everything.waitFor((events) => events.length === 5, "every event for the writer");
        await watching.waitFor((events) => events.length === 3, "the watcher's events");
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(
          watching.events.map((e) => `${e.type} ${e.data.idShortPath ?? e.data.id}`),
          ["element.value-changed Temp", "element.value-changed Count", `submodel.updated ${OTHER}`],
        );
        // Part of OTHER is hidden from the watcher: its update comes without the submodel, with a link.
        const update = watching.events[2]!.data;
        assert.ok(!("submodel" in update), "no submodel for a partial reader");
        assert.equal(update.href, `/api/v3.0/submodels/${b64(OTHER)}`);
        assert.equal((everything.events[3]!.data.submodel as { idShort: string }).idShort, "Other2");
      } finally {
        watching.close();
        everything.close();
      }
    });

    test("operation events carry arguments and result only to callers who may EXECUTE the Operation", async () => {
      const api = system.api[0]!;
      const writer = { authorization: `Bearer ${await provider.token("writer")}` };
      const watcher = { authorization: `Bearer ${await provider.token("watcher")}` };
      const watching = follow(`${api}/events?kinds=operation`, watcher);
      const everything = follow(`${api}/events?kinds=operation`, writer);
      try {
        await waitUntil(() => watching.opens === 1 && everything.opens === 1, "the streams to open");
        const invoked = await call(
          system.api.at(-1)!,
          "POST",
          `/submodels/${b64(SENSORS)}/submodel-elements/Calibrate/invoke/$value`,
          { inputArguments: { Mode: "secret-mode" } },
          writer,
        );
        assert.equal(invoked.status, 200, invoked.text);
        await everything.waitFor((events) => events.length === 2, "invoked and finished for the writer");
        await watching.waitFor((events) => events.length === 2, "invoked and finished for the watcher");
        assert.deepEqual(
          watching.events.map((e) => e.type),
          ["operation.invoked", "operation.finished"],
        );
        // The watcher may read Calibrate, not invoke it or read its result (403 over the API).
        for (const event of watching.events) assert.ok(!("operation" in event.data), JSON.stringify(event.data));
        assert.doesNotMatch(JSON.stringify(watching.events), /secret-mode/);
        assert.match(JSON.stringify(everything.events[0]!.data.operation), /secret-mode/);
      } finally {
        watching.close();
        everything.close();
      }
    });

    test("a stream whose token is valid for 30 days stays open (no timer overflow)", async () => {
      const token = await provider.token("monthly");
      const raw = await openRaw(`${system.api[0]}/events`, { authorization: `Bearer ${token}` });
      try {
        assert.equal(raw.status, 200);
        const still = new Promise((resolve) => setTimeout(() => resolve("open"), 1500).unref());
        assert.equal(await Promise.race([raw.ended, still]), "open", raw.text());
        assert.doesNotMatch(raw.text(), /expired/);
      } finally {
        raw.close();
      }
    });

    test("a stream ends with `expired` when its bearer token expires", async () => {
      const token = await provider.token("brief");
      const raw = await openRaw(`${system.api[0]}/events`, { authorization: `Bearer ${token}` });
      try {
        assert.equal(raw.status, 200);
        const still = new Promise((resolve) => setTimeout(() => resolve("still open after 6 s"), 6000).unref());
        assert.equal(await Promise.race([raw.ended, still]), "end");
        assert.equal(parseEvents(raw.text()).at(-1)?.type, "expired");
        // Not before the token stops being accepted: its exp plus the configured skew (1 s). A
        // stream that ended at exp left a token still accepted for requests unable to keep one open.
        const exp = (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { exp: number })
          .exp;
        assert.ok(Date.now() >= exp * 1000 + 1000 - 50, `ended ${exp * 1000 + 1000 - Date.now()} ms before exp + skew`);
      } finally {
        raw.close();
      }
    });
  });
}
