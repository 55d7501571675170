// Certificates and key stores: node-forge (ADR 0022) behind these functions, for every package;
// only this folder imports it. Imports nothing else of ours.

export { type FileLockOptions, withFileLock } from "./file-lock.ts";
export { type KeyStoreSettings, readKeyStore } from "./key-store.ts";
export { type KeyStoreContent, type KeyStoreOrigin, type Pkcs12Passwords, readPkcs12 } from "./pkcs12.ts";
export { createSelfSignedCertificate, type SelfSignedRequest } from "./self-signed.ts";
