import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { compileAccessPolicy } from "../engine/index.ts";
import { ConfigError, loadConfig } from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "twinport-security-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function load(content: unknown) {
  const configFile = join(dir, `config-${files++}.json`);
  writeFileSync(configFile, JSON.stringify(content));
  return loadConfig({ role: "embedded", configFile }).config;
}

const rule = (objects: unknown[]) => ({ subjects: [{ role: "operator" }], rights: ["READ"], objects });

test("the rules as configured compile into the engine's policy (the config and engine shapes agree)", () => {
  const config = load({
    security: {
      roleAssignments: [{ user: "alice", roles: ["operator"] }],
      rules: [
        rule([
          { submodels: "urn:*", idShortPath: "A.B[0]" },
          { semanticId: "urn:sem", idShortPath: "X" },
          { proprietary: "packages" },
          { all: true },
        ]),
      ],
    },
  });
  const grants = compileAccessPolicy(config.security!.rules).grantsOf({
    kind: "user",
    name: "alice",
    roles: ["operator"],
  });
  assert.equal(grants.right("READ").all, true);
  assert.equal(grants.right("UPDATE").all, false);
});

test("an idShortPath prefix that names no element is refused when the configuration loads", () => {
  for (const idShortPath of ["A.*", "A..B", "L[x]"]) {
    assert.throws(
      () => load({ security: { rules: [rule([{ submodels: "urn:*", idShortPath }])] } }),
      (error: ConfigError) =>
        error.issues.some((issue) => issue.includes("Invalid idShortPath") && issue.includes("no patterns")),
      idShortPath,
    );
  }
});

test("an object none of its rule's rights reaches (READ on /reset) is refused when the configuration loads, naming the rule", () => {
  const issues = (rules: unknown[]) => {
    try {
      load({ security: { rules } });
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return error.issues;
    }
    assert.fail("loaded");
  };
  const nothing = (at: string, object: string, rights: string, needs: string) =>
    `Invalid value at 'security.rules[${at}]': ${object} is granted ${rights}, which no request asks of it: the rule grants nothing there (it needs ${needs})`;
  assert.deepEqual(
    issues([
      { subjects: [{ role: "a" }], rights: ["READ"], objects: [{ all: true }] },
      rule([{ proprietary: "reset" }]),
    ]),
    [nothing("1].objects[0", '{"proprietary":"reset"}', "READ", "DELETE")],
  );
  assert.deepEqual(
    issues([
      {
        subjects: [{ role: "operator" }],
        rights: ["READ", "UPDATE", "EXECUTE"],
        objects: [{ submodels: "urn:*" }, { proprietary: "import" }, { proprietary: "packages" }],
      },
      {
        subjects: [{ role: "operator" }],
        rights: ["EXECUTE"],
        objects: [{ shells: "urn:*" }, { conceptDescriptions: "*" }],
      },
    ]),
    [
      nothing("0].objects[1", '{"proprietary":"import"}', "READ, UPDATE, EXECUTE", "CREATE"),
      nothing("1].objects[0", '{"shells":"urn:*"}', "EXECUTE", "READ or CREATE or UPDATE or DELETE"),
      nothing("1].objects[1", '{"conceptDescriptions":"*"}', "EXECUTE", "READ or CREATE or UPDATE or DELETE"),
    ],
  );
  // Each object reached by one of the rule's rights: one rule may serve several objects.
  const config = load({
    security: {
      rules: [
        {
          subjects: [{ role: "admin" }],
          rights: ["READ", "CREATE", "UPDATE", "DELETE", "EXECUTE"],
          objects: [{ submodels: "*" }, { shells: "*" }, { proprietary: "reset" }, { proprietary: "import" }],
        },
      ],
    },
  });
  assert.equal(config.security?.rules.length, 1);
});

