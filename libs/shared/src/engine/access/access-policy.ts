import type { Principal, Right } from "../../contracts/index.ts";
import { compileIdPattern, type IdMatcher } from "./id-pattern.ts";
import { type ElementScope, prefixScope, WHOLE_SUBMODEL } from "./id-short-path-scope.ts";

/**
 * The rules as configured (config/security-rules.ts; its zod type is assignable to this, the
 * engine does not import the config layer).
 */
export type AccessSubject =
  | { role: string }
  | { user: string }
  | { certificateSubject: string }
  | { anonymous: true }
  | { authenticated: true };
export type AccessObject =
  | { all: true }
  | { shells: string }
  | { submodels: string; idShortPath?: string }
  | { semanticId: string; idShortPath?: string }
  | { conceptDescriptions: string }
  | { proprietary: "reset" | "import" | "packages" };
export interface AccessRuleInput {
  subjects: readonly AccessSubject[];
  rights: readonly Right[];
  objects: readonly AccessObject[];
}

export type ProprietaryCall = "reset" | "import" | "packages";

/** A submodel as the rules see it: its id and the values of its semanticId's keys. */
export interface SubmodelFacts {
  id: string;
  semanticIds: readonly string[];
}

/**
 * What one principal may do with one right, with everything not about that principal already
 * thrown away: checking a command walks a few matchers, no rule evaluation, no allocation.
 */
export interface RightGrants {
  readonly all: boolean;
  shell(id: string): boolean;
  conceptDescription(id: string): boolean;
  proprietary(call: ProprietaryCall): boolean;
  /** Whether any grant of this right names submodels by semanticId (then the semanticId is worth reading). */
  readonly bySemanticId: boolean;
  /** Whether any grant of this right reaches submodels at all (by id, semanticId or everything). */
  readonly anySubmodel: boolean;
  /** No rule gives this right on anything (an event stream refuses such a caller, like a read). */
  readonly grantsNothing: boolean;
  /** The elements of the submodel this right reaches; undefined: none (the submodel is not reached). */
  submodel(facts: SubmodelFacts): ElementScope | undefined;
  /** As submodel(), from the id alone (grants by semanticId ignored): enough when it is WHOLE_SUBMODEL. */
  submodelById(id: string): ElementScope | undefined;
}

export interface PrincipalGrants {
  readonly principal: Principal;
  right(right: Right): RightGrants;
}

export interface AccessPolicy {
  /** The grants of a principal, compiled once per distinct principal (kind, name, roles) and kept. */
  grantsOf(principal: Principal): PrincipalGrants;
}

interface SubmodelGrant {
  id?: IdMatcher;
  semanticId?: IdMatcher;
  /** Absent: the whole submodel. */
  prefix?: string;
}

interface CompiledRule {
  applies(principal: Principal): boolean;
  rights: ReadonlySet<Right>;
  all: boolean;
  shells: IdMatcher[];
  conceptDescriptions: IdMatcher[];
  submodels: SubmodelGrant[];
  proprietary: Set<ProprietaryCall>;
}

const RIGHTS: readonly Right[] = ["READ", "CREATE", "UPDATE", "DELETE", "EXECUTE"];
/** Distinct principals whose grants are kept (tokens of many users; each entry is small). */
const MAX_CACHED_PRINCIPALS = 10_000;
/** Submodels whose scope each principal's grant of one right remembers (the hot path repeats ids). */
const MAX_CACHED_SUBMODELS = 10_000;

/** A bounded memo: emptied when full, which costs one recomputation per id, never a wrong answer. */
function memo<T>(compute: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    if (known.has(key)) return known.get(key)!;
    if (known.size >= MAX_CACHED_SUBMODELS) known.clear();
    const value = compute(key);
    known.set(key, value);
    return value;
  };
}

function subjectMatcher(subject: AccessSubject): (principal: Principal) => boolean {
  if ("role" in subject) return (p) => p.roles.includes(subject.role);
  if ("user" in subject) return (p) => p.kind === "user" && p.name === subject.user;
  if ("certificateSubject" in subject) return (p) => p.kind === "certificate" && p.name === subject.certificateSubject;
  if ("anonymous" in subject) return (p) => p.kind === "anonymous";
  return (p) => p.kind !== "anonymous";
}

function compileRule(rule: AccessRuleInput): CompiledRule {
  const subjects = rule.subjects.map(subjectMatcher);
  const compiled: CompiledRule = {
    applies: (principal) => subjects.some((matches) => matches(principal)),
    rights: new Set(rule.rights),
    all: false,
    shells: [],
    conceptDescriptions: [],
    submodels: [],
    proprietary: new Set(),
  };
  for (const object of rule.objects) {
    if ("all" in object) compiled.all = true;
    else if ("shells" in object) compiled.shells.push(compileIdPattern(object.shells));
    else if ("conceptDescriptions" in object)
      compiled.conceptDescriptions.push(compileIdPattern(object.conceptDescriptions));
    else if ("proprietary" in object) compiled.proprietary.add(object.proprietary);
    else if ("submodels" in object)
      compiled.submodels.push({
        id: compileIdPattern(object.submodels),
        ...(object.idShortPath ? { prefix: object.idShortPath } : {}),
      });
    else
      compiled.submodels.push({
        semanticId: compileIdPattern(object.semanticId),
        ...(object.idShortPath ? { prefix: object.idShortPath } : {}),
      });
  }
  return compiled;
}

