import assert from "node:assert/strict";
import { test } from "node:test";
import { checkImport, checkNodeOpcuaVersions, checkProcessAccess, importsOf } from "./dependency-rules.ts";

test("infrastructure clients belong to one package each", () => {
  assert.ok(checkImport("libs/shared/src/engine/x.ts", "ioredis"));
  assert.equal(checkImport("services/model-store/src/redis/x.ts", "ioredis"), undefined);
  assert.ok(checkImport("services/model-store/src/x.ts", "hono"));
  assert.equal(checkImport("services/http-gateway/src/app.ts", "@hono/node-server"), undefined);
  assert.ok(checkImport("services/http-gateway/src/x.ts", "node-opcua"));
  assert.equal(checkImport("services/opcua-gateway/src/x.ts", "node-opcua"), undefined);
  assert.equal(checkImport("services/model-store/src/asset-connections/opcua.ts", "node-opcua-client"), undefined);
  assert.ok(checkImport("services/model-store/src/redis/x.ts", "node-opcua-client"));
  assert.ok(checkImport("libs/shared/src/engine/x.ts", "@nats-io/nats-core"));
  assert.ok(checkImport("services/http-gateway/src/x.ts", "@nats-io/transport-node"));
  assert.equal(checkImport("libs/shared/src/bus/x.ts", "@nats-io/transport-node"), undefined);
  assert.equal(checkImport("libs/shared/src/bus/x.ts", "@nats-io/nats-core"), undefined);
  assert.equal(
    checkImport("libs/shared/src/engine/x.test.ts", "@nats-io/nats-core"),
    undefined,
    "tests in libs/shared may take a connection's type",
  );
  assert.equal(checkImport("libs/shared/src/certificates/pkcs12.ts", "node-forge"), undefined);
  assert.ok(checkImport("services/http-gateway/src/tls/x.ts", "node-forge"), "one certificate library, in one folder");
});

test("the superseded nats v2 package is refused everywhere, its old owner included", () => {
  assert.match(checkImport("libs/shared/src/bus/x.ts", "nats")?.rule ?? "", /superseded by @nats-io/);
  assert.ok(checkImport("libs/shared/src/bus/x.test.ts", "nats/lib/src/mod.js"));
  assert.equal(
    checkImport("libs/shared/src/bus/x.ts", "natsort"),
    undefined,
    "only that package, not every name starting with nats",
  );
});

test("layers inside libs/shared", () => {
  assert.ok(checkImport("libs/shared/src/aas/x.ts", "../contracts/index.ts"));
  assert.equal(checkImport("libs/shared/src/engine/x.ts", "../aas/index.ts"), undefined);
  assert.ok(checkImport("libs/shared/src/engine/x.ts", "../bus/index.ts"));
  assert.equal(checkImport("libs/shared/src/bus/x.ts", "../engine/ports/index.ts"), undefined);
  assert.ok(checkImport("libs/shared/src/bus/x.ts", "../engine/create-engine.ts"));
  assert.ok(checkImport("libs/shared/src/certificates/x.ts", "../config/index.ts"));
  assert.ok(checkImport("libs/shared/src/contracts/x.ts", "../aas/index.ts", false));
  assert.equal(checkImport("libs/shared/src/contracts/x.ts", "../aas/index.ts", true), undefined);
});

test("services never import each other, libs never import services, no deep imports", () => {
  assert.ok(checkImport("services/http-gateway/src/x.ts", "@twinport/model-store"));
  assert.ok(checkImport("services/http-gateway/src/x.ts", "../../model-store/src/index.ts"));
  assert.ok(checkImport("libs/shared/src/engine/x.ts", "@twinport/http-gateway"));
  assert.ok(checkImport("services/http-gateway/src/x.ts", "@twinport/shared/src/aas/index.ts"));
  assert.equal(checkImport("services/http-gateway/src/x.ts", "@twinport/shared"), undefined);
  assert.equal(checkImport("bin/embedded.ts", "@twinport/http-gateway"), undefined);
  assert.ok(checkImport("services/http-gateway/src/app.ts", "@twinport/shared/test-support"));
  assert.equal(checkImport("services/http-gateway/src/app.test.ts", "@twinport/shared/test-support"), undefined);
});

