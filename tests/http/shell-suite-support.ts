/**
 * Assertions shared by the black-box suites of the AAS Repository, AAS, Concept Description,
 * Discovery and Description APIs: exact `Result` bodies, paged envelopes, and bodies read back as
 * valid v3.0 objects with aas-core (unknown properties refused, constraints verified).
 */
import assert from "node:assert/strict";
import { type ReadableClassName, readModel } from "@twinport/shared";
import type { HttpResponse } from "../test-support/http-client.ts";

/** A status and an error body that is exactly `{"messages":[…]}` with the Message fields only. */
export function assertResult(res: HttpResponse, status: number, text?: RegExp): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ["messages"], "an error body is exactly {messages:[…]}");
  assert.ok(body.messages.length >= 1);
  for (const message of body.messages) {
    for (const key of Object.keys(message))
      assert.ok(
        ["messageType", "text", "code", "timestamp", "correlationId"].includes(key),
        `unexpected message field ${key}`,
      );
    assert.ok(["Error", "Exception"].includes(message.messageType));
    assert.equal(typeof message.text, "string");
    assert.match(message.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.equal(message.code, String(status));
  }
  if (text) assert.match(body.messages[0].text, text);
}

/** 200 with `{"paging_metadata":{…},"result":[…]}`; returns the result and the next cursor. */
export function paged(res: HttpResponse): { result: any[]; cursor?: string } {
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ["paging_metadata", "result"]);
  assert.ok(Array.isArray(body.result));
  const { cursor, ...rest } = body.paging_metadata;
  assert.deepEqual(rest, {}, "paging_metadata holds at most a cursor");
  if (cursor !== undefined) assert.ok(typeof cursor === "string" && cursor !== "");
  return { result: body.result, cursor };
}

/** The value, after checking it is a valid v3.0 object of that class that round-trips unchanged. */
export function valid<T = any>(value: unknown, className: ReadableClassName): T {
  const read = readModel(value, className, { validate: true });
  assert.deepEqual(read.jsonable, value, `${className} does not round-trip through aas-core`);
  return value as T;
}

/** An AssetInformation is checked as part of a minimal shell (aas-core reads it only there). */
export function validAssetInformation(value: unknown): any {
  const shell = { modelType: "AssetAdministrationShell", id: "urn:check", assetInformation: value };
  return valid<any>(shell, "AssetAdministrationShell").assetInformation;
}

export function shellBody(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    modelType: "AssetAdministrationShell",
    id,
    idShort: "Shell",
    assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset` },
    ...extra,
  };
}

export function submodelRef(id: string): Record<string, unknown> {
  return { type: "ModelReference", keys: [{ type: "Submodel", value: id }] };
}

export function etagOf(res: HttpResponse): string {
  const etag = res.headers.etag;
  // `"<revision>"`, or `"<revision>.<item>"` for an element addressed through a list index.
  assert.match(String(etag), /^"\d+(\.[0-9a-f]+)?"$/, "a strong ETag");
  return String(etag);
}
