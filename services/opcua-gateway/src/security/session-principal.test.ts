import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { test } from "node:test";
import { ANONYMOUS, createSelfSignedCertificate } from "@twinport/shared";
import { AnonymousIdentityToken, UserNameIdentityToken, X509IdentityToken } from "node-opcua";
import { principalOfIdentityToken } from "./session-principal.ts";

const assignments = [
  { user: "alice", roles: ["operator", "viewer"] },
  { user: "alice", roles: ["viewer"] },
  { certificateSubject: "O=Plant,CN=line-3", roles: ["machine"] },
];

/** A certificate whose subject is CN=line-3 then O=Plant, in that (certificate) order. */
async function certificate(): Promise<Buffer> {
  const { cert } = await createSelfSignedCertificate({ names: ["line-3"], organization: "Plant", validityDays: 1 });
  return Buffer.from(new X509Certificate(cert).raw);
}

test("a UserName token is that user, with the roles assigned to the name", () => {
  const principal = principalOfIdentityToken(
    new UserNameIdentityToken({ userName: "alice", policyId: "username" }),
    assignments,
  );
  assert.deepEqual(principal, { kind: "user", name: "alice", roles: ["operator", "viewer"] });
  assert.deepEqual(
    principalOfIdentityToken(new UserNameIdentityToken({ userName: "bob", policyId: "username" }), assignments),
    { kind: "user", name: "bob", roles: [] },
  );
});

test("an X.509 token is the certificate's subject DN as RFC 4514 writes it (last RDN first), with its roles", async () => {
  const principal = principalOfIdentityToken(
    new X509IdentityToken({ certificateData: await certificate(), policyId: "certificate" }),
    assignments,
  );
  assert.deepEqual(principal, { kind: "certificate", name: "O=Plant,CN=line-3", roles: ["machine"] });
});

test("Anonymous, no token, or an unreadable certificate are anonymous", () => {
  assert.equal(principalOfIdentityToken(new AnonymousIdentityToken({ policyId: "anonymous" }), assignments), ANONYMOUS);
  assert.equal(principalOfIdentityToken(undefined, assignments), ANONYMOUS);
  assert.equal(
    principalOfIdentityToken(
      new X509IdentityToken({ certificateData: Buffer.from("not a certificate"), policyId: "c" }),
      assignments,
    ),
    ANONYMOUS,
  );
});