test("only main.ts reads the environment or installs signal handlers", () => {
  assert.equal(checkProcessAccess("services/model-store/src/main.ts", "process.env.X").length, 0);
  assert.equal(checkProcessAccess("services/model-store/src/redis/x.ts", "const u = process.env.X").length, 1);
  assert.equal(checkProcessAccess("libs/shared/src/engine/x.ts", 'process.on("SIGTERM", f)').length, 1);
});

test("finds static, side-effect, dynamic and type-only imports", () => {
  const found = importsOf(
    `import type { A } from "./a.ts";\nimport { B,\n C } from "b";\nimport "./c.ts";\nconst d = await import("d");\nexport * from "./e.ts";`,
  );
  assert.deepEqual(
    found.map((f) => [f.specifier, f.typeOnly]),
    [
      ["./a.ts", true],
      ["b", false],
      ["./e.ts", false],
      ["./c.ts", false],
      ["d", false],
    ],
  );
});

test("tests beside the code may import contract suites and test support", () => {
  assert.equal(checkImport("libs/shared/src/engine/engine.test.ts", "../test-support/engine-contract.ts"), undefined);
  assert.equal(checkImport("libs/shared/src/bus/x.test.ts", "../../../../tests/test-support/servers.ts"), undefined);
  assert.ok(checkImport("libs/shared/src/engine/x.test.ts", "ioredis"), "but not other packages' infrastructure");
});

test("production code never imports test support; test support may", () => {
  assert.ok(checkImport("services/model-store/src/asset-connections/runner.ts", "./test-support/asset-connections.ts"));
  assert.ok(checkImport("libs/shared/src/engine/handlers/x.ts", "./test-support/files.ts"));
  assert.ok(checkImport("bin/embedded.ts", "./test-support/spawn-twinport.ts"));
  assert.ok(checkImport("bin/embedded.ts", "../tests/test-support/servers.ts"));
  assert.ok(checkImport("libs/shared/src/engine/x.ts", "@twinport/shared/test-support"));
  assert.equal(
    checkImport("libs/shared/src/engine/handlers/test-support/files.ts", "../../memory/memory-file-store.ts"),
    undefined,
  );
  assert.equal(checkImport("services/opcua-gateway/src/security/test-support/open-session.ts", "../x.ts"), undefined);
  assert.equal(
    checkImport("services/http-gateway/src/test-support/call.ts", "@twinport/shared/test-support"),
    undefined,
  );
  // The launcher's parser subpath is for bin/ only.
  assert.equal(checkImport("bin/help.ts", "@twinport/shared/command-line"), undefined);
  assert.ok(checkImport("services/http-gateway/src/x.ts", "@twinport/shared/command-line"));
});

test("node-opcua packages: exact versions, all the same", () => {
  const gateway = { file: "services/opcua-gateway/package.json", dependencies: { "node-opcua": "2.186.4" } };
  assert.deepEqual(
    checkNodeOpcuaVersions([
      gateway,
      { file: "services/model-store/package.json", dependencies: { "node-opcua-client": "2.186.4", mqtt: "^5.16.0" } },
    ]),
    [],
  );
  assert.deepEqual(
    checkNodeOpcuaVersions([
      gateway,
      { file: "services/model-store/package.json", dependencies: { "node-opcua-client": "^2.186.4" } },
    ]).map((v) => v.rule),
    ["node-opcua packages are pinned to an exact version", "every node-opcua package has the same version"],
  );
  assert.equal(
    checkNodeOpcuaVersions([
      gateway,
      { file: "m/package.json", dependencies: { "node-opcua-certificate-manager": "2.186.1" } },
    ]).length,
    1,
  );
});

test("the web console imports none of our packages: it uses the public HTTP API", () => {
  assert.match(String(checkImport("console/src/api.ts", "@twinport/shared")?.rule), /public HTTP API only/);
  assert.ok(checkImport("console/src/components/app.tsx", "@twinport/http-gateway"));
  assert.equal(checkImport("console/src/main.tsx", "preact"), undefined);
  assert.equal(checkImport("console/src/main.tsx", "./components/app.tsx"), undefined);
});
