// Protocol-neutral parts of authentication (issue 13), shared by the HTTP and OPC UA gateways: the
// Principals they build and the certificate subject format both use.
export { subjectDistinguishedName } from "./distinguished-name.ts";
export { certificatePrincipal, userPrincipal } from "./principals.ts";