const NOTHING: RightGrants = Object.freeze({
  all: false,
  bySemanticId: false,
  anySubmodel: false,
  grantsNothing: true,
  shell: () => false,
  conceptDescription: () => false,
  proprietary: () => false,
  submodel: () => undefined,
  submodelById: () => undefined,
});

function rightGrants(rules: readonly CompiledRule[]): RightGrants {
  if (rules.length === 0) return NOTHING;
  if (rules.some((rule) => rule.all)) {
    return {
      all: true,
      bySemanticId: false,
      anySubmodel: true,
      grantsNothing: false,
      shell: () => true,
      conceptDescription: () => true,
      proprietary: () => true,
      submodel: () => WHOLE_SUBMODEL,
      submodelById: () => WHOLE_SUBMODEL,
    };
  }
  const shells = rules.flatMap((rule) => rule.shells);
  const cds = rules.flatMap((rule) => rule.conceptDescriptions);
  const proprietary = new Set(rules.flatMap((rule) => [...rule.proprietary]));
  const submodels = rules.flatMap((rule) => rule.submodels);
  const scopeOf = (grants: SubmodelGrant[]): ElementScope | undefined => {
    if (grants.length === 0) return undefined;
    if (grants.some((grant) => grant.prefix === undefined)) return WHOLE_SUBMODEL;
    return prefixScope(grants.map((grant) => grant.prefix!));
  };
  const byId = memo((id) => scopeOf(submodels.filter((grant) => grant.id?.(id) === true)));
  const bySemanticId = submodels.some((grant) => grant.semanticId !== undefined);
  // Only the semanticId grants need the facts; the id grants come from the memo.
  const semanticGrants = submodels.filter((grant) => grant.semanticId !== undefined);
  const bySemanticIds = memo((key) => {
    const [id, ...semanticIds] = key.split("\u0000");
    return scopeOf([
      ...submodels.filter((grant) => grant.id?.(id!) === true),
      ...semanticGrants.filter((grant) => semanticIds.some((value) => grant.semanticId!(value))),
    ]);
  });
  return {
    all: false,
    bySemanticId,
    anySubmodel: submodels.length > 0,
    grantsNothing: shells.length === 0 && cds.length === 0 && submodels.length === 0 && proprietary.size === 0,
    shell: (id) => shells.some((matches) => matches(id)),
    conceptDescription: (id) => cds.some((matches) => matches(id)),
    proprietary: (call) => proprietary.has(call),
    submodel: (facts) =>
      bySemanticId && facts.semanticIds.length > 0
        ? bySemanticIds([facts.id, ...facts.semanticIds].join("\u0000"))
        : byId(facts.id),
    submodelById: byId,
  };
}

/** Compiles the rules once; `grantsOf` then answers from a per-principal cache. */
export function compileAccessPolicy(rules: readonly AccessRuleInput[]): AccessPolicy {
  const compiled = rules.map(compileRule);
  const cache = new Map<string, PrincipalGrants>();
  // A principal object reused (an OPC UA session, an in-process caller) skips building the key.
  const byObject = new WeakMap<Principal, PrincipalGrants>();
  return {
    grantsOf(principal) {
      const same = byObject.get(principal);
      if (same) return same;
      const key = `${principal.kind}\u0000${principal.name ?? ""}\u0000${principal.roles.join("\u0000")}`;
      const known = cache.get(key);
      if (known) {
        byObject.set(principal, known);
        return known;
      }
      const applying = compiled.filter((rule) => rule.applies(principal));
      const byRight = new Map<Right, RightGrants>(
        RIGHTS.map((right) => [right, rightGrants(applying.filter((rule) => rule.rights.has(right)))]),
      );
      const grants: PrincipalGrants = { principal, right: (right) => byRight.get(right)! };
      if (cache.size >= MAX_CACHED_PRINCIPALS) cache.delete(cache.keys().next().value!);
      cache.set(key, grants);
      byObject.set(principal, grants);
      return grants;
    },
  };
}

/** The values of a Reference's keys (semanticId), as the rules match them: any key value may match. */
export function referenceKeyValues(reference: unknown): string[] {
  const keys = (reference as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(keys)) return [];
  return keys
    .map((key) => (key as { value?: unknown })?.value)
    .filter((value): value is string => typeof value === "string");
}
