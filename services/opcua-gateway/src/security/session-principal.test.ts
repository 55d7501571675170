import { test } from "node:test";
import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
// @peculiar/x509 needs the Reflect metadata polyfill loaded first (as in the http-gateway).
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { AnonymousIdentityToken, UserNameIdentityToken, X509IdentityToken } from "node-opcua";
import { ANONYMOUS } from "@twinport/shared";
import { principalOfIdentityToken } from "./session-principal.ts";

const assignments = [
  { user: "alice", roles: ["operator", "viewer"] },
  { user: "alice", roles: ["viewer"] },
  { certificateSubject: "CN=line-3,O=Plant,C=DE", roles: ["machine"] },
];

async function certificate(name: string): Promise<Buffer> {
  const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: "01", name, notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), signingAlgorithm: algorithm, keys: keys as unknown as CryptoKeyPair });
  return Buffer.from(cert.rawData);
}

test("a UserName token is that user, with the roles assigned to the name", () => {
  const principal = principalOfIdentityToken(new UserNameIdentityToken({ userName: "alice", policyId: "username" }), assignments);
  assert.deepEqual(principal, { kind: "user", name: "alice", roles: ["operator", "viewer"] });
  assert.deepEqual(principalOfIdentityToken(new UserNameIdentityToken({ userName: "bob", policyId: "username" }), assignments), { kind: "user", name: "bob", roles: [] });
});

test("an X.509 token is the certificate's subject DN, most specific part first, with its roles", async () => {
  // Written in certificate order (C, O, CN): the DN reads CN first.
  const der = await certificate("C=DE, O=Plant, CN=line-3");
  const principal = principalOfIdentityToken(new X509IdentityToken({ certificateData: der, policyId: "certificate" }), assignments);
  assert.deepEqual(principal, { kind: "certificate", name: "CN=line-3,O=Plant,C=DE", roles: ["machine"] });
});

test("Anonymous, no token, or an unreadable certificate are anonymous", () => {
  assert.equal(principalOfIdentityToken(new AnonymousIdentityToken({ policyId: "anonymous" }), assignments), ANONYMOUS);
  assert.equal(principalOfIdentityToken(undefined, assignments), ANONYMOUS);
  assert.equal(principalOfIdentityToken(new X509IdentityToken({ certificateData: Buffer.from("not a certificate"), policyId: "c" }), assignments), ANONYMOUS);
});
