import type { AccessPolicy, Principal, SecurityConfig } from "@twinport/shared";
import {
  type BaseNode,
  type OPCUAServer,
  PermissionType,
  type RequestHeader,
  SessionContext,
  type UserIdentityToken,
} from "node-opcua";
import { identifiableNodeId } from "../address-space/node-ids.ts";
import { elementModelType } from "./element-model-type.ts";
import { type IdentifiableCatalog, NodeAccess } from "./node-access.ts";
import { withholdUnreadableValues } from "./readable-notifications.ts";
import { principalOfIdentityToken } from "./session-principal.ts";
import { translateToVisibleNodes } from "./visible-browse-paths.ts";

/** What a session's permissions are computed from. */
export interface SessionAccessDeps {
  policy: AccessPolicy;
  roleAssignments: SecurityConfig["roleAssignments"];
  catalog: IdentifiableCatalog;
  /** The namespace of our nodes: the rules decide there; node-opcua's defaults everywhere else. */
  namespaceIndex: number;
}

/**
 * node-opcua asks a session's context for the permissions on a node whenever it browses (hiding
 * what is not browsable), reads, writes, calls or reports UserAccessLevel / UserExecutable. This
 * context answers from the access rules for our namespace. `getPermissions` is public API of
 * SessionContext, and `ServerSession.sessionContext` a public field (node-opcua 2.182 and 2.186).
 * Since 2.186 a Call runs with `sessionContext.withRequestHeader(header)`, a new context per
 * request: overridden below, or calls were judged by node-opcua's defaults and carried no principal.
 */
export class AccessSessionContext extends SessionContext {
  private token: UserIdentityToken | undefined | null = null;
  private current: { principal: Principal; nodes: NodeAccess } | undefined;

  constructor(
    options: ConstructorParameters<typeof SessionContext>[0],
    private readonly deps: SessionAccessDeps,
    /** The session's own context, whose principal and permissions a per-request context shares. */
    private readonly sessionWide?: AccessSessionContext,
  ) {
    super(options);
  }

  /** The per-Call context node-opcua asks for: the same rules and principal, with the request's header. */
  override withRequestHeader(requestHeader: RequestHeader): SessionContext {
    return new AccessSessionContext(
      { session: this.session, object: this.object, server: this.server, requestHeader },
      this.deps,
      this.sessionWide ?? this,
    );
  }

  /** The session's principal, from its identity token (which ActivateSession may change). */
  get principal(): Principal {
    return this.access().principal;
  }

  /**
   * Whether the rules let this session see or use anything of identifiable `id`: a session that may
   * not must not make its nodes either (ADR 0036 "Bounded").
   */
  mayUse(id: string): boolean {
    return this.access().nodes.permissions(identifiableNodeId(id)) !== PermissionType.None;
  }

  override getPermissions(node: BaseNode): number {
    const nodeId = node.nodeId;
    if (nodeId.namespace !== this.deps.namespaceIndex || typeof nodeId.value !== "string")
      return super.getPermissions(node);
    const local = nodeId.value;
    return this.access().nodes.permissions(local, (path) =>
      elementModelType(node, local.slice(0, local.lastIndexOf("|")), path),
    );
  }

  private access(): { principal: Principal; nodes: NodeAccess } {
    if (this.sessionWide) return this.sessionWide.access();
    const token = (this.session as { userIdentityToken?: UserIdentityToken } | undefined)?.userIdentityToken;
    if (this.current === undefined || token !== this.token) {
      this.token = token;
      const principal = principalOfIdentityToken(token, this.deps.roleAssignments);
      this.current = { principal, nodes: new NodeAccess(this.deps.policy.grantsOf(principal), this.deps.catalog) };
    }
    return this.current;
  }
}

/**
 * Every new session of `server` gets an AccessSessionContext, and its monitored items on our nodes
 * deliver only what it may read (readable-notifications.ts).
 */
export function applyAccessRules(server: OPCUAServer, deps: SessionAccessDeps): void {
  server.on("create_session", (session) => {
    // The server's own session and server objects, typed by node-opcua's address-space package as
    // its narrower interfaces.
    session.sessionContext = new AccessSessionContext({ session: session as never, server: server as never }, deps);
  });
  withholdUnreadableValues(server, deps.namespaceIndex);
  translateToVisibleNodes(server);
}

/** The principal of the session behind a node-opcua context, when access rules apply. */
export function principalOfContext(context: unknown): Principal | undefined {
  return context instanceof AccessSessionContext ? context.principal : undefined;
}
