import { echoed, parseJsonText } from "../../aas/index.ts";
import {
  type Command,
  CommandError,
  type CommandParams,
  type CommandType,
  type Principal,
  type Right,
} from "../../contracts/index.ts";
import { checkIdShortPath } from "../aas-input.ts";
import type { Repository } from "../ports/index.ts";
import {
  type AccessPolicy,
  type PrincipalGrants,
  type ProprietaryCall,
  referenceKeyValues,
  type SubmodelFacts,
} from "./access-policy.ts";
import { recordShown } from "./element-on-the-way.ts";
import { type ElementScope, WHOLE_SUBMODEL } from "./id-short-path-scope.ts";

/**
 * What a checked command may see, for the handlers that filter (lists, submodel content). Absent
 * from the context when nothing is checked (no security configured, or the system's own work).
 */
export interface AccessView {
  readonly principal: Principal;
  readableShell(id: string): boolean;
  readableConceptDescription(id: string): boolean;
  /** The READ scope of a stored submodel (its own JSON record); undefined: not readable at all. */
  submodelReadScope(submodel: Record<string, unknown>): ElementScope | undefined;
  readablePackages: boolean;
  /**
   * Set by the check of a command that reads one submodel when only parts of it may be read: the
   * handler leaves out what the scope does not show.
   */
  partialScope?: ElementScope;
}

/** Raised for anything not granted; gateways answer 403 (401 for an anonymous caller) or BadUserAccessDenied. */
function forbidden(right: Right, what: string): CommandError {
  return new CommandError("forbidden", `Not allowed: ${right} on ${what}`);
}

/**
 * A malformed idShortPath (`L[01]`, `a..b`) is the request's fault, whoever asks: the same 400 as
 * without rules, before any right is looked at. A 403 for it told apart callers, not paths (a
 * black-box finding); and the rules match well-formed paths only.
 */
function wellFormed(path: string): void {
  if (path !== "") checkIdShortPath(path);
}

/** The checks of one command: each throws "forbidden" unless the right is granted. */
class Checker {
  partialScope?: ElementScope;
  constructor(
    readonly grants: PrincipalGrants,
    private readonly repository: Repository,
  ) {}

  shell(right: Right, id: string): void {
    if (!this.grants.right(right).shell(id)) throw forbidden(right, `shell '${echoed(id)}'`);
  }

  conceptDescription(right: Right, id: string): void {
    if (!this.grants.right(right).conceptDescription(id)) throw forbidden(right, `concept description '${echoed(id)}'`);
  }

  proprietary(right: Right, call: ProprietaryCall): void {
    if (!this.grants.right(right).proprietary(call)) throw forbidden(right, `/${call}`);
  }

  everything(right: Right, what: string): void {
    if (!this.grants.right(right).all) throw forbidden(right, what);
  }

  /**
   * The scope of `right` on a stored submodel. The store is read only when the id alone does not
   * give the whole submodel and some grant names a semanticId.
   */
  async submodelScope(right: Right, id: string): Promise<ElementScope | undefined> {
    const grants = this.grants.right(right);
    const byId = grants.submodelById(id);
    if (byId?.whole || !grants.bySemanticId) return byId;
    const stored = await this.repository.getIdentifiable("submodel", id);
    if (!stored) return byId;
    return grants.submodel(factsOf(JSON.parse(stored.json) as Record<string, unknown>));
  }

  /** The whole submodel (its own attributes, all its elements) for `right`. */
  async wholeSubmodel(right: Right, id: string): Promise<void> {
    if (!(await this.submodelScope(right, id))?.whole) throw forbidden(right, `submodel '${echoed(id)}'`);
  }

  /** A submodel as a body states it (PUT, POST): its id and semanticId. */
  submodelAsWritten(right: Right, body: string): void {
    const grants = this.grants.right(right);
    let facts: SubmodelFacts;
    try {
      facts = factsOf(parseJsonText(body) as Record<string, unknown>);
    } catch {
      // Not JSON: the handler answers 400, but only to someone who may write submodels at all.
      if (grants.anySubmodel) return;
      throw forbidden(right, "submodels");
    }
    if (!grants.submodel(facts)?.whole) throw forbidden(right, `submodel '${echoed(facts.id)}'`);
  }

  /** An element and everything below it. */
  async element(right: Right, submodelId: string, path: string): Promise<void> {
    wellFormed(path);
    if (!(await this.submodelScope(right, submodelId))?.covers(path))
      throw forbidden(right, `'${echoed(path)}' of submodel '${echoed(submodelId)}'`);
  }

  /** A read of a submodel or one of its elements: a partial scope filters what is answered. */
  async read(submodelId: string, path?: string): Promise<void> {
    if (path !== undefined) wellFormed(path);
    const scope = await this.submodelScope("READ", submodelId);
    if (scope === undefined || (path !== undefined && !(await this.shown(scope, submodelId, path))))
      throw forbidden(
        "READ",
        path === undefined
          ? `submodel '${echoed(submodelId)}'`
          : `'${echoed(path)}' of submodel '${echoed(submodelId)}'`,
      );
    if (!scope.whole) this.partialScope = scope;
  }

