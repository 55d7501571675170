import type { TLSSocket } from "node:tls";
import { subjectDistinguishedName } from "@twinport/shared";

/** What a connection's client certificate says: none, one the trusted CAs issued, or a refused one. */
export type ClientCertificate = { verified: true; subject: string } | { verified: false; reason: string };

// A keep-alive connection carries many requests with one handshake: look at its certificate once.
const seen = new WeakMap<TLSSocket, ClientCertificate | null>();

/**
 * The client certificate of a TLS connection on which the server asked for one (requestCert) and
 * verified it against the configured CAs only, without refusing the handshake (rejectUnauthorized
 * false), so that a client without a certificate can still use a token or stay anonymous.
 */
export function clientCertificateOf(socket: TLSSocket): ClientCertificate | undefined {
  let result = seen.get(socket);
  if (result === undefined) {
    const certificate = socket.getPeerX509Certificate();
    if (certificate === undefined) result = null;
    else if (socket.authorized) result = { verified: true, subject: subjectDistinguishedName(certificate) };
    else
      result = {
        verified: false,
        reason: `the client certificate is not accepted (${String(socket.authorizationError ?? "not issued by a trusted CA")})`,
      };
    seen.set(socket, result);
  }
  return result ?? undefined;
}
