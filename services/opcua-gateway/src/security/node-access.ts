import { type ElementScope, type PrincipalGrants, WHOLE_SUBMODEL as WHOLE } from "@twinport/shared";
import { PermissionType } from "node-opcua";
import { CONCEPT_DESCRIPTIONS_NODE_ID, ENVIRONMENT_NODE_ID } from "../address-space/node-ids.ts";

/** What the rules need of an identifiable the gateway shows: its kind and its semanticId's key values. */
export interface IdentifiableFacts {
  kind: "shell" | "submodel" | "concept-description";
  semanticIds: readonly string[];
}

/** Kept current by the node specs of identifiables (identifiable-specs.ts): one entry per id shown. */
export type IdentifiableCatalog = Map<string, IdentifiableFacts>;

const SEEN =
  PermissionType.Browse | PermissionType.ReadRolePermissions | PermissionType.Read | PermissionType.ReceiveEvents;
const NONE = PermissionType.None;

interface IdentifiableAccess {
  facts: IdentifiableFacts;
  read?: ElementScope;
  update?: ElementScope;
  execute?: ElementScope;
}

/**
 * The OPC UA permissions of one principal on our nodes, from the same rules the engine applies to
 * commands: READ makes a node browsable and readable (an ancestor of a granted element is shown, as
 * over HTTP), UPDATE writable, EXECUTE callable. Decided per identifiable once and kept until its
 * facts change; per node it is a NodeId split and a prefix test.
 */
export class NodeAccess {
  private readonly byId = new Map<string, IdentifiableAccess>();

  constructor(
    private readonly grants: PrincipalGrants,
    private readonly catalog: IdentifiableCatalog,
  ) {}

  /** Permissions on the node with this local (string) NodeId of our namespace. */
  permissions(local: string): number {
    if (local === ENVIRONMENT_NODE_ID || local === CONCEPT_DESCRIPTIONS_NODE_ID) return SEEN;
    const bar = local.lastIndexOf("|");
    if (bar < 0) return SEEN;
    const access = this.accessOf(local.slice(0, bar));
    if (access === undefined) return NONE;
    const { read, update, execute } = access;
    const rest = local.slice(bar + 1);
    // "" and "/…" are the identifiable and its own attributes; "A.B" and "A.B/…" an element.
    const slash = rest.indexOf("/");
    const path = slash < 0 ? rest : rest.slice(0, slash);
    if (path === "")
      return read !== undefined ? SEEN : update !== undefined || execute !== undefined ? PermissionType.Browse : NONE;
    let permissions: number = NONE;
    if (read?.shows(path)) permissions |= SEEN;
    // An element one may only write or call is still reachable (browsable), its value not readable.
    else if (update?.shows(path) || execute?.shows(path)) permissions |= PermissionType.Browse;
    if (update?.covers(path)) permissions |= PermissionType.Write;
    if (execute?.covers(path)) permissions |= PermissionType.Call;
    return permissions;
  }

  private accessOf(id: string): IdentifiableAccess | undefined {
    const facts = this.catalog.get(id);
    if (facts === undefined) return undefined;
    const known = this.byId.get(id);
    if (known !== undefined && known.facts === facts) return known;
    const access: IdentifiableAccess = { facts };
    const read = this.grants.right("READ");
    if (facts.kind === "shell") {
      if (read.shell(id)) access.read = WHOLE;
    } else if (facts.kind === "concept-description") {
      if (read.conceptDescription(id)) access.read = WHOLE;
    } else {
      const submodel = { id, semanticIds: facts.semanticIds };
      access.read = read.submodel(submodel);
      access.update = this.grants.right("UPDATE").submodel(submodel);
      access.execute = this.grants.right("EXECUTE").submodel(submodel);
    }
    this.byId.set(id, access);
    return access;
  }
}