  /**
   * Whether a read of the element at `path` is answered: covered, or on the way to a grant and of
   * a kind that holds it (element-on-the-way.ts), which only its stored record tells. Nothing
   * there is refused too, as a leaf there is: refusals do not depend on what exists.
   */
  private async shown(scope: ElementScope, submodelId: string, path: string): Promise<boolean> {
    if (scope.covers(path)) return true;
    if (!scope.leadsBelow(path)) return false;
    const [record] = await this.repository.getElements(submodelId, [path]);
    return record !== undefined && recordShown(scope, record);
  }

  /** Commands below a shell (/shells/{aas}/submodels/…) go through the shell: reading it is needed too. */
  viaShell(aasId: string | undefined): void {
    if (aasId !== undefined) this.shell("READ", aasId);
  }
}

function factsOf(submodel: Record<string, unknown>): SubmodelFacts {
  return {
    id: typeof submodel.id === "string" ? submodel.id : "",
    semanticIds: referenceKeyValues(submodel.semanticId),
  };
}

/** The semanticId a merge patch leaves (only `semanticId` matters to the rules), or undefined when it stays. */
function patchedSemanticIds(body: string): string[] | undefined {
  try {
    const patch = parseJsonText(body) as Record<string, unknown>;
    if (typeof patch !== "object" || patch === null || !("semanticId" in patch)) return undefined;
    if (patch.semanticId === null) return [];
    const keys = (patch.semanticId as { keys?: unknown }).keys;
    return keys === undefined ? undefined : referenceKeyValues(patch.semanticId);
  } catch {
    return undefined; // the handler answers 400
  }
}

function idShortIn(body: string): string | undefined {
  try {
    const idShort = (parseJsonText(body) as { idShort?: unknown }).idShort;
    return typeof idShort === "string" ? idShort : undefined;
  } catch {
    return undefined;
  }
}

type Check<T extends CommandType> = (c: Checker, p: CommandParams<T>) => void | Promise<void>;

/** Lists are never refused: their handlers leave out what the caller may not read. */
const FILTERED = () => {};

/**
 * The one table of what each command needs (docs/security.md "Rules"). Shell rights do not imply submodel
 * rights; a right on a submodel covers its elements; writes to parts of a shell (asset
 * information, submodel references, thumbnail, asset links) are UPDATEs of the shell, as is
 * deleting a File element's attachment an UPDATE of that element.
 */
