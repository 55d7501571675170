/**
 * A client that half-closes its side of the connection (FIN, `socket.end()`) right after a complete
 * request still gets the answer (RFC 9112 §9.6), then the server closes the connection (and an answer
 * written after the FIN says so, Connection: close, not keep-alive); a request
 * the client left incomplete is still dropped. In every mode — embedded on memory, embedded on
 * Redis (its answers come after a script call), distributed (after a NATS round trip) — over HTTPS
 * and plain HTTP, on the hot `$value` route and on the general path; an event stream answers its head
 * before it ends at the FIN.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { dirname } from "node:path";
import { after, before, describe, test } from "node:test";
import tls from "node:tls";
import { encodeBase64Url } from "@twinport/shared";
import { type RunningServer, startRedis } from "./test-support/servers.ts";
import { findCertificate, type Mode, type SystemUnderTest, startSystem } from "./test-support/system.ts";

const VALUE = `/api/v3.0/submodels/${encodeBase64Url("https://example.org/submodels/technical-data-1")}/submodel-elements/MaxRotationSpeed/$value`;

interface Endpoint {
  scheme: "https" | "http";
  port: number;
  ca?: string;
}

/** Writes `request`, half-closes at once, and reads everything until the server closes. */
function halfClosedExchange(endpoint: Endpoint, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket =
      endpoint.scheme === "https"
        ? tls.connect({ host: "127.0.0.1", port: endpoint.port, ca: endpoint.ca, servername: "localhost" }, () =>
            socket.end(request),
          )
        : net.connect({ host: "127.0.0.1", port: endpoint.port }, () => socket.end(request));
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    // The server must close: a half-closed connection it kept open would be a leak. An absolute
    // deadline, not an idle one: an event stream's heartbeats would keep resetting that.
    const deadline = setTimeout(
      () => socket.destroy(new Error(`the server did not close within 10 s; received: ${received.slice(0, 300)}`)),
      10_000,
    );
    socket.on("close", () => {
      clearTimeout(deadline);
      resolve(received);
    });
  });
}

const patch = (value: string, extraHeaders = "") =>
  `PATCH ${VALUE} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${extraHeaders}Content-Length: ${value.length}\r\n\r\n${value}`;

/** The answer's Connection header ("" when it has none). */
function connectionOf(answer: string): string {
  const head = answer.slice(0, answer.indexOf("\r\n\r\n"));
  return /\r\nConnection: ([^\r]*)/i.exec(head)?.[1] ?? "";
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0);
}

interface System {
  name: string;
  mode: Mode;
  redis?: boolean;
  /**
   * Its writes are answered after a store call over a socket (Redis, NATS), so the server has read
   * the client's FIN before it writes the answer's head (reads may come from a cache). Embedded on memory answers within the turn
   * that read the request, before the FIN is read: its head says keep-alive, then the server closes.
   */
  answersAfterTheFin: boolean;
}

const SYSTEMS: System[] = [
  { name: "embedded", mode: "embedded", answersAfterTheFin: false },
  { name: "embedded on Redis", mode: "embedded", redis: true, answersAfterTheFin: true },
  { name: "distributed", mode: "distributed", answersAfterTheFin: true },
];

/** An answer written after the client's FIN says Connection: close: the server closes after it. */
function assertSaysClose(system: System, answer: string, what: string): void {
  if (system.answersAfterTheFin) assert.equal(connectionOf(answer), "close", `${what}: ${answer.slice(0, 400)}`);
}

for (const system of SYSTEMS) {
  describe(`half-closed clients, ${system.name}`, () => {
    let sut: SystemUnderTest;
    let redis: RunningServer | undefined;
    const endpoints: Endpoint[] = [];

    before(async () => {
      redis = system.redis ? await startRedis() : undefined;
      sut = await startSystem(system.mode, {
        gateways: 1,
        endpoints: [{}, { sslEnabled: false }],
        ...(redis
          ? { config: { persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url } } }
          : {}),
      });
      const gateway = sut.processes.find((proc) => proc.role !== "model-store")!;
      const ca = findCertificate(dirname(gateway.logFile));
      const [https, http] = sut.clients.map((client) => Number(new URL(client.baseUrl).port));
      endpoints.push({ scheme: "https", port: https!, ca }, { scheme: "http", port: http! });
    });
    after(async () => {
      await sut?.stop();
      await redis?.stop();
    });

    test("a complete PATCH is answered with Connection: close, then the connection closed (hot route and general path)", async () => {
      let value = 4000;
      for (const endpoint of endpoints) {
        for (const [route, headers] of [
          ["hot route", ""],
          // An Idempotency-Key sends the same PATCH the general path (ADR 0045).
          ["general path", `Idempotency-Key: half-closed-${system.name.replaceAll(" ", "-")}-${endpoint.scheme}\r\n`],
        ] as const) {
          value += 1;
          const what = `${endpoint.scheme}, ${route}`;
          const answer = await halfClosedExchange(endpoint, patch(String(value), headers));
          assert.equal(statusOf(answer), 204, `${what}: ${answer}`);
          assertSaysClose(system, answer, what);
          const read = await halfClosedExchange(
            endpoint,
            `GET ${VALUE} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`,
          );
          assert.equal(statusOf(read), 200, `${what}: ${read}`);
          assert.match(read, new RegExp(`\\r\\n\\r\\n\\{"MaxRotationSpeed":${value}\\}$`), what);
        }
      }
    });

    test("an event stream ends when its client half-closes, but answers first: the gateway's first stream too (it subscribes to the bus then)", async () => {
      for (const endpoint of endpoints) {
        // Resolves only once the server has closed the connection (else the 10 s deadline fails it).
        const answer = await halfClosedExchange(endpoint, "GET /api/v3.0/events HTTP/1.1\r\nHost: localhost\r\n\r\n");
        // The FIN came while the stream opened: it was cut before its head, and the client heard nothing.
        assert.equal(statusOf(answer), 200, `${endpoint.scheme}: ${answer}`);
        assert.match(answer, /\r\nContent-Type: text\/event-stream/i, endpoint.scheme);
        assert.equal(connectionOf(answer), "close", endpoint.scheme);
      }
    });

    test("an incomplete request from a half-closed client is dropped, and the server serves on", async () => {
      for (const endpoint of endpoints) {
        for (const [what, request] of [
          ["head cut short", `PATCH ${VALUE} HTTP/1.1\r\nHost: localhost\r\nContent-Ty`],
          ["body cut short", patch("4321").replace("Content-Length: 4", "Content-Length: 40")],
        ]) {
          // Resolves only once the server has closed the connection (else the 10 s deadline fails it).
          const answer = await halfClosedExchange(endpoint, request);
          assert.ok(answer === "" || statusOf(answer) === 400, `${endpoint.scheme}, ${what}: ${answer}`);
        }
        const served = await halfClosedExchange(
          endpoint,
          `GET ${VALUE} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
        );
        assert.equal(statusOf(served), 200, served);
        assert.doesNotMatch(served, /4321/, "the incomplete write was not made");
      }
    });
  });
}
