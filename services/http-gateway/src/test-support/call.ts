import assert from "node:assert/strict";
import type { Hono } from "hono";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** One request through app.request(), with the body read and parsed when it is JSON. */
export async function call(
  app: Hono,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  // A string body would otherwise travel as text/plain, which JSON operations refuse (415).
  const hasType = Object.keys(init.headers ?? {}).some((name) => name.toLowerCase() === "content-type");
  const headers =
    init.body !== undefined && !hasType ? { "content-type": "application/json", ...init.headers } : init.headers;
  const response = await app.request(path, { method, body: init.body, headers });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Asserts the exact AAS `Result` shape: messages with only messageType/text/code/timestamp. */
export function assertResult(answer: Answer, status: number, textPattern?: RegExp): void {
  assert.equal(answer.status, status, `expected ${status}, got ${answer.status}: ${answer.text}`);
  assert.equal(answer.headers.get("content-type"), "application/json");
  assert.deepEqual(Object.keys(answer.json), ["messages"]);
  assert.ok(answer.json.messages.length >= 1);
  for (const message of answer.json.messages) {
    assert.deepEqual(Object.keys(message).sort(), ["code", "messageType", "text", "timestamp"]);
    assert.equal(message.code, String(status));
    assert.match(message.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  }
  assert.equal(answer.json.messages[0].messageType, "Error");
  if (textPattern) assert.match(answer.json.messages[0].text, textPattern);
}
