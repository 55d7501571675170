/**
 * Helpers of the hostile-input suite (hardening-suite.ts): the Result-body assertion, requests an
 * HTTP client library would not send (raw TLS), the gateway's metrics, and package surgery.
 */
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import type { HttpClient, HttpResponse } from "../test-support/http-client.ts";
import type { SystemUnderTest } from "../test-support/system.ts";

export const SUBMODEL_ID = "https://example.org/submodels/technical-data-1";
export const SUBMODEL = `/submodels/${Buffer.from(SUBMODEL_ID).toString("base64url")}`;

export function assertResult(response: HttpResponse, status: number, reason?: RegExp): void {
  assert.equal(response.status, status, response.text);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ["messages"], response.text);
  assert.equal(body.messages[0].messageType, "Error");
  assert.equal(body.messages[0].code, String(status));
  if (reason) assert.match(body.messages[0].text, reason);
}

export async function assertServing(client: HttpClient, after: string): Promise<void> {
  const response = await client.get(SUBMODEL);
  assert.equal(response.status, 200, `still serving after ${after}: ${response.text}`);
}

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
  text: string;
}

/**
 * One request written byte for byte on a fresh TLS connection, and everything the server sends
 * until it closes: for requests an HTTP client library would not send (no Content-Type, broken
 * framing, oversized heads).
 */
export async function rawExchange(
  sut: SystemUnderTest,
  ca: string | undefined,
  request: string | Buffer,
): Promise<RawAnswer> {
  const url = new URL(sut.clients[0]!.baseUrl);
  return await new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: url.hostname, port: Number(url.port), ca, servername: "localhost", rejectUnauthorized: ca !== undefined },
      () => socket.end(request),
    );
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error("no complete answer within 20 s")));
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const head = split === -1 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: split === -1 ? "" : text.slice(split + 4), text });
    });
  });
}

/**
 * Requests written one after another on one kept-alive TLS connection, each once the answer to the
 * one before has arrived (its head and its Content-Length body), and everything the server sends
 * until it closes.
 */
export async function keptAliveExchange(
  sut: SystemUnderTest,
  ca: string | undefined,
  requests: string[],
): Promise<string> {
  const url = new URL(sut.clients[0]!.baseUrl);
  return await new Promise((resolve, reject) => {
    let received = "";
    let sent = 0;
    const answeredUpTo = () => {
      // Complete answers in `received`: each a head and a body of its Content-Length.
      let at = 0;
      let count = 0;
      for (;;) {
        const end = received.indexOf("\r\n\r\n", at);
        if (end === -1) return count;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(received.slice(at, end))?.[1] ?? 0);
        if (received.length < end + 4 + length) return count;
        at = end + 4 + length;
        count++;
      }
    };
    const next = () => {
      if (sent < requests.length && answeredUpTo() === sent) socket.write(requests[sent++]!);
    };
    const socket = tls.connect(
      { host: url.hostname, port: Number(url.port), ca, servername: "localhost", rejectUnauthorized: ca !== undefined },
      next,
    );
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      received += chunk;
      next();
    });
    socket.on("error", reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error("no complete answer within 20 s")));
    socket.on("close", () => resolve(received));
  });
}

/** The gateway's Prometheus text (its management port, named in the ready line). */
export async function metricsOf(sut: SystemUnderTest): Promise<string> {
  const gateway = sut.processes.find((proc) => proc.role !== "model-store")!;
  const url = String(gateway.details.management);
  return await new Promise((resolve, reject) => {
    http
      .get(`${url}/metrics`, (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        response.on("end", () => resolve(text));
      })
      .on("error", reject);
  });
}

/** twinport_http_requests_total summed per status. */
export function httpCounts(metrics: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of metrics.split("\n")) {
    const match = /^twinport_http_requests_total\{.*status="(\d+)".*\} (\d+(?:\.\d+)?)$/.exec(line);
    if (match) counts[match[1]!] = (counts[match[1]!] ?? 0) + Number(match[2]);
  }
  return counts;
}

export async function connectResult(host: string, port: number): Promise<string> {
  return await new Promise((resolve) => {
    const socket = net.connect({ host, port }, () => {
      socket.destroy();
      resolve("connected");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** The AASX with its aas-spec part's bytes replaced (the part stays where the relationships point). */
export async function replaceSpecPart(aasx: Uint8Array, specText: string): Promise<Uint8Array> {
  const { unzipSync, zipSync, strToU8 } = await import("fflate");
  const entries = unzipSync(aasx);
  const spec = Object.keys(entries).find((name) => /^aasx\/aas\//.test(name))!;
  delete entries[spec];
  entries[spec.replace(/\.xml$/, ".json")] = strToU8(specText);
  const rels = Object.keys(entries).find((name) => name.startsWith("aasx/_rels/"))!;
  entries[rels] = strToU8(new TextDecoder().decode(entries[rels]).replace(/aas\.aas\.xml/g, "aas.aas.json"));
  // Stored, not deflated: repetitive deep JSON compresses past the zip-bomb ratio guard.
  return zipSync(entries, { level: 0 });
}

/** A POST whose `onSent` fires once the whole body has been handed to the socket. */
export async function postRaw(
  client: HttpClient,
  ca: string | undefined,
  path: string,
  body: Buffer,
  type: string,
  onSent: () => void,
): Promise<HttpResponse> {
  const url = new URL(client.baseUrl.replace(/\/$/, "") + path);
  return await new Promise((resolve, reject) => {
    const headers = { "content-type": type, "content-length": String(body.length) };
    const request = https.request(
      url,
      { method: "POST", headers, ca, rejectUnauthorized: ca !== undefined },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    request.on("error", reject);
    request.on("finish", onSent);
    request.end(body);
  });
}
