import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HELP_TEXT, parseCommandLine, roleOf, UsageError } from "./index.ts";

describe("parseCommandLine", () => {
  test("no arguments: embedded defaults", () => {
    assert.deepEqual(parseCommandLine([]), {
      role: undefined,
      help: false,
      version: false,
      configFile: undefined,
      modelFiles: [],
      emptyModel: false,
      noValidation: false,
      endpointKinds: [],
      overrides: [],
    });
  });

  test("every option, a role and overrides", () => {
    assert.deepEqual(
      parseCommandLine([
        "model-store",
        "-c",
        "c.json",
        "-m",
        "a.json",
        "--model",
        "b.json",
        "--no-validation",
        "--endpoint",
        "http",
        "--endpoint=OPCUA,http",
        "endpoints[0].port=8081",
        "core.stateDir=/x",
      ]),
      {
        role: "model-store",
        help: false,
        version: false,
        configFile: "c.json",
        modelFiles: ["a.json", "b.json"],
        emptyModel: false,
        noValidation: true,
        endpointKinds: ["http", "opcua"],
        overrides: ["endpoints[0].port=8081", "core.stateDir=/x"],
      },
    );
    assert.equal(parseCommandLine(["--config=c.json", "--help"]).help, true);
    assert.equal(parseCommandLine(["-h"]).help, true);
    assert.equal(parseCommandLine(["http-gateway", "--version"]).version, true);
    assert.equal(parseCommandLine(["-c", "x.json", "http-gateway"]).role, "http-gateway");
  });

  test("usage errors say what is wrong", () => {
    const cases: [string[], RegExp][] = [
      [["--bogus"], /^Unknown option '--bogus'\. Run 'twinport --help' for the options\.$/],
      [["-x"], /^Unknown option '-x'/],
      [["-c"], /^Option '-c, --config' needs a value\.$/],
      [["--endpoint", "mqtt"], /^Unknown endpoint kind 'mqtt' for --endpoint\. Allowed: http, opcua\.$/],
      [
        ["serve"],
        /^Unknown command or argument 'serve'\. Commands: embedded, model-store, http-gateway, opcua-gateway; overrides look like path=value\.$/,
      ],
      [["endpoints[0].port=1", "http-gateway"], /^The command 'http-gateway' must come first\.$/],
      [["--empty-model", "-m", "a.json"], /^--empty-model and -m\/--model exclude each other\.$/],
    ];
    for (const [argv, message] of cases) {
      assert.throws(
        () => parseCommandLine(argv),
        (error: Error) => error instanceof UsageError && message.test(error.message),
        argv.join(" "),
      );
    }
  });

  test("roleOf picks the command, or embedded", () => {
    assert.equal(roleOf(["opcua-gateway", "-c", "x"]), "opcua-gateway");
    assert.equal(roleOf(["-c", "x", "endpoints[0].port=1"]), "embedded");
    assert.equal(roleOf(["--bogus", "http-gateway"]), "embedded");
  });

  test("the help lists every command, option and environment variable", () => {
    for (const word of [
      "model-store",
      "http-gateway",
      "opcua-gateway",
      "embedded",
      "--config",
      "--model",
      "--empty-model",
      "--no-validation",
      "--endpoint",
      "--help",
      "path=value",
      "TWINPORT_CONFIG",
      "TWINPORT_MODEL",
      "TWINPORT_<PATH>",
    ]) {
      assert.ok(HELP_TEXT.includes(word), word);
    }
  });
});

// selectModelFiles and loadModelFiles: model-files.test.ts
