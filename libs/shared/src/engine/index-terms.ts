import { createHash } from "node:crypto";
import { GLOBAL_ASSET_ID_NAME } from "./asset-links.ts";
import type { IdentifiableKind } from "./ports/index.ts";
import type { ReferenceFilter } from "./reference-filter.ts";

/**
 * Index terms of identifiables (docs/adr/0035): what the list filters look up instead of scanning.
 * An identifiable carries a set of terms; a filter names terms every match must carry. The index
 * only narrows the candidates: each candidate is still checked with the filter's exact predicate,
 * so a term may be coarser than the filter (a Reference filter looks up one key value) and two
 * values may even share a term (a long value is hashed) without changing any answer.
 *
 * A term is `<field>=<value>`. It never contains "\0" and stays short (the Redis index keeps
 * `<term>\0<ordinal><id>` members, so "\0" ends a term, and its length is read back in UTF-16
 * units), so a value with "\0", with a surrogate (outside the Basic Multilingual Plane, or a lone
 * one) or a long one is replaced by its SHA-256.
 */

export type IndexField = "idShort" | "assetId" | "semanticId" | "isCaseOf" | "dataSpecificationRef";

const MAX_PLAIN_TERM = 200;

export function indexTerm(field: IndexField, value: string): string {
  const term = `${field}=${value}`;
  if (term.length <= MAX_PLAIN_TERM && !/[\0\uD800-\uDFFF]/.test(term)) return term;
  return `#${field}=${createHash("sha256").update(value).digest("base64url")}`;
}

/** The term an `assetIds` query value and a shell's asset link share. */
export function assetIdTerm(name: string, value: string): string {
  return indexTerm("assetId", JSON.stringify([name, value]));
}

/**
 * Terms a Reference filter implies: every key value a match must carry (a whole Reference matches
 * only a reference with exactly these keys; a bare key value, any reference with a key of it).
 */
export function referenceTerms(field: IndexField, filter: ReferenceFilter): string[] {
  const values = filter.kind === "key-value" ? [filter.value] : filter.keys.map((key) => key.value);
  return [...new Set(values)].map((value) => indexTerm(field, value));
}

/** The terms of one identifiable (AAS JSON; a submodel's without elements), each once. */
export function indexTermsOf(kind: IdentifiableKind, identifiable: Record<string, unknown>): string[] {
  const terms = new Set<string>();
  if (typeof identifiable.idShort === "string") terms.add(indexTerm("idShort", identifiable.idShort));
  if (kind === "shell") {
    // The links assetLinksOf gives, read defensively: this runs inside the commit and must not
    // throw on a shell stored without validation.
    const info = identifiable.assetInformation as { globalAssetId?: unknown; specificAssetIds?: unknown } | null;
    if (typeof info?.globalAssetId === "string") terms.add(assetIdTerm(GLOBAL_ASSET_ID_NAME, info.globalAssetId));
    const specific = Array.isArray(info?.specificAssetIds) ? info.specificAssetIds : [];
    for (const link of specific as { name?: unknown; value?: unknown }[]) {
      if (typeof link?.name === "string" && typeof link.value === "string")
        terms.add(assetIdTerm(link.name, link.value));
    }
  } else if (kind === "submodel") {
    addKeyValues(terms, "semanticId", [identifiable.semanticId]);
  } else {
    addKeyValues(terms, "isCaseOf", identifiable.isCaseOf);
    const embedded = Array.isArray(identifiable.embeddedDataSpecifications)
      ? identifiable.embeddedDataSpecifications
      : [];
    addKeyValues(
      terms,
      "dataSpecificationRef",
      embedded.map((entry) => (entry as { dataSpecification?: unknown } | null)?.dataSpecification),
    );
  }
  return [...terms];
}

/** The same, from stored JSON text; text that is not a JSON object has no terms. */
export function indexTermsOfJson(kind: IdentifiableKind, json: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? indexTermsOf(kind, parsed as Record<string, unknown>)
    : [];
}

function addKeyValues(terms: Set<string>, field: IndexField, references: unknown): void {
  if (!Array.isArray(references)) return;
  for (const reference of references) {
    const keys = (reference as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) continue;
    for (const key of keys) {
      const value = (key as { value?: unknown } | null)?.value;
      if (typeof value === "string") terms.add(indexTerm(field, value));
    }
  }
}
