import assert from "node:assert/strict";
import { test } from "node:test";
import { listenFailureOf } from "./listen-failure.ts";

const failed = (code: string, message = `listen ${code}`) => Object.assign(new Error(message), { code });

test("a bind failure names whether the port or the host is to blame", () => {
  assert.deepEqual(listenFailureOf(failed("EADDRINUSE"), "h"), {
    code: "EADDRINUSE",
    reason: "the port is already in use",
    blame: "port",
  });
  assert.equal(listenFailureOf(failed("EACCES"), "h")?.blame, "port");
  assert.equal(listenFailureOf(failed("EADDRNOTAVAIL"), "h")?.blame, "host");
  assert.match(
    listenFailureOf(failed("ENOTFOUND", "getaddrinfo ENOTFOUND nohost"), "nohost")!.reason,
    /'nohost' does not resolve/,
  );
  assert.equal(listenFailureOf(failed("EPERM"), "h"), undefined);
});

test("a code only in the message (node-opcua wraps the socket's error) is read from there", () => {
  assert.equal(
    listenFailureOf(new Error("cannot start: listen EADDRINUSE: address already in use"), "h")?.code,
    "EADDRINUSE",
  );
  assert.equal(listenFailureOf("something else", "h"), undefined);
});
