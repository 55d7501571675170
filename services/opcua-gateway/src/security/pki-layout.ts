import { mkdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Spec §5.1: the folders under `serverCertificateBasePath` and `userCertificateBasePath`.
 * `issuers/rejected` has no counterpart in node-opcua (it never files rejected CA certificates
 * separately); it exists because operators and FA³ST tooling expect it.
 */
export const PKI_FOLDERS = {
  /** Trusted peer (client or user) certificates. */
  certs: "certs",
  /** Revocation lists for the trusted certificates. */
  crl: "crl",
  /** Trusted CA certificates. */
  issuerCerts: join("issuers", "certs"),
  issuerCrl: join("issuers", "crl"),
  issuerRejected: join("issuers", "rejected"),
  /** The server's own certificate and key; absent from the user PKI. */
  private: "private",
  /** Unknown or rejected certificates; moving one to `certs` trusts it. */
  rejected: "rejected",
} as const;

export type PkiKind = "server" | "user";

/** The folders of one PKI, relative to its base path, in the order §5.1 lists them. */
export function pkiFolders(kind: PkiKind): string[] {
  const all = [
    PKI_FOLDERS.certs,
    PKI_FOLDERS.crl,
    PKI_FOLDERS.issuerCerts,
    PKI_FOLDERS.issuerCrl,
    PKI_FOLDERS.issuerRejected,
    PKI_FOLDERS.private,
    PKI_FOLDERS.rejected,
  ];
  return kind === "server" ? all : all.filter((folder) => folder !== PKI_FOLDERS.private);
}

/**
 * Creates the layout before node-opcua's certificate manager starts, so an operator finds every
 * folder of §5.1 (also the empty ones) from the first start on; its initialize() would otherwise
 * only create its own layout.
 */
export function createPkiFolders(base: string, kind: PkiKind): void {
  for (const folder of pkiFolders(kind)) {
    // The private key lives in private/: owner only, like node-opcua's own/private.
    mkdirSync(join(base, folder), { recursive: true, mode: folder === PKI_FOLDERS.private ? 0o700 : 0o755 });
  }
}

/**
 * node-opcua's initialize() always creates its own layout (`own/…`, `trusted/…`) under the base,
 * whatever the folder getters say. Nothing reads or writes there with the spec layout, so the
 * empty folders are removed again; a folder someone put files into is left alone.
 */
export function removeNodeOpcuaDefaultFolders(base: string): void {
  for (const folder of ["own/certs", "own/private", "own", "trusted/certs", "trusted/crl", "trusted"]) {
    try {
      rmdirSync(join(base, folder));
    } catch {
      // not empty, or already gone
    }
  }
}
