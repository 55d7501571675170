import type { z } from "zod";
import { httpSubscriptionProviderSchema } from "./asset-connections.ts";
import { coreSchema } from "./core.ts";
import { httpEndpointSchema } from "./http-endpoint.ts";
import { messageBusMqttSchema } from "./message-bus.ts";
import { persistenceInMemorySchema } from "./persistence.ts";
import { unwrapSchema } from "./schema-walk.ts";

/**
 * The compatibility rule for keys (docs/faaast-compatibility.md), in one place:
 *
 * - a key Twinport implements is used;
 * - a key FA³ST Service v1.3 (or its main branch) documents or reads, which Twinport does not
 *   implement, is ignored with a warning "FA³ST option X is not supported by Twinport and is
 *   ignored": a FA³ST file starts, and the user learns what does not carry over;
 * - any other key is an error with a "did you mean" suggestion: a typo costs a start, not hours.
 *
 * The lists below are FA³ST's keys at each place that Twinport lacks (each with why); every other
 * FA³ST key at that place is implemented (or accepted with no effect, e.g. thread pool sizes).
 * Keyed by the object schema the key would belong to, so the file, the CLI and the environment
 * resolve them the same way.
 */
const EMBEDDED_BROKER = "it configures FA³ST's embedded broker";

const IGNORED_BY_SCHEMA = new Map<z.ZodType, Readonly<Record<string, string>>>([
  [
    coreSchema,
    {
      serviceName: "the service name FA³ST main puts into its own messages",
    },
  ],
  [
    httpEndpointSchema,
    {
      httpVersion: "the HTTP endpoint serves HTTP/1.1",
      subprotocol: "registry descriptors carry no subprotocol",
      subprotocolBody: "registry descriptors carry no subprotocol",
      subprotocolBodyEncoding: "registry descriptors carry no subprotocol",
      jwkProvider: "use security.authentication (docs/security) for bearer tokens",
    },
  ],
  [
    persistenceInMemorySchema,
    {
      initialModel: "FA³ST sets it from Java code only; name the model with initialModelFile or -m",
    },
  ],
  [
    messageBusMqttSchema,
    {
      serverCertificate: EMBEDDED_BROKER,
      users: EMBEDDED_BROKER,
      // FA³ST's earlier spelling of the embedded broker's settings (before CertificateConfig and users).
      serverKeystorePath: EMBEDDED_BROKER,
      serverKeystorePassword: EMBEDDED_BROKER,
      passwordFile: EMBEDDED_BROKER,
    },
  ],
  [
    httpSubscriptionProviderSchema,
    {
      // FA³ST's documented example carries both; FA³ST's subscription provider has neither.
      method: "a subscription provider polls with GET",
      template: "a subscription provider sends no body",
    },
  ],
]);

type OptionsBySchema = ReadonlyMap<z.ZodType, Readonly<Record<string, string>>>;

/** A list of options by object schema, looked up by the schema as validation meets it (unwrapped). */
function lookup(bySchema: OptionsBySchema) {
  const byUnwrapped = new Map([...bySchema].map(([schema, keys]) => [unwrapSchema(schema), keys]));
  const all = (schema: z.ZodType | undefined): Readonly<Record<string, string>> =>
    (schema && byUnwrapped.get(unwrapSchema(schema))) ?? {};
  const one = (schema: z.ZodType | undefined, key: string): string | undefined => {
    const keys = all(schema);
    return Object.hasOwn(keys, key) ? keys[key] : undefined;
  };
  return { all, one };
}

const ignored = lookup(IGNORED_BY_SCHEMA);

/** The FA³ST options of the object `schema` that Twinport ignores, each with why. */
export const ignoredFaaastOptions = ignored.all;

/** Why Twinport ignores FA³ST option `key` of the object `schema`, or undefined when FA³ST has no such option there. */
export const ignoredFaaastOption = ignored.one;

/**
 * FA³ST options Twinport does not implement and will not ignore either: starting without them would
 * serve with less protection than the file asks for. They stop the start (exit 2) with what to do
 * instead, where an unknown key would only be called unknown (a black-box finding: FA³ST's
 * `aclFolder` read "Unknown key" with no way forward).
 */
const REFUSED_BY_SCHEMA = new Map<z.ZodType, Readonly<Record<string, string>>>([
  [
    httpEndpointSchema,
    {
      aclFolder:
        "FA³ST's folder of access rule files is not read by Twinport, and serving without the rules it holds would open what they protect: write the rules as `security.rules` (docs/security.md) and remove the key",
    },
  ],
]);

const refused = lookup(REFUSED_BY_SCHEMA);

/** The FA³ST options of the object `schema` that stop the start, each with why and what to do. */
export const refusedFaaastOptions = refused.all;

/** Why FA³ST option `key` of the object `schema` stops the start, or undefined when it does not. */
export const refusedFaaastOption = refused.one;

export function refusedOptionMessage(at: string, reason: string): string {
  return `FA³ST option ${at} is not supported by Twinport: ${reason}`;
}

/** FA³ST main's endpoint profiles Twinport does not serve: dropped from `profiles` with a warning. */
const IGNORED_PROFILES: Readonly<Record<string, string>> = {
  FAAAST_OPERATION_PROVIDER_RUNTIME:
    "FA³ST's API that adds and removes operation asset connections at runtime is not served",
};

/**
 * `endpoints` with FA³ST-only profile values removed (a copy where anything changed), and a
 * warning for each: a value of a known key, under the same rule as the keys.
 */
export function withoutIgnoredProfiles(endpoints: unknown, warnings: string[]): unknown {
  if (!Array.isArray(endpoints)) return endpoints;
  return endpoints.map((entry: unknown, index) => {
    const profiles = (entry as { profiles?: unknown } | null)?.profiles;
    if (!Array.isArray(profiles) || !profiles.some((p) => typeof p === "string" && Object.hasOwn(IGNORED_PROFILES, p)))
      return entry;
    for (const profile of profiles)
      if (typeof profile === "string" && Object.hasOwn(IGNORED_PROFILES, profile))
        warnings.push(ignoredOptionWarning(`endpoints[${index}].profiles ${profile}`, IGNORED_PROFILES[profile]!));
    return {
      ...(entry as Record<string, unknown>),
      profiles: profiles.filter((p) => !(typeof p === "string" && Object.hasOwn(IGNORED_PROFILES, p))),
    };
  });
}

export function ignoredOptionWarning(at: string, reason: string): string {
  return `FA³ST option ${at} is not supported by Twinport and is ignored (${reason})`;
}

/** Edit distance counting a swap of two neighbours as one edit (typos), for "did you mean". Short strings only. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The allowed key closest to `key`, when it is close enough to be a typo: case-insensitively
 * equal, or at most a third of the key's length (at least 1, at most 3) edits away.
 */
export function closestKey(key: string, allowed: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of allowed) {
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const limit = Math.min(3, Math.max(1, Math.floor(key.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

/** "Unknown key 'x'. Did you mean 'y'? Allowed: …" */
export function unknownKeyMessage(at: string, key: string, allowed: readonly string[]): string {
  const suggestion = closestKey(key, allowed);
  return `Unknown key '${at}'.${suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`} Allowed: ${allowed.join(", ")}`;
}
