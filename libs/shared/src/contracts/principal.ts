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
  /**
   * anonymous: nothing was presented; user: a token or an OPC UA UserName; certificate: mTLS or an
   * OPC UA X.509 identity; system: see SYSTEM (never reaches the engine).
   */
  kind: "anonymous" | "user" | "certificate" | "system";
  /** The user name (token claim or OPC UA user) or the certificate's subject DN (RFC 4514 string). */
  name?: string;
  /** Roles or groups: from the token's configured claim, or assigned to an OPC UA user or certificate in the configuration. */
  roles: readonly string[];
}

/** The rights a rule grants, in the spirit of AAS Part 4 (Security). */
export type Right = "READ" | "CREATE" | "UPDATE" | "DELETE" | "EXECUTE";

export const ANONYMOUS: Principal = Object.freeze({ kind: "anonymous", roles: Object.freeze([]) as readonly string[] });

/**
 * A gateway's own work, done for no caller: the OPC UA mirror's snapshot reads, the declaration of an
 * Operation a method call needs, gap fills from the event log. In-process such a command could go
 * without a principal, but over the bus a missing principal means anonymous (a forgotten one must
 * never mean "everything"), so the gateways say it explicitly. The receiving end (NATS responder,
 * direct store client) turns it back into "no principal": the engine never sees this kind.
 * Trusting it is no weaker than trusting any principal on the bus: NATS is reachable by Twinport's
 * processes only (docs: Securing Twinport).
 */
export const SYSTEM: Principal = Object.freeze({ kind: "system", roles: Object.freeze([]) as readonly string[] });

/**
 * The command as the engine gets it: SYSTEM becomes no principal; a missing principal becomes
 * `missing` (ANONYMOUS over the bus when security is configured; nothing in-process).
 */
export function withArrivedPrincipal<C extends { principal?: Principal }>(
  command: C,
  missing: Principal | undefined,
): C {
  if (command.principal?.kind === "system") {
    const { principal: _system, ...rest } = command;
    return rest as C;
  }
  if (command.principal === undefined && missing !== undefined) return { ...command, principal: missing };
  return command;
}
