import { type ElementScope, elementShown, type PrincipalGrants, WHOLE_SUBMODEL as WHOLE } from "@twinport/shared";
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

/**
 * The sub-nodes of a container's own value (shared CONTAINER_OWN_VALUES, as element-specs.ts names
 * them): a container shown on the way to a grant (`E` for a grant on `E.Ok`) shows its structure,
 * not these. Its other sub-nodes (metadata, EntityType, the Statement and Annotation folders) are
 * shown: they hold nothing of its value, or lead to what is granted.
 */
const OWN_VALUE_NODES: Readonly<Record<string, readonly string[]>> = {
  Entity: ["GlobalAssetId", "SpecificAssetId"],
  AnnotatedRelationshipElement: ["First", "Second"],
};

/** The modelType of the element at a path of the submodel asked about (element-model-type.ts). */
export type ModelTypeAt = (path: string) => string | undefined;

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

  /**
   * Permissions on the node with this local (string) NodeId of our namespace. `modelTypeAt` tells
   * an element's kind, for elements on the way to a grant: without it they are not shown.
   */
  permissions(local: string, modelTypeAt?: ModelTypeAt): number {
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
    const sub = slash < 0 ? "" : rest.slice(slash + 1);
    const reaches = (scope: ElementScope | undefined) =>
      scope !== undefined && reachesNode(scope, path, sub, modelTypeAt);
    let permissions: number = NONE;
    if (reaches(read)) permissions |= SEEN;
    // An element one may only write or call is still reachable (browsable), its value not readable.
    else if (reaches(update) || reaches(execute)) permissions |= PermissionType.Browse;
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

/**
 * Whether `scope` reaches the node `sub` ("" for the element itself) of the element at `path`: all
 * of a covered element; of a container on the way to a grant (element-on-the-way.ts), all but its
 * own value. A leaf on the way (a Property `C` for a grant on `C.Ok`) holds nothing granted: none
 * of it (a black-box finding: its Value read Good).
 */
function reachesNode(scope: ElementScope, path: string, sub: string, modelTypeAt: ModelTypeAt | undefined): boolean {
  if (scope.covers(path)) return true;
  if (!scope.leadsBelow(path)) return false;
  const modelType = modelTypeAt?.(path);
  if (elementShown(scope, path, modelType) !== "container") return false;
  const slash = sub.indexOf("/");
  const first = slash < 0 ? sub : sub.slice(0, slash);
  return !(OWN_VALUE_NODES[modelType!]?.includes(first) ?? false);
}
