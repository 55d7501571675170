import type { X509Certificate } from "node:crypto";

/**
 * A certificate's subject as an RFC 4514 string: most specific RDN first (the reverse of the order
 * in the certificate), RDNs joined by "," without spaces, multi-valued RDNs by "+", OpenSSL's short
 * attribute names (CN, O, OU, C, L, ST, emailAddress, ...) and RFC 2253/4514 escaping of values.
 * It is what `openssl x509 -noout -subject -nameopt RFC2253` prints after `subject=`, so an operator
 * can copy it into `roleAssignments` and rules, which compare it exactly. Built from Node's `subject` (OpenSSL's
 * X509_NAME_print_ex with ESC_2253, one RDN per line, " + " inside an RDN; control characters are
 * escaped, so a line break always separates RDNs).
 */
export function subjectDistinguishedName(certificate: X509Certificate): string {
  return (
    certificate.subject
      .split("\n")
      .filter((rdn) => rdn !== "")
      .reverse()
      // OpenSSL's RFC2253 output reverses the parts of a multi-valued RDN too.
      .map((rdn) =>
        rdn
          .split(/(?<!\\) \+ /)
          .reverse()
          .join("+"),
      )
      .join(",")
  );
}
