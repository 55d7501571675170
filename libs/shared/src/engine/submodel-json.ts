import type { ElementJson } from "../aas/index.ts";

/**
 * A submodel is stored as its own record without `submodelElements` (each element is a record of
 * its own). An empty `submodelElements: []` marker is kept so an explicitly empty list round-trips.
 */
export function splitSubmodel(submodel: Record<string, unknown>): {
  meta: Record<string, unknown>;
  elements: ElementJson[];
} {
  const { submodelElements, ...rest } = submodel;
  const elements = (submodelElements ?? []) as ElementJson[];
  const meta = submodelElements === undefined ? rest : { ...rest, submodelElements: [] };
  return { meta, elements };
}

export function joinSubmodel(meta: Record<string, unknown>, elements: ElementJson[]): Record<string, unknown> {
  if (elements.length === 0) return meta;
  return { ...meta, submodelElements: elements };
}
