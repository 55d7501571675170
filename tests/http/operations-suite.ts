/**
 * Black-box suite of operation invocation (AAS API §g) over real HTTPS, embedded and distributed.
 * The engine's process is started through tests/test-support/operations-launcher.ts, which registers
 * the test operation providers (Add, Slow, Fail, Refuse, …; libs/shared/src/test-support/operation-fixtures.ts).
 * Distributed mode also shows what the store buys: two gateways answer for one handle, a restarted
 * gateway still answers, and a handle whose model-store died turns Failed.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { OPERATIONS_SUBMODEL_ID, operationsSubmodel } from "@twinport/shared/test-support";
import { b64, createHttpClient, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import {
  findCertificate,
  type Mode,
  REPO_ROOT,
  type SystemUnderTest,
  startSystem,
  startTwinport,
} from "../test-support/system.ts";
import { assertResult } from "./shell-suite-support.ts";

const LAUNCHER = join(REPO_ROOT, "tests/test-support/operations-launcher.ts");
const SHELL = "urn:twinport:test:operations-shell";
const API = "/api/v3.0";
const SUBMODEL_MOUNT = `/submodels/${b64(OPERATIONS_SUBMODEL_ID)}`;
const SHELL_MOUNT = `/shells/${b64(SHELL)}/submodels/${b64(OPERATIONS_SUBMODEL_ID)}`;

const prop = (idShort: string, valueType: string, value: string) => ({
  value: { modelType: "Property", idShort, valueType, value },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Location headers are absolute paths; the clients want them relative to /api/v3.0. */
const relative = (location: string | string[] | undefined) => {
  assert.equal(typeof location, "string", "a Location header");
  assert.ok((location as string).startsWith(`${API}/`), `${location} starts with ${API}/`);
  return (location as string).slice(API.length);
};

