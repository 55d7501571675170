/**
 * Who is asking (issue 13). The endpoint that authenticated the caller (HTTP: bearer token or
 * client certificate; OPC UA: the session's identity token) puts it on every command; the engine
 * decides what it may do, in one place, so HTTP and OPC UA cannot disagree.
 *
 * A command without a principal comes from inside the model-store process (seeding, asset
 * connections, the operations runner): it is the system and is not checked. Commands that arrive
 * over the bus without one are treated as anonymous by the NATS responder, never as the system.
 */
export interface Principal {
  /** anonymous: nothing was presented; user: a token or an OPC UA UserName; certificate: mTLS or an OPC UA X.509 identity. */
  kind: "anonymous" | "user" | "certificate";
  /** The user name (token claim or OPC UA user) or the certificate's subject DN (RFC 4514 string). */
  name?: string;
  /** Roles or groups: from the token's configured claim, or assigned to an OPC UA user or certificate in the configuration. */
  roles: readonly string[];
}

/** The rights a rule grants, in the spirit of AAS Part 4 (Security). */
export type Right = "READ" | "CREATE" | "UPDATE" | "DELETE" | "EXECUTE";

export const ANONYMOUS: Principal = Object.freeze({ kind: "anonymous", roles: Object.freeze([]) as readonly string[] });
