import { z } from "zod";
import { portSchema, profilesSchema } from "./endpoint-common.ts";

export const OPCUA_ENDPOINT_CLASS = "endpoint.opcua.OpcUaEndpoint";

export const OPCUA_SECURITY_POLICIES = [
  "NONE",
  "BASIC128RSA15",
  "BASIC256",
  "BASIC256SHA256",
  "AES128_SHA256_RSAOAEP",
  "AES256_SHA256_RSAPSS",
] as const;
export type OpcUaSecurityPolicy = (typeof OPCUA_SECURITY_POLICIES)[number];

export const OPCUA_AUTHENTICATIONS = ["Anonymous", "UserName", "Certificate"] as const;
export type OpcUaAuthentication = (typeof OPCUA_AUTHENTICATIONS)[number];

/** Spec §2.2/§2.4 exactly, plus `hostname` (the name put into endpoint URLs) and `host` (bind address). */
export const opcuaEndpointSchema = z
  .strictObject({
    "@class": z.literal(OPCUA_ENDPOINT_CLASS),
    profiles: profilesSchema,
    /** Empty = no registration with a discovery server. */
    discoveryServerUrl: z.string().default(""),
    /** Seconds the server waits for clients to disconnect when it stops. */
    secondsTillShutdown: z.number().int().min(0).default(2),
    serverCertificateBasePath: z.string().min(1).default("PKI/CA"),
    // Empty lists would start an endpoint nobody can use (GetEndpoints answers none, or every login fails).
    supportedAuthentications: z
      .array(z.enum(OPCUA_AUTHENTICATIONS))
      .min(1, {
        error: `no authentication listed, so no client can open a session; list at least one of ${OPCUA_AUTHENTICATIONS.join(", ")}`,
      })
      .default(["Anonymous"]),
    supportedSecurityPolicies: z
      .array(z.enum(OPCUA_SECURITY_POLICIES))
      .min(1, {
        error: `no security policy listed, so the endpoint offers no way to connect; list at least one of ${OPCUA_SECURITY_POLICIES.join(", ")}`,
      })
      .default(["NONE", "BASIC256SHA256", "AES128_SHA256_RSAOAEP", "AES256_SHA256_RSAPSS"]),
    tcpPort: portSchema.default(4840),
    /** username → password, for UserName authentication. */
    userMap: z.record(z.string(), z.string()).default({}),
    userCertificateBasePath: z.string().min(1).default("USERS_PKI/CA"),
    /** Host name advertised in endpoint URLs and the certificate; absent = the machine's host name. */
    hostname: z.string().min(1).optional(),
    /** Address to bind. */
    host: z.string().min(1).default("0.0.0.0"),
    /**
     * The nodes below a shell, submodel or concept description are made on first use (browse, read,
     * subscribe, …) and released after this many milliseconds without use, unless a monitored item
     * watches one of them (ADR 0036). 0 = never released.
     */
    releaseUnusedNodesAfterMs: z.number().int().min(0).default(300_000),
    /**
     * At most this many submodel elements have their nodes made at once (a shell or concept
     * description counts as one): making more releases the least recently used identifiables first,
     * except those a monitored item watches (ADR 0036 "Bounded"). 0 = no bound. The default (≈ 0.3–0.5
     * GB of element nodes at 3–5 KB each) leaves room under a 1–1.5 GB V8 heap for the identifiables'
     * own nodes of a 100,000-shell model; 200,000 needed a 1.5 GB heap and doubled the GC work.
     */
    maxMaterializedElements: z.number().int().min(0).default(100_000),
    /**
     * Client sessions at once, and TCP connections (secure channels) per endpoint. node-opcua's
     * default of 10 each turned the eleventh client away: a plant's SCADA, historian, MES and
     * engineering tools together reach that quickly. Unactivated channels are dropped first when full.
     */
    maxSessions: z.number().int().min(1).max(10_000).default(100),
    /**
     * Monitored items of all sessions together; past it an item is refused (BadTooManyMonitoredItems).
     * node-opcua's own 1,000,000 at ~1.5 KB each let one anonymous client take 1.5 GB of the process.
     */
    maxMonitoredItems: z.number().int().min(1).max(1_000_000).default(100_000),
  })
  // docs/opcua.md: a password or a user certificate travels only under a policy that protects it
  // (node-opcua offers those logins on no None endpoint), so with NONE alone nobody logs in that way.
  .refine(
    (endpoint) =>
      !endpoint.supportedAuthentications.some((authentication) => authentication !== "Anonymous") ||
      endpoint.supportedSecurityPolicies.some((policy) => policy !== "NONE"),
    {
      error: (issue) => {
        const endpoint = issue.input as { supportedAuthentications: string[] };
        const secured = [...new Set(endpoint.supportedAuthentications)].filter((name) => name !== "Anonymous");
        return `supportedAuthentications lists ${secured.join(" and ")}, which need${secured.length === 1 ? "s" : ""} a security policy besides NONE (the password or user certificate is protected with it): with NONE alone no client can log in that way. Add one, e.g. BASIC256SHA256`;
      },
      path: ["supportedSecurityPolicies"],
    },
  );

export type OpcUaEndpointConfig = z.output<typeof opcuaEndpointSchema>;