export function operationsSuite(mode: Mode): void {
  describe(`Operation invocation, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    let other: HttpClient;
    const extraClients: HttpClient[] = [];
    const extraDirs: string[] = [];
    const post = (client: HttpClient, path: string, body: unknown) =>
      client.request("POST", path, { body: typeof body === "string" ? body : JSON.stringify(body) });
    const element = (mount: string, idShortPath: string) =>
      `${mount}/submodel-elements/${encodeURIComponent(idShortPath)}`;

    /** Poll operation-status until it redirects; answers the results path. */
    async function untilFinished(client: HttpClient, statusPath: string, timeoutMs = 10_000): Promise<string> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const res = await client.get(statusPath);
        if (res.status === 302) return relative(res.headers.location);
        assert.equal(res.status, 200, `${statusPath}: ${res.text}`);
        assert.ok(["Initiated", "Running"].includes(res.json().executionState), res.text);
        if (Date.now() > end) assert.fail(`${statusPath} still ${res.json().executionState} after ${timeoutMs} ms`);
        await sleep(25);
      }
    }
    function accepted(res: HttpResponse, mount: string, idShortPath: string): string {
      assert.equal(res.status, 202, res.text);
      // AAS Part 2 v3.0.1 defines no body for this 202: the handle is the last segment of Location.
      assert.equal(res.text, "", "no body");
      assert.equal(res.headers["content-type"], undefined, "no Content-Type without a body");
      const location = relative(res.headers.location);
      const prefix = `${element(mount, idShortPath)}/operation-status/`;
      assert.ok(location.startsWith(prefix), location);
      assert.match(Buffer.from(location.slice(prefix.length), "base64url").toString(), /^[0-9a-f-]{36}$/, location);
      return location;
    }

    before(async () => {
      sut = await startSystem(mode, { engineLauncher: LAUNCHER });
      http = sut.clients[0];
      other = sut.clients[sut.clients.length - 1];
      assert.equal((await post(http, "/submodels", operationsSubmodel())).status, 201);
      const shell = {
        modelType: "AssetAdministrationShell",
        id: SHELL,
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:twinport:test:asset" },
        submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: OPERATIONS_SUBMODEL_ID }] }],
      };
      assert.equal((await post(http, "/shells", shell)).status, 201);
    });
    after(async () => {
      for (const client of extraClients) client.close();
      await sut?.stop();
      for (const dir of extraDirs) rmSync(dir, { recursive: true, force: true });
    });

    test("sync invoke at both mounts: full form and $value, in-out arguments round-trip, exact digits", async () => {
      for (const mount of [SUBMODEL_MOUNT, SHELL_MOUNT]) {
        const full = await post(http, `${element(mount, "Add")}/invoke`, {
          inputArguments: [prop("a", "xs:int", "4"), prop("b", "xs:int", "5")],
          inoutputArguments: [prop("counter", "xs:int", "1")],
        });
        assert.equal(full.status, 200, full.text);
        const result = full.json();
        assert.equal(result.executionState, "Completed");
        assert.equal(result.success, true);
        assert.deepEqual(
          result.outputArguments.map((v: any) => [v.value.idShort, v.value.value]),
          [
            ["sum", "9"],
            ["big", "4000000000000000001"],
          ],
        );
        assert.equal(result.inoutputArguments[0].value.value, "2");
        const value = await post(other, `${element(mount, "Add")}/invoke/$value`, {
          inputArguments: { a: 6 },
          inoutputArguments: { counter: 41 },
          clientTimeoutDuration: "PT10S",
        });
        assert.equal(value.status, 200, value.text);
        assert.match(value.text, /"big":6000000000000000001[,}]/);
        assert.equal(value.json().outputArguments.sum, 13, "b took its declared default, 7");
        assert.deepEqual(value.json().inoutputArguments, { counter: 42 });
      }
      const nested = await post(http, `${element(SUBMODEL_MOUNT, "Folder.Echo")}/invoke/$value`, {
        inputArguments: { text: "deep" },
      });
      assert.deepEqual(nested.json().outputArguments, { echo: "deep" });
      // A time-out past what a timer holds (~24.8 days) is a hint like any other: the call runs and
      // answers (it was a 504 at once, with the call left running).
      for (const clientTimeoutDuration of ["P1M", "P1000Y"]) {
        const long = await post(http, `${element(SUBMODEL_MOUNT, "Slow")}/invoke`, {
          inputArguments: [prop("delayMs", "xs:int", "100")],
          clientTimeoutDuration,
        });
        assert.equal(long.status, 200, `${clientTimeoutDuration}: ${long.text}`);
        assert.equal(long.json().executionState, "Completed", long.text);
      }
    });

    test("async invoke: 202 + Location; status 200 then 302; results and results/$value; also through the other gateway", async () => {
      for (const mount of [SUBMODEL_MOUNT, SHELL_MOUNT]) {
        const statusPath = accepted(
          await post(http, `${element(mount, "Slow")}/invoke-async`, {
            inputArguments: [prop("delayMs", "xs:int", "400")],
          }),
          mount,
          "Slow",
        );
        const running = await other.get(statusPath);
        assert.equal(running.status, 200, "the other gateway knows the handle");
        assert.ok(["Initiated", "Running"].includes(running.json().executionState));
        const resultsPath = await untilFinished(other, statusPath);
        assert.equal(resultsPath, statusPath.replace("/operation-status/", "/operation-results/"));
        const full = await http.get(resultsPath);
        assert.equal(full.status, 200);
        assert.equal(full.json().executionState, "Completed");
        assert.equal(full.json().outputArguments[0].value.value, "true");
        const value = await other.get(`${resultsPath}/$value`);
        assert.deepEqual(value.json(), {
          messages: [],
          executionState: "Completed",
          success: true,
          outputArguments: { done: true },
          inoutputArguments: {},
        });
      }
      const valueOnly = accepted(
        await post(other, `${element(SHELL_MOUNT, "Add")}/invoke-async/$value`, {
          inputArguments: { a: 1 },
          clientTimeoutDuration: "PT1S",
        }),
        SHELL_MOUNT,
        "Add",
      );
      assert.equal((await http.get(`${await untilFinished(http, valueOnly)}/$value`)).json().outputArguments.sum, 8);
      // The legacy ?async=true and the AAS Service file's misspelling start asynchronous calls too.
      accepted(await post(http, `${element(SUBMODEL_MOUNT, "Add")}/invoke?async=true`, {}), SUBMODEL_MOUNT, "Add");
      accepted(await post(http, `${element(SUBMODEL_MOUNT, "Add")}/invoke-asnyc`, {}), SUBMODEL_MOUNT, "Add");
    });

    test("on the wire, the 202 of invoke-async and the 302 of operation-status say Content-Length: 0, not chunked", async () => {
      const { hostname, port } = new URL(http.baseUrl);
      const statusUrl = `${API}${element(SUBMODEL_MOUNT, "Slow")}/operation-status/`;
      const accepted = await tlsExchange(
        hostname,
        Number(port),
        `POST ${API}${element(SUBMODEL_MOUNT, "Slow")}/invoke-async HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
          "X-Correlation-Id: wire-202\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
      );
      const location = /\r\nLocation: ([^\r]+)/.exec(accepted)?.[1] ?? "";
      assert.ok(location.startsWith(statusUrl), accepted);
      assert.equal(
        withoutDate(accepted),
        `HTTP/1.1 202 Accepted\r\nX-Correlation-Id: wire-202\r\nLocation: ${location}\r\nContent-Length: 0\r\nDate: -\r\nConnection: close\r\n\r\n`,
      );
      const results = location.replace("/operation-status/", "/operation-results/");
      const end = Date.now() + 10_000;
      for (;;) {
        const answer = await tlsExchange(
          hostname,
          Number(port),
          `GET ${location} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Correlation-Id: wire-302\r\nConnection: close\r\n\r\n`,
        );
        if (answer.startsWith("HTTP/1.1 302 ")) {
          assert.equal(
            withoutDate(answer),
            `HTTP/1.1 302 Found\r\nX-Correlation-Id: wire-302\r\nLocation: ${results}\r\nContent-Length: 0\r\nDate: -\r\nConnection: close\r\n\r\n`,
          );
          break;
        }
        assert.match(answer, /^HTTP\/1\.1 200 /, answer);
        if (Date.now() > end) assert.fail(`${location} did not finish in 10 s`);
        await sleep(25);
      }
    });

    test("time-out versus completion: the client time-out bounds a sync call only, and never replaces a result", async () => {
      const started = Date.now();
      const late = await post(http, `${element(SUBMODEL_MOUNT, "Slow")}/invoke`, {
        inputArguments: [prop("delayMs", "xs:int", "5000")],
        clientTimeoutDuration: "PT0.3S",
      });
      assert.equal(late.status, 200);
      assert.equal(late.json().executionState, "Timeout");
      assert.equal(late.json().success, false);
      assert.ok(Date.now() - started < 3000, "answered at the time-out, not when the provider would have finished");
      const early = await post(http, `${element(SUBMODEL_MOUNT, "Slow")}/invoke`, {
        inputArguments: [prop("delayMs", "xs:int", "50")],
        clientTimeoutDuration: "PT2S",
      });
      assert.equal(early.json().executionState, "Completed");
      // Asynchronous: the client time-out is ignored (spec §3); the result that arrives stays.
      const statusPath = accepted(
        await post(http, `${element(SUBMODEL_MOUNT, "Slow")}/invoke-async`, {
          inputArguments: [prop("delayMs", "xs:int", "300")],
          clientTimeoutDuration: "PT0.05S",
        }),
        SUBMODEL_MOUNT,
        "Slow",
      );
      const resultsPath = await untilFinished(http, statusPath);
      await sleep(200);
      assert.equal((await other.get(resultsPath)).json().executionState, "Completed");
    });

    test("a failing provider, a refusal and a missing provider are results with executionState Failed (HTTP 200)", async () => {
      const failed = await post(http, `${element(SUBMODEL_MOUNT, "Fail")}/invoke`, {});
      assert.equal(failed.status, 200);
      assert.equal(failed.json().executionState, "Failed");
      assert.match(failed.json().messages[0].text, /overheated/);
      const refused = await post(http, `${element(SUBMODEL_MOUNT, "Refuse")}/invoke`, "");
      assert.deepEqual(refused.json().messages, [{ messageType: "Error", text: "the asset is busy", code: "BUSY" }]);
      const statusPath = accepted(
        await post(http, `${element(SUBMODEL_MOUNT, "NoProvider")}/invoke-async`, {}),
        SUBMODEL_MOUNT,
        "NoProvider",
      );
      const result = (await http.get(await untilFinished(http, statusPath))).json();
      assert.equal(result.executionState, "Failed");
      assert.match(result.messages[0].text, /No operation provider is configured/);
    });

    test("errors known at request time: 400, 404, 405", async () => {
      assertResult(
        await post(http, `${element(SUBMODEL_MOUNT, "Add")}/invoke`, { inputArguments: [prop("a", "xs:double", "1")] }),
        400,
        /valueType xs:int/,
      );
      assertResult(
        await post(http, `${element(SUBMODEL_MOUNT, "Add")}/invoke/$value`, { inputArguments: { c: 1 } }),
        400,
        /'c' is not a declared input/,
      );
      assertResult(
        await post(http, `${element(SUBMODEL_MOUNT, "Add")}/invoke-async`, { clientTimeoutDuration: "tomorrow" }),
        400,
      );
      assertResult(await post(http, `${element(SUBMODEL_MOUNT, "NotAnOperation")}/invoke`, {}), 405);
      assertResult(await post(http, `${element(SUBMODEL_MOUNT, "Missing")}/invoke`, {}), 404);
      assertResult(
        await post(
          http,
          `/shells/${b64("urn:no-shell")}/submodels/${b64(OPERATIONS_SUBMODEL_ID)}/submodel-elements/Add/invoke`,
          {},
        ),
        404,
      );
      assertResult(await http.get(`${element(SUBMODEL_MOUNT, "Add")}/operation-status/${b64("no-such-handle")}`), 404);
      assertResult(await http.get(`${element(SUBMODEL_MOUNT, "Add")}/operation-results/${b64("no-such-handle")}`), 404);
    });

    test("a long handle id, identifier or idShortPath from the path comes back shortened in the error", async () => {
      // 12,000 characters in the path (base64url): the message quotes the start and the length.
      const long = "h".repeat(9_000);
      const deep = `${"Ab.".repeat(2_999)}Ab`;
      for (const path of [
        `${element(SUBMODEL_MOUNT, "Add")}/operation-status/${b64(long)}`,
        `${element(SUBMODEL_MOUNT, "Add")}/operation-results/${b64(long)}`,
        `${element(SHELL_MOUNT, "Add")}/operation-results/${b64(long)}/$value`,
        `/submodels/${b64(long)}`,
        `/shells/${b64(long)}/submodels/${b64(OPERATIONS_SUBMODEL_ID)}`,
        `${element(SUBMODEL_MOUNT, deep)}`,
        `/submodels/${"x".repeat(12_001)}`,
        // A path under /api/v3.0 that names nothing: quoted in the 400 as well.
        `/${"p".repeat(11_990)}`,
      ]) {
        const response = await http.get(path);
        assert.ok([400, 404].includes(response.status), `${path.slice(0, 80)}: ${response.status}`);
        const text: string = response.json().messages[0].text;
        assert.ok(
          text.length < 1_000,
          `${path.slice(0, 80)}: a message of ${text.length} characters: ${text.slice(0, 150)} … ${text.slice(-150)}`,
        );
        assert.match(text, /… \((9000|8999|12001|12000) characters\)/, text);
      }
    });

    test("/reset removes pending operations", async () => {
      const statusPath = accepted(
        await post(http, `${element(SUBMODEL_MOUNT, "Slow")}/invoke-async`, {
          inputArguments: [prop("delayMs", "xs:int", "60000")],
        }),
        SUBMODEL_MOUNT,
        "Slow",
      );
      assert.equal((await other.get(statusPath)).status, 200);
      assert.equal((await http.get("/reset")).status, 204);
      assertResult(await other.get(statusPath), 404);
      // Put the model back for the tests that follow.
      assert.equal((await post(http, "/submodels", operationsSubmodel())).status, 201);
    });

    if (mode !== "distributed") return;

    test("a restarted gateway still answers for a handle made before its restart", async () => {
      const statusPath = accepted(
        await post(other, `${element(SUBMODEL_MOUNT, "Slow")}/invoke-async`, {
          inputArguments: [prop("delayMs", "xs:int", "500")],
        }),
        SUBMODEL_MOUNT,
        "Slow",
      );
      const gateway = sut.processes.find((p) => p.role === "http-gateway")!;
      const cwd = dirname(gateway.logFile);
      assert.equal(await gateway.stop(), 0);
      const env = { TWINPORT_PERSISTENCE_URL: sut.redis!.url, TWINPORT_MESSAGEBUS_URL: sut.nats!.url };
      sut.processes.push(await startTwinport({ role: "http-gateway", cwd, args: ["-c", "config.json"], env }));
      const restarted = createHttpClient(http.baseUrl, { ca: findCertificate(cwd) });
      extraClients.push(restarted);
      const resultsPath = await untilFinished(restarted, statusPath);
      assert.equal((await restarted.get(resultsPath)).json().executionState, "Completed");
    });

    test("a handle whose model-store died is marked Failed once the store's lease lapses; a new model-store serves on", async () => {
      const statusPath = accepted(
        await post(other, `${element(SUBMODEL_MOUNT, "Slow")}/invoke-async`, {
          inputArguments: [prop("delayMs", "xs:int", "60000")],
        }),
        SUBMODEL_MOUNT,
        "Slow",
      );
      const store = sut.processes.find((p) => p.role === "model-store")!;
      await store.stop("SIGKILL");
      const dir = mkdtempSync(join(tmpdir(), "twinport-model-store-"));
      extraDirs.push(dir);
      const env = { TWINPORT_PERSISTENCE_URL: sut.redis!.url, TWINPORT_MESSAGEBUS_URL: sut.nats!.url };
      sut.processes.push(
        await startTwinport({ role: "model-store", cwd: dir, args: ["--empty-model"], env, launcher: LAUNCHER }),
      );
      const resultsPath = await untilFinished(other, statusPath, 10_000);
      const result = (await http.get(resultsPath)).json();
      assert.equal(result.executionState, "Failed");
      assert.match(result.messages[0].text, /stopped before it finished/);
      const fresh = await post(http, `${element(SUBMODEL_MOUNT, "Add")}/invoke/$value`, { inputArguments: { a: 1 } });
      assert.equal(fresh.json().outputArguments.sum, 8);
    });
  });
}

/** Writes `request` over TLS (the bytes are what is checked, not the certificate) and reads until the server ends. */
function tlsExchange(host: string, port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, rejectUnauthorized: false }, () => socket.write(request));
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
}

function withoutDate(answer: string): string {
  return answer.replace(/\r\nDate: [^\r]+/, "\r\nDate: -");
}
