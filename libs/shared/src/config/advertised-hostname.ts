import { isIP } from "node:net";
import { z } from "zod";

/**
 * `hostname` of an HTTP endpoint: what registry descriptors and the self-signed certificate name.
 * A host name (letters, digits, `-`, `_`, dots), an IP address (IPv6 with or without brackets), or
 * an http(s) URL with a host (docs/registries.md). Anything else was accepted and advertised:
 * `twin.example.com:9999` became `https://twin.example.com:9999:8443/api/v3.0` in every descriptor.
 */
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

export function isAdvertisableHostname(value: string): boolean {
  if (HOST_NAME.test(value) || isIP(value) !== 0 || isIP(value.replace(/^\[(.*)\]$/, "$1")) === 6) return true;
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return url.hostname !== "" && url.username === "" && url.password === "" && !/\s/.test(value);
  } catch {
    return false;
  }
}

export const advertisedHostnameSchema = z.string().min(1).refine(isAdvertisableHostname, {
  message:
    'expected a host name or address ("twin.example.com", "10.0.0.5") or an http(s) URL ("https://twins.example.com/plant-7"); a port goes into the URL form',
});
