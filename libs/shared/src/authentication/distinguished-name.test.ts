import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { subjectDistinguishedName } from "./distinguished-name.ts";
import { certificatePrincipal, userPrincipal } from "./principals.ts";

/** A self-signed certificate made by the openssl CLI, and what openssl prints as its RFC 2253 subject. */
function opensslCertificate(subject: string, extra: string[] = []): { certificate: X509Certificate; openssl: string } {
  const dir = mkdtempSync(join(tmpdir(), "twinport-dn-"));
  try {
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        subject,
        ...extra,
      ],
      { stdio: "pipe" },
    );
    const printed = execFileSync("openssl", ["x509", "-in", cert, "-noout", "-subject", "-nameopt", "RFC2253"], {
      encoding: "utf8",
    });
    return { certificate: new X509Certificate(readFileSync(cert)), openssl: printed.trim().replace(/^subject=/, "") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the subject DN is what openssl prints with -nameopt RFC2253: most specific first, escaped values", () => {
  const { certificate, openssl } = opensslCertificate(
    '/C=DE/O=Example, Inc./OU=Plant 1/CN=alice "the admin"/emailAddress=alice@example.com',
  );
  assert.equal(
    subjectDistinguishedName(certificate),
    'emailAddress=alice@example.com,CN=alice \\"the admin\\",OU=Plant 1,O=Example\\, Inc.,C=DE',
  );
  assert.equal(subjectDistinguishedName(certificate), openssl);
});

test("multi-valued RDNs are joined with + in openssl's order", () => {
  const { certificate, openssl } = opensslCertificate("/O=Example/OU=a+OU=b/CN=robot", ["-multivalue-rdn"]);
  assert.equal(subjectDistinguishedName(certificate), openssl);
  assert.match(subjectDistinguishedName(certificate), /^CN=robot,OU=.\+OU=.,O=Example$/);
});

test("principals take their roles from the identity and from roleAssignments, once each", () => {
  const assignments = [
    { user: "alice", roles: ["operator", "reader"] },
    { certificateSubject: "CN=robot,O=Example", roles: ["writer"] },
    { user: "bob", roles: ["admin"] },
  ];
  assert.deepEqual(userPrincipal("alice", ["reader"], assignments), {
    kind: "user",
    name: "alice",
    roles: ["reader", "operator"],
  });
  assert.deepEqual(certificatePrincipal("CN=robot,O=Example", assignments), {
    kind: "certificate",
    name: "CN=robot,O=Example",
    roles: ["writer"],
  });
  // A user named like a certificate subject gets none of the certificate's roles, and vice versa.
  assert.deepEqual(userPrincipal("CN=robot,O=Example", [], assignments).roles, []);
  assert.deepEqual(certificatePrincipal("bob", assignments).roles, []);
});
