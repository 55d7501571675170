/**
 * Black-box suite of honest outcomes and Idempotency-Key retries (issue #12 target 6, docs/adr/0017)
 * over real sockets, in embedded and distributed mode:
 * - a POST, PUT, PATCH or DELETE repeated with the same key answers the first status and body and
 *   writes once (in distributed mode the repeat goes through the other gateway);
 * - the same key with another request → 422; a malformed key → 400; both with the Result body;
 * - a commit that reached Redis late (a proxy holds it: the store's command timed out) answers 504
 *   saying the outcome is unknown, and the retry with the key after recovery gets the real outcome;
 * - a commit sent just before the process running the engine was killed (-9): the retry, served by
 *   a new process, gets the committed outcome and nothing is written twice;
 * - (distributed) a frozen model-store: the gateway's NATS request times out → 504 "outcome
 *   unknown"; the retry after SIGCONT gets the real outcome.
 * The last two run the engine on Redis behind a holding proxy (embedded mode with
 * persistence.redis, or a model-store), so the moment the commit is on the wire is exact.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { commitOfKey, type HoldingProxy, startHoldingProxy } from "../test-support/holding-proxy.ts";
import { b64, createHttpClient, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "../test-support/servers.ts";
import {
  EXAMPLE_MODEL,
  type Mode,
  type SystemUnderTest,
  startSystem,
  startTwinport,
  type TwinportProcess,
} from "../test-support/system.ts";
import { assertResult } from "./shell-suite-support.ts";

const SUBMODEL = "https://example.org/submodels/technical-data-1";
const ELEMENTS = `/submodels/${b64(SUBMODEL)}/submodel-elements`;
const TAGS = `${ELEMENTS}/Tags`;
const tag = (value: string) => JSON.stringify({ modelType: "Property", valueType: "xs:string", value });
const keyed = (key: string) => ({ "Idempotency-Key": key });

async function tagValues(client: HttpClient): Promise<string[]> {
  const res = await client.get(TAGS);
  assert.equal(res.status, 200, res.text);
  return ((res.json().value ?? []) as { value: string }[]).map((item) => item.value);
}

function sameAnswer(repeat: HttpResponse, first: HttpResponse): void {
  assert.equal(repeat.status, first.status, repeat.text);
  assert.equal(repeat.text, first.text);
  for (const header of ["etag", "location"]) assert.equal(repeat.headers[header], first.headers[header], header);
}

export function idempotencySuite(mode: Mode): void {
  describe(`Idempotency-Key retries, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    let other: HttpClient;
    before(async () => {
      sut = await startSystem(mode);
      http = sut.clients[0]!;
      other = sut.clients[1] ?? http;
    });
    after(async () => {
      await sut?.stop();
    });

    test("DELETE List[0] repeated with the same key removes one item; both answer 204", async () => {
      const before = await tagValues(http);
      assert.ok(before.length >= 2);
      const key = randomUUID();
      const first = await http.request("DELETE", `${TAGS}%5B0%5D`, { headers: keyed(key) });
      const repeat = await other.request("DELETE", `${TAGS}%5B0%5D`, { headers: keyed(`"${key}"`) });
      assert.equal(first.status, 204, first.text);
      sameAnswer(repeat, first);
      assert.deepEqual(await tagValues(http), before.slice(1));
      assert.deepEqual(await tagValues(other), before.slice(1));
    });

    test("POST into a list repeated with the same key appends one item; both answer 201 with the same body, Location and ETag", async () => {
      const before = await tagValues(http);
      const key = randomUUID();
      const first = await http.request("POST", TAGS, { body: tag("once"), headers: keyed(key) });
      const repeat = await other.request("POST", TAGS, { body: tag("once"), headers: keyed(key) });
      assert.equal(first.status, 201, first.text);
      assert.ok(first.headers.location);
      sameAnswer(repeat, first);
      assert.deepEqual(await tagValues(http), [...before, "once"]);
    });

    test("PUT and PATCH repeated with the same key write once (the ETag does not move on the repeat)", async () => {
      const path = `${ELEMENTS}/MaxRotationSpeed`;
      const current = (await http.get(path)).json();
      for (const [method, target, body] of [
        ["PUT", path, JSON.stringify({ ...current, value: "4100" })],
        ["PATCH", `${path}/$value`, JSON.stringify("4200")],
      ] as const) {
        const key = randomUUID();
        const first = await http.request(method, target, { body, headers: keyed(key) });
        assert.equal(first.status, 204, `${method}: ${first.text}`);
        const etag = (await http.get(path)).headers.etag;
        // Someone else writes in between: a repeat that ran again would overwrite their value.
        const meanwhile = await http.request("PATCH", `${path}/$value`, { body: JSON.stringify("1") });
        assert.equal(meanwhile.status, 204);
        const afterMeanwhile = (await http.get(path)).headers.etag;
        assert.notEqual(afterMeanwhile, etag);
        const repeat = await other.request(method, target, { body, headers: keyed(key) });
        sameAnswer(repeat, first);
        const now = await http.get(path);
        assert.equal(now.headers.etag, afterMeanwhile, `${method}: the repeat did not write`);
        assert.equal(now.json().value, "1");
      }
    });

    test("a repeat that spells the path another way ([ ] or lower-case percent escapes) is the same request", async () => {
      const before = await tagValues(http);
      assert.ok(before.length >= 2);
      const key = randomUUID();
      const first = await http.request("DELETE", `${TAGS}%5B0%5D`, { headers: keyed(key) });
      assert.equal(first.status, 204, first.text);
      for (const spelling of [`${TAGS}%5b0%5d`, `${TAGS}[0]`]) {
        const repeat = await other.request("DELETE", spelling, { headers: keyed(key) });
        sameAnswer(repeat, first);
      }
      assert.deepEqual(await tagValues(http), before.slice(1), "one item deleted");
    });

    test("the same key with a different request answers 422 and writes nothing", async () => {
      const key = randomUUID();
      const first = await http.request("POST", TAGS, { body: tag("first"), headers: keyed(key) });
      assert.equal(first.status, 201, first.text);
      const before = await tagValues(http);
      assertResult(
        await other.request("POST", TAGS, { body: tag("second"), headers: keyed(key) }),
        422,
        /Idempotency-Key/,
      );
      assertResult(await other.request("DELETE", `${TAGS}%5B0%5D`, { headers: keyed(key) }), 422, /Idempotency-Key/);
      assert.deepEqual(await tagValues(http), before);
    });

    test("a malformed Idempotency-Key answers 400 and writes nothing", async () => {
      const before = await tagValues(http);
      for (const bad of ["", "has space", '"unterminated', "a,b", "x".repeat(256), "tab\there"]) {
        assertResult(
          await http.request("POST", TAGS, { body: tag("never"), headers: keyed(bad) }),
          400,
          /Idempotency-Key/,
        );
      }
      assert.deepEqual(await tagValues(http), before);
    });

    test("keyed writes committed together with writes to other submodels: every answer is true, every submodel stays whole", async () => {
      // In distributed mode the writes of one turn share one script call: a keyed write's record and
      // the submodels named after it must each get their own keys (a bug put them one key off).
      const before = (await tagValues(http)).length;
      const created: string[] = [];
      for (let round = 0; round < 5; round++) {
        const ids = [0, 1, 2].map((j) => `urn:test:${mode}:grouped:${round}:${j}`);
        created.push(...ids);
        const answers = await Promise.all([
          ...Array.from({ length: 8 }, (_, i) =>
            (i % 2 ? other : http).request("POST", TAGS, {
              body: tag(`grouped-${round}-${i}`),
              headers: keyed(randomUUID()),
            }),
          ),
          ...ids.map((id, j) =>
            (j % 2 ? http : other).request("POST", "/submodels", {
              body: JSON.stringify({
                modelType: "Submodel",
                id,
                submodelElements: [{ modelType: "Property", idShort: "P", valueType: "xs:int", value: String(j) }],
              }),
              ...(j === 1 ? { headers: keyed(randomUUID()) } : {}),
            }),
          ),
        ]);
        for (const answer of answers) assert.equal(answer.status, 201, answer.text);
      }
      for (const id of created) {
        const element = await other.get(`/submodels/${b64(id)}/submodel-elements/P`);
        assert.equal(element.status, 200, `${id}: ${element.text}`);
        const patched = await http.request("PATCH", `/submodels/${b64(id)}/submodel-elements/P/$value`, { body: "7" });
        assert.equal(patched.status, 204, `${id}: ${patched.text}`);
      }
      const values = await tagValues(other);
      assert.equal(values.length, before + 40);
      for (let round = 0; round < 5; round++)
        for (let i = 0; i < 8; i++) assert.ok(values.includes(`grouped-${round}-${i}`), `grouped-${round}-${i}`);
    });

    test("without a key nothing changes: the same DELETE twice removes two items", async () => {
      const before = await tagValues(http);
      assert.ok(before.length >= 2, before.join());
      for (let i = 0; i < 2; i++) assert.equal((await http.request("DELETE", `${TAGS}%5B0%5D`)).status, 204);
      assert.deepEqual(await tagValues(http), before.slice(2));
    });
  });

  describe(`Honest outcomes on Redis, ${mode} mode`, () => {
    let redis: RunningServer;
    let nats: (RunningServer & { monitorPort: number }) | undefined;
    let proxy: HoldingProxy;
    let engineProcess: TwinportProcess;
    let gateway: TwinportProcess | undefined;
    let http: HttpClient;
    let port: number;
    let engineDir: string;
    const dirs: string[] = [];
    const dir = (name: string) => {
      const made = mkdtempSync(join(tmpdir(), `twinport-idempotency-${name}-`));
      dirs.push(made);
      return made;
    };
    const httpConfig = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
        ...extra,
      });
    /** The process that runs the engine, on Redis through `redisUrl`. */
    const startEngine = async (redisUrl: string): Promise<TwinportProcess> => {
      if (mode === "embedded") {
        writeFileSync(
          join(engineDir, "config.json"),
          httpConfig({ persistence: { "@class": "persistence.redis.PersistenceRedis", url: redisUrl } }),
        );
        return await startTwinport({
          role: "embedded",
          cwd: engineDir,
          args: ["-c", "config.json", "-m", EXAMPLE_MODEL, "--endpoint", "http"],
          env: { TWINPORT_CORE_MANAGEMENTPORT: "0" },
        });
      }
      return await startTwinport({
        role: "model-store",
        cwd: engineDir,
        args: ["-m", EXAMPLE_MODEL],
        env: {
          TWINPORT_PERSISTENCE_URL: redisUrl,
          TWINPORT_MESSAGEBUS_URL: nats!.url,
          TWINPORT_CORE_MANAGEMENTPORT: "0",
        },
      });
    };

    before(async () => {
      redis = await startRedis();
      proxy = await startHoldingProxy(redis.port);
      port = await freePort();
      engineDir = dir("engine");
      if (mode === "distributed") nats = await startNats();
      engineProcess = await startEngine(proxy.url);
      if (mode === "distributed") {
        const gatewayDir = dir("gateway");
        writeFileSync(join(gatewayDir, "config.json"), httpConfig());
        gateway = await startTwinport({
          role: "http-gateway",
          cwd: gatewayDir,
          args: ["-c", "config.json"],
          env: {
            TWINPORT_PERSISTENCE_URL: redis.url,
            TWINPORT_MESSAGEBUS_URL: nats!.url,
            TWINPORT_CORE_MANAGEMENTPORT: "0",
          },
        });
      }
      http = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
    });
    after(async () => {
      http?.close();
      await proxy?.release().catch(() => undefined);
      await Promise.all([engineProcess, gateway].map((p) => p?.stop("SIGKILL")));
      await proxy?.close();
      await redis?.stop();
      await nats?.stop();
      for (const made of dirs) rmSync(made, { recursive: true, force: true });
    });

    test("a commit that reaches Redis late answers 504 'outcome unknown'; the retry with the key gets the real outcome and writes nothing more", async () => {
      const before = await tagValues(http);
      const key = randomUUID();
      proxy.holdWhen(commitOfKey(key));
      const sent = http.request("POST", TAGS, { body: tag("late"), headers: keyed(key) });
      await proxy.held();
      const answer = await sent;
      assertResult(answer, 504, /outcome is unknown/i);
      // The store's Redis command timed out, yet Redis runs the commit once it arrives.
      await proxy.release();
      let retry: HttpResponse | undefined;
      for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((r) => setTimeout(r, 200))) {
        retry = await http.request("POST", TAGS, { body: tag("late"), headers: keyed(key) });
        if (retry.status !== 503 && retry.status !== 504) break;
      }
      assert.equal(retry?.status, 201, retry?.text);
      assert.equal(JSON.parse(retry!.text).value, "late");
      assert.match(String(retry!.headers.location), /Tags%5B\d+%5D$/);
      assert.deepEqual(await tagValues(http), [...before, "late"]);
      const again = await http.request("POST", TAGS, { body: tag("late"), headers: keyed(key) });
      sameAnswer(again, retry!);
      assert.deepEqual(await tagValues(http), [...before, "late"]);
    });

    test("kill -9 of the engine's process right after it sent a commit: the retry, served by a new process, gets the committed outcome and nothing is written twice", async () => {
      const before = await tagValues(http);
      const key = randomUUID();
      proxy.holdWhen(commitOfKey(key));
      const sent = http.request("DELETE", `${TAGS}%5B0%5D`, { headers: keyed(key) }).catch((error: Error) => error);
      await proxy.held();
      process.kill(engineProcess.child.pid!, "SIGKILL");
      await engineProcess.stop("SIGKILL");
      // The commit was on the wire: it reaches Redis after its sender died.
      await proxy.release();
      const answer = await sent;
      if (mode === "distributed") assertResult(answer as HttpResponse, 504, /outcome is unknown/i);
      else assert.ok(answer instanceof Error, "the embedded process died with the connection");
      engineProcess = await startEngine(redis.url);
      if (mode === "embedded") {
        http.close();
        http = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
      }
      let retry: HttpResponse | undefined;
      for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((r) => setTimeout(r, 200))) {
        retry = await http.request("DELETE", `${TAGS}%5B0%5D`, { headers: keyed(key) });
        if (retry.status !== 503 && retry.status !== 504) break;
      }
      assert.equal(retry?.status, 204, retry?.text);
      assert.deepEqual(await tagValues(http), before.slice(1), "the committed DELETE counted once");
      assert.equal((await http.request("DELETE", `${TAGS}%5B0%5D`, { headers: keyed(key) })).status, 204);
      assert.deepEqual(await tagValues(http), before.slice(1));
    });

    if (mode === "distributed") {
      test("a frozen model-store (SIGSTOP): a write answers 504 'outcome unknown' after the request timeout; the retry with the key after SIGCONT gets the real outcome, written once", async () => {
        const before = await tagValues(http);
        const key = randomUUID();
        const pid = engineProcess.child.pid!;
        process.kill(pid, "SIGSTOP");
        let answer: HttpResponse;
        try {
          answer = await http.request("POST", TAGS, { body: tag("frozen"), headers: keyed(key) });
        } finally {
          process.kill(pid, "SIGCONT");
        }
        assertResult(answer, 504, /outcome is unknown/i);
        let retry: HttpResponse | undefined;
        for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((r) => setTimeout(r, 200))) {
          retry = await http.request("POST", TAGS, { body: tag("frozen"), headers: keyed(key) });
          if (![503, 504, 409].includes(retry.status)) break;
        }
        assert.equal(retry?.status, 201, retry?.text);
        assert.deepEqual(await tagValues(http), [...before, "frozen"]);
        sameAnswer(await http.request("POST", TAGS, { body: tag("frozen"), headers: keyed(key) }), retry!);
        assert.deepEqual(await tagValues(http), [...before, "frozen"]);
      });
    }
  });
}