const CHECKS: { [T in CommandType]: Check<T> } = {
  GetAllAssetAdministrationShells: FILTERED,
  GetAssetAdministrationShellById: (c, p) => c.shell("READ", p.aasId),
  PostAssetAdministrationShell: (c, p) => c.shell("CREATE", idIn(p.body)),
  PutAssetAdministrationShellById: (c, p) => c.shell("UPDATE", p.aasId),
  DeleteAssetAdministrationShellById: (c, p) => c.shell("DELETE", p.aasId),
  GetAssetInformation: (c, p) => c.shell("READ", p.aasId),
  PutAssetInformation: (c, p) => c.shell("UPDATE", p.aasId),
  GetAllSubmodelReferences: (c, p) => c.shell("READ", p.aasId),
  PostSubmodelReference: (c, p) => c.shell("UPDATE", p.aasId),
  DeleteSubmodelReferenceById: (c, p) => c.shell("UPDATE", p.aasId),
  GetThumbnail: (c, p) => c.shell("READ", p.aasId),
  PutThumbnail: (c, p) => c.shell("UPDATE", p.aasId),
  DeleteThumbnail: (c, p) => c.shell("UPDATE", p.aasId),
  GetAllAssetAdministrationShellIdsByAssetLink: FILTERED,
  GetAllAssetLinksById: (c, p) => c.shell("READ", p.aasId),
  PostAllAssetLinksById: (c, p) => c.shell("UPDATE", p.aasId),
  DeleteAllAssetLinksById: (c, p) => c.shell("UPDATE", p.aasId),

  GetAllConceptDescriptions: FILTERED,
  GetConceptDescriptionById: (c, p) => c.conceptDescription("READ", p.cdId),
  PostConceptDescription: (c, p) => c.conceptDescription("CREATE", idIn(p.body)),
  PutConceptDescriptionById: (c, p) => c.conceptDescription("UPDATE", p.cdId),
  DeleteConceptDescriptionById: (c, p) => c.conceptDescription("DELETE", p.cdId),

  GetAllSubmodels: FILTERED,
  GetSubmodelById: async (c, p) => {
    c.viaShell(p.aasId);
    await c.read(p.submodelId);
  },
  PostSubmodel: (c, p) => c.submodelAsWritten("CREATE", p.body),
  PutSubmodelById: async (c, p) => {
    c.viaShell(p.aasId);
    await c.wholeSubmodel("UPDATE", p.submodelId);
    c.submodelAsWritten("UPDATE", p.body);
  },
  PatchSubmodelById: async (c, p) => {
    c.viaShell(p.aasId);
    await c.wholeSubmodel("UPDATE", p.submodelId);
    // A patch that changes the semanticId must leave a submodel the caller may still update.
    const semanticIds = p.content === "value" ? undefined : patchedSemanticIds(p.body);
    if (semanticIds !== undefined && !c.grants.right("UPDATE").submodel({ id: p.submodelId, semanticIds })?.whole)
      throw forbidden("UPDATE", `submodel '${echoed(p.submodelId)}'`);
  },
  DeleteSubmodelById: async (c, p) => {
    // Below a shell the reference goes too: an UPDATE of the shell.
    if (p.aasId !== undefined) c.shell("UPDATE", p.aasId);
    await c.wholeSubmodel("DELETE", p.submodelId);
  },
  GetAllSubmodelElements: async (c, p) => {
    c.viaShell(p.aasId);
    await c.read(p.submodelId);
  },
  GetSubmodelElementByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.read(p.submodelId, p.idShortPath);
  },
  PostSubmodelElement: async (c, p) => {
    c.viaShell(p.aasId);
    const parent = p.idShortPath ?? "";
    const idShort = idShortIn(p.body);
    // A list item has no idShort (its path is the list's next index): the list must be covered.
    const created = idShort === undefined ? parent : parent === "" ? idShort : `${parent}.${idShort}`;
    if (created === "") await c.wholeSubmodel("CREATE", p.submodelId);
    else await c.element("CREATE", p.submodelId, created);
  },
  PutSubmodelElementByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("UPDATE", p.submodelId, p.idShortPath);
  },
  PatchSubmodelElementByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("UPDATE", p.submodelId, p.idShortPath);
  },
  DeleteSubmodelElementByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("DELETE", p.submodelId, p.idShortPath);
  },
  PatchSubmodelElementValueByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("UPDATE", p.submodelId, p.idShortPath);
  },
  GetFileByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("READ", p.submodelId, p.idShortPath);
  },
  PutFileByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("UPDATE", p.submodelId, p.idShortPath);
  },
  DeleteFileByPath: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("UPDATE", p.submodelId, p.idShortPath);
  },
  InvokeOperation: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("EXECUTE", p.submodelId, p.idShortPath);
  },
  InvokeOperationAsync: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("EXECUTE", p.submodelId, p.idShortPath);
  },
  // An invocation's status and result belong to those who may invoke it.
  GetOperationAsyncStatus: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("EXECUTE", p.submodelId, p.idShortPath);
  },
  GetOperationAsyncResult: async (c, p) => {
    c.viaShell(p.aasId);
    await c.element("EXECUTE", p.submodelId, p.idShortPath);
  },

  // Whole repository: filtered; named ids: each must be readable (select-environment.ts).
  GenerateSerializationByIds: FILTERED,
  ImportEnvironment: (c) => c.proprietary("CREATE", "import"),
  LoadEnvironment: (c) => c.proprietary("CREATE", "import"),
  ResetStore: (c) => c.proprietary("DELETE", "reset"),
  // Packages are opaque bundles of whole shells and submodels: one right for all of them.
  GetAllAASXPackageIds: FILTERED,
  GetAASXByPackageId: (c) => c.proprietary("READ", "packages"),
  PostAASXPackage: (c) => c.proprietary("CREATE", "packages"),
  PutAASXByPackageId: (c) => c.proprietary("UPDATE", "packages"),
  DeleteAASXByPackageId: (c) => c.proprietary("DELETE", "packages"),

  // The store's sequence number says nothing about the model; its events carry every change.
  GetSequence: () => {},
  GetEvents: (c) => c.everything("READ", "the event log"),
};

function idIn(body: string): string {
  try {
    const id = (parseJsonText(body) as { id?: unknown }).id;
    return typeof id === "string" ? id : "";
  } catch {
    return "";
  }
}

/**
 * Checks a command against the policy: throws "forbidden" for anything not granted, answers the
 * view its handler filters by. Commands without a principal are the model-store's own work.
 */
export async function checkCommand(
  policy: AccessPolicy,
  repository: Repository,
  command: Command,
): Promise<AccessView | undefined> {
  const principal = command.principal;
  if (principal === undefined) return undefined;
  const grants = policy.grantsOf(principal);
  const checker = new Checker(grants, repository);
  const check = CHECKS[command.type] as Check<CommandType> | undefined;
  if (check === undefined) throw new CommandError("bad-request", `Unknown command '${String(command.type)}'`);
  await check(checker, command.params);
  const view = viewOf(grants);
  return checker.partialScope ? { ...view, partialScope: checker.partialScope } : view;
}

/** The view depends on the grants alone: made once per principal, not per command. */
const views = new WeakMap<PrincipalGrants, AccessView>();
function viewOf(grants: PrincipalGrants): AccessView {
  let view = views.get(grants);
  if (view === undefined) {
    const read = grants.right("READ");
    view = {
      principal: grants.principal,
      readableShell: read.shell,
      readableConceptDescription: read.conceptDescription,
      submodelReadScope: (submodel) => (read.all ? WHOLE_SUBMODEL : read.submodel(factsOf(submodel))),
      readablePackages: read.proprietary("packages"),
    };
    views.set(grants, view);
  }
  return view;
}