test("a rule's object or subject of no known kind is named with the kinds there are", () => {
  const issues = (content: unknown) => {
    try {
      load(content);
    } catch (error) {
      return (error as ConfigError).issues;
    }
    assert.fail("loaded");
  };
  // A key of another kind: the kind its other keys name, not the union's first (`all`).
  assert.deepEqual(issues({ security: { rules: [rule([{ shells: "urn:*", idShortPath: "A" }])] } }), [
    "Unknown key 'security.rules[0].objects[0].idShortPath'. Allowed: shells",
  ]);
  // A key no kind has: named, with the closest one (zod said "Invalid input").
  assert.deepEqual(issues({ security: { rules: [rule([{ shell: "urn:*" }])] } }), [
    "Unknown key 'security.rules[0].objects[0].shell'. Did you mean 'shells'? Allowed: all, shells, submodels, idShortPath, semanticId, conceptDescriptions, proprietary",
  ]);
  assert.deepEqual(
    issues({ security: { rules: [{ subjects: [{ rol: "x" }], rights: ["READ"], objects: [{ all: true }] }] } }),
    [
      "Unknown key 'security.rules[0].subjects[0].rol'. Did you mean 'role'? Allowed: role, user, certificateSubject, anonymous, authenticated",
    ],
  );
  // The kind the keys name, with a value it does not take: that value is named.
  assert.deepEqual(issues({ security: { rules: [rule([{ proprietary: "foo" }])] } }), [
    `Invalid value "foo" at 'security.rules[0].objects[0].proprietary'. Allowed: reset, import, packages`,
  ]);
  assert.deepEqual(issues({ security: { rules: [rule([{ submodels: 5 }])] } }), [
    "Invalid value at 'security.rules[0].objects[0].submodels': expected string, got number 5",
  ]);
  assert.deepEqual(issues({ security: { roleAssignments: [{ usr: "a", roles: ["x"] }], rules: [] } }), [
    "Unknown key 'security.roleAssignments[0].usr'. Did you mean 'user'? Allowed: user, roles, certificateSubject",
  ]);
  // Keys of no single kind, all known: the kinds there are.
  assert.deepEqual(issues({ security: { rules: [rule([{ all: true, shells: "x" }])] } }), [
    "Invalid value at 'security.rules[0].objects[0]': expected one of {all} or {shells} or {submodels, [idShortPath]} or {semanticId, [idShortPath]} or {conceptDescriptions} or {proprietary}",
  ]);
  assert.deepEqual(issues({ security: { roleAssignments: [{ user: "a", roles: ["x"], x: 1 }], rules: [] } }), [
    "Unknown key 'security.roleAssignments[0].x'. Allowed: user, roles",
  ]);
});

test("a bearer section without audience says what is missing and what it takes, as without issuer", () => {
  const message = (bearer: unknown) => {
    try {
      load({ security: { authentication: { bearer }, rules: [] } });
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return error.message;
    }
    assert.fail("loaded");
  };
  assert.equal(
    message({ issuer: "https://login.example.com" }),
    "Missing 'security.authentication.bearer.audience' (a string or a non-empty list of strings)",
  );
  assert.equal(message({ audience: "twinport-api" }), "Missing 'security.authentication.bearer.issuer' (string)");
  assert.equal(
    message({ issuer: "https://login.example.com", audience: 5 }),
    "Invalid value at 'security.authentication.bearer.audience': expected a string or a non-empty list of strings (got number 5)",
  );
  assert.deepEqual(
    load({
      security: {
        authentication: { bearer: { issuer: "https://login.example.com", audience: ["a", "b"] } },
        rules: [],
      },
    }).security?.authentication.bearer?.audience,
    ["a", "b"],
  );
});

test("a certificate subject copied with OpenSSL's escapes of non-ASCII bytes is compared as the characters; one that is no DN is refused", async () => {
  const { canonicalDistinguishedName } = await import("./distinguished-name-spelling.ts");
  assert.equal(canonicalDistinguishedName("CN=r\\C3\\B6bot,O=Pl\\C3\\A4nt GmbH,C=DE"), "CN=röbot,O=Plänt GmbH,C=DE");
  // Escapes of ASCII characters stay: a decoded \2C would read as a separator.
  assert.equal(canonicalDistinguishedName("CN=robot\\2C O=Plant\\,x"), "CN=robot\\2C O=Plant\\,x");
  // Not UTF-8: left as written.
  assert.equal(canonicalDistinguishedName("CN=\\C3"), "CN=\\C3");
  const config = load({
    security: {
      roleAssignments: [{ certificateSubject: "CN=r\\C3\\B6bot,C=DE", roles: ["operator"] }],
      rules: [
        { subjects: [{ certificateSubject: "CN=r\\C3\\B6bot,C=DE" }], rights: ["READ"], objects: [{ all: true }] },
      ],
    },
  });
  assert.deepEqual(config.security?.roleAssignments, [{ certificateSubject: "CN=röbot,C=DE", roles: ["operator"] }]);
  assert.deepEqual(config.security?.rules[0]?.subjects, [{ certificateSubject: "CN=röbot,C=DE" }]);
  // An attribute OpenSSL has no name for is written as its OID (RFC 4514).
  assert.deepEqual(
    load({
      security: { roleAssignments: [{ certificateSubject: "2.5.4.45=#0301,CN=x", roles: ["operator"] }], rules: [] },
    }).security?.roleAssignments,
    [{ certificateSubject: "2.5.4.45=#0301,CN=x", roles: ["operator"] }],
  );
  assert.throws(
    () =>
      load({ security: { roleAssignments: [{ certificateSubject: "robot-cell-1", roles: ["operator"] }], rules: [] } }),
    (error: unknown) => error instanceof ConfigError && /expected a distinguished name/.test(error.message),
  );
});
