// Certificates and key stores: node-forge (ADR 0022) behind these functions, for every package;
// only this folder imports it. Imports nothing else of ours.
export { readKeyStore, type KeyStoreSettings } from "./key-store.ts";
export { readPkcs12, type KeyStoreContent, type KeyStoreOrigin, type Pkcs12Passwords } from "./pkcs12.ts";
export { createSelfSignedCertificate, type SelfSignedRequest } from "./self-signed.ts";
export { withFileLock, type FileLockOptions } from "./file-lock.ts";
