import { isIP } from "node:net";
import { hostname as machineName, networkInterfaces } from "node:os";
import type { EndpointProfile, HttpEndpointConfig } from "@twinport/shared";

/** Where one HTTP endpoint serves the AAS API (/shells/{id}) and the Submodel API (/submodels/{id}). */
export interface InterfaceBase {
  /** Externally reachable API root without trailing slash, e.g. https://twin.example.com:8443/api/v3.0 */
  apiRoot: string;
  servesShells: boolean;
  servesSubmodels: boolean;
}

const SHELL_PROFILES: readonly EndpointProfile[] = [
  "AAS_FULL",
  "AAS_READ",
  "AAS_REPOSITORY_FULL",
  "AAS_REPOSITORY_READ",
];
const SUBMODEL_PROFILES: readonly EndpointProfile[] = [
  "SUBMODEL_FULL",
  "SUBMODEL_READ",
  "SUBMODEL_VALUE",
  "SUBMODEL_REPOSITORY_FULL",
  "SUBMODEL_REPOSITORY_READ",
];
const API_PREFIX = "/api/v3.0";
const WILDCARD = new Set(["0.0.0.0", "::", ""]);

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

/**
 * What a registry client elsewhere can reach when no `hostname` is configured: a specific bind
 * address if it is not loopback, else the first non-internal IPv4 address (FA³ST also registers an
 * address), else the machine's name. Loopback or 0.0.0.0 in a registry is useless to anyone else.
 */
export function detectHost(bindAddress: string): string {
  if (!WILDCARD.has(bindAddress) && !isLoopback(bindAddress)) return bindAddress;
  const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  const external =
    addresses.find((a) => !a.internal && a.family === "IPv4") ??
    addresses.find((a) => !a.internal && a.family === "IPv6" && !a.address.startsWith("fe80"));
  return external?.address ?? machineName();
}

function hostInUrl(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * The API root announced for one HTTP endpoint. `hostname` is the spec's "host name used for
 * automatic registration" (FA³ST 1.3.0: replaces the host only; scheme from sslEnabled, port
 * stays). A value with a scheme is taken as the whole external base instead (FA³ST main, for
 * reverse proxies with another scheme, port or path); /api/v3.0 is appended unless it ends in it.
 */
export function interfaceBase(
  endpoint: Pick<HttpEndpointConfig, "hostname" | "host" | "port" | "sslEnabled" | "profiles">,
): InterfaceBase {
  const all = endpoint.profiles.length === 0;
  const servesShells = all || endpoint.profiles.some((p) => SHELL_PROFILES.includes(p));
  const servesSubmodels = all || endpoint.profiles.some((p) => SUBMODEL_PROFILES.includes(p));
  const configured = endpoint.hostname?.trim();
  let apiRoot: string;
  if (configured && /^https?:\/\//i.test(configured)) {
    const path = configured.replace(/\/+$/, "");
    apiRoot = path.endsWith(API_PREFIX) ? path : `${path}${API_PREFIX}`;
  } else {
    const scheme = endpoint.sslEnabled ? "https" : "http";
    const defaultPort = endpoint.sslEnabled ? 443 : 80;
    const host = hostInUrl(configured || detectHost(endpoint.host));
    apiRoot = `${scheme}://${host}${endpoint.port === defaultPort ? "" : `:${endpoint.port}`}${API_PREFIX}`;
  }
  return { apiRoot, servesShells, servesSubmodels };
}
