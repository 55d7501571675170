import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "./logger.ts";
import { routeNodeOpcuaLogs } from "./node-opcua-logs.ts";

// The loggers node-opcua-debug would hold: this file calls them the way its make_errorLog,
// make_warningLog and make_debugLog do, with the caller's context first. (A warning raised by a
// real node-opcua server is tested in services/opcua-gateway/src/node-opcua-logging.test.ts.)
type Print = (...args: unknown[]) => void;
function routed(level: "debug" | "info" = "debug") {
  const records: Record<string, unknown>[] = [];
  const held: { error?: Print; warn?: Print; debug?: Print } = {};
  const logger = createLogger({
    role: "test",
    level,
    destination: { write: (text: string) => records.push(JSON.parse(text)) },
  });
  routeNodeOpcuaLogs(logger, {
    setErrorLogger: (log) => (held.error = log),
    setWarningLogger: (log) => (held.warn = log),
    setDebugLogger: (log) => (held.debug = log),
  });
  return { records, error: held.error!, warn: held.warn!, debug: held.debug! };
}

test("errors stay errors; warnings and debug lines are debug; each with the module and source line of node-opcua", () => {
  const { records, error, warn, debug } = routed();
  error({ filename: "server_end_point", callerline: 1418 }, "PREVENTING DDOS ATTACK => maxConnection =", 3);
  warn({ filename: "monitored_item", callerline: 12 }, "a %s warning", "formatted");
  // setDebugFlag passes its own full path; the module is still the base name.
  debug(
    { filename: "/x/node_modules/node-opcua-debug/dist/make_loggers.js", callerline: -1 },
    " Setting debug for ",
    "\u001b[33mfoo\u001b[39m",
  );
  assert.deepEqual(
    records.map(({ level, component, module, line, opcuaLevel, msg }) => ({
      level,
      component,
      module,
      line,
      opcuaLevel,
      msg,
    })),
    [
      {
        level: 50,
        component: "node-opcua",
        module: "server_end_point",
        line: 1418,
        opcuaLevel: undefined,
        msg: "PREVENTING DDOS ATTACK => maxConnection = 3",
      },
      {
        level: 20,
        component: "node-opcua",
        module: "monitored_item",
        line: 12,
        opcuaLevel: "warn",
        msg: "a formatted warning",
      },
      {
        level: 20,
        component: "node-opcua",
        module: "make_loggers",
        line: undefined,
        opcuaLevel: undefined,
        msg: " Setting debug for  foo",
      },
    ],
  );
});

test("at the info level only node-opcua's errors are logged: its warnings and debug lines are chatter", () => {
  const { records, error, warn, debug } = routed("info");
  debug({ filename: "monitored_item", callerline: 1 }, "chatter");
  warn({ filename: "ua_variable_impl", callerline: 1290 }, "bindExtensionObject: coerce to ExtensionObject[]");
  error({ filename: "server_end_point", callerline: 2 }, "worth reading");
  assert.deepEqual(
    records.map((record) => record.msg),
    ["worth reading"],
  );
});

test("one place logs at most 100 lines, then says it stops (node-opcua's own loggers had that cap)", () => {
  const { records, warn } = routed();
  for (let i = 0; i < 150; i++) warn({ filename: "tcp_transport", callerline: 228 }, "again", i);
  warn({ filename: "tcp_transport", callerline: 229 }, "another place");
  assert.equal(records.length, 102);
  assert.equal(records[99]!.msg, "again 99");
  assert.match(String(records[100]!.msg), /100 lines from this place; no more are logged from it/);
  assert.equal(records[101]!.msg, "another place");
});
