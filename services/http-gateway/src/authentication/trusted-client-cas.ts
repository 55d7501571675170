import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { ConfigError } from "@twinport/shared";

/**
 * The PEM certificates of `trustedCaFiles`, checked at start-up: a missing file or one without a
 * certificate is a configuration error, not a server that silently trusts nobody.
 */
export async function trustedClientCas(files: readonly string[]): Promise<string[]> {
  return Promise.all(
    files.map(async (file) => {
      let pem: string;
      try {
        pem = await readFile(file, "utf8");
      } catch (error) {
        throw new ConfigError(
          `security.authentication.clientCertificates.trustedCaFiles: cannot read ${file}: ${(error as Error).message}`,
        );
      }
      try {
        new X509Certificate(pem);
      } catch {
        throw new ConfigError(
          `security.authentication.clientCertificates.trustedCaFiles: ${file} holds no PEM certificate`,
        );
      }
      return pem;
    }),
  );
}
