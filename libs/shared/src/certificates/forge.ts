import { getHashes, pbkdf2Sync } from "node:crypto";
import type forgeModule from "node-forge";

export type Forge = typeof forgeModule;

/**
 * node-forge is loaded on first use only: most processes never read a key store, and it is a
 * few hundred kilobytes of JavaScript to parse at start-up.
 */
let forgeLoaded: Promise<Forge> | undefined;
export function loadForge(): Promise<Forge> {
  forgeLoaded ??= import("node-forge").then((module) =>
    nativePbkdf2((module as unknown as { default: Forge }).default ?? (module as unknown as Forge)),
  );
  return forgeLoaded;
}

type Pbkdf2 = (
  password: string,
  salt: string,
  iterations: number,
  keyLength: number,
  md?: unknown,
  callback?: unknown,
) => string;

/**
 * forge derives PBES2 keys in JavaScript whenever the PRF comes as a digest object, which is how
 * its own PBES2 code asks: a keytool key store (10,000 iterations of HMAC-SHA-256 per key and per
 * certificate block) took 0.9 s to open, 70 ms with node:crypto doing the same derivation. Only
 * synchronous calls with a digest node:crypto knows are redirected. The password goes in as UTF-8,
 * as openssl and Java encode it for PBES2 (forge would take the low byte of each character, so a
 * password like "Schlüssel€" failed); the MAC and the legacy ciphers use forge's own BMPString key
 * derivation, which was right already.
 */
function nativePbkdf2(forge: Forge): Forge {
  const pkcs5 = forge.pkcs5 as unknown as { pbkdf2: Pbkdf2 };
  const javascript = pkcs5.pbkdf2;
  const known = new Set(getHashes());
  pkcs5.pbkdf2 = (password, salt, iterations, keyLength, md, callback) => {
    const name = typeof md === "object" && md !== null ? (md as { algorithm?: unknown }).algorithm : undefined;
    if (callback !== undefined || typeof name !== "string" || !known.has(name))
      return javascript(password, salt, iterations, keyLength, md, callback);
    return pbkdf2Sync(Buffer.from(password, "utf8"), Buffer.from(salt, "binary"), iterations, keyLength, name).toString(
      "binary",
    );
  };
  return forge;
}
