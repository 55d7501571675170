/**
 * Fixtures and helpers of the Submodel (Repository) API black-box suites: a submodel with every
 * element kind (the example's first submodel under a fresh id, plus xs:dateTime, xs:gDay and an
 * xs:decimal beyond double precision), created per test so tests never depend on each other.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { b64, type HttpClient, type HttpResponse } from "../test-support/http-client.ts";
import { EXAMPLE_MODEL } from "../test-support/system.ts";

export { assertResult, etagOf, paged, valid } from "./shell-suite-support.ts";

export const model = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
export const EXAMPLE_SUBMODEL = model.submodels[0];
export const SEMANTIC_ID = "https://example.org/semantics/TechnicalData/1/0";

/** Elements the example lacks: typed values the spec names (§4.1.13) and an exact big decimal. */
export const EXTRA_ELEMENTS = [
  { modelType: "Property", idShort: "Stamp", valueType: "xs:dateTime", value: "2024-05-01T10:00:00.125+02:00" },
  { modelType: "Property", idShort: "Day", valueType: "xs:gDay", value: "---05Z" },
  { modelType: "Property", idShort: "Big", valueType: "xs:decimal", value: "12345678901234567890.123456789" },
];

let counter = 0;

/** A fresh submodel body: the example's element kinds, a unique id and idShort "Fixture". */
export function fixtureSubmodel(label: string): any {
  const id = `urn:twinport:test:${label}:${process.pid}:${++counter}`;
  const copy = JSON.parse(JSON.stringify(EXAMPLE_SUBMODEL).replaceAll(EXAMPLE_SUBMODEL.id, id));
  return { ...copy, idShort: "Fixture", submodelElements: [...copy.submodelElements, ...EXTRA_ELEMENTS] };
}

/** POST a fixture submodel; returns it and its path below /api/v3.0. */
export async function createFixture(http: HttpClient, label: string): Promise<{ submodel: any; path: string }> {
  const submodel = fixtureSubmodel(label);
  const res = await http.request("POST", "/submodels", { body: JSON.stringify(submodel) });
  assert.equal(res.status, 201, res.text);
  return { submodel, path: `/submodels/${b64(submodel.id)}` };
}

export function elementOf(submodel: any, idShortPath: string): any {
  let current: any = { submodelElements: submodel.submodelElements };
  for (const part of idShortPath.match(/[^.[\]]+|\[\d+\]/g)!) {
    const children = current.submodelElements ?? current.value ?? current.statements ?? current.annotations;
    current = part.startsWith("[")
      ? children[Number(part.slice(1, -1))]
      : children.find((e: any) => e.idShort === part);
  }
  return current;
}

/** The element without Blob bytes (what the API answers without extent=withBlobValue). */
export function withoutBlobs(value: any): any {
  return JSON.parse(JSON.stringify(value), (key, v) =>
    v && typeof v === "object" && v.modelType === "Blob" ? (({ value: _bytes, ...rest }) => rest)(v) : v,
  );
}

export function json(res: HttpResponse, status = 200): any {
  assert.equal(res.status, status, res.text);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
  return res.json();
}

/** Every page of a paged list, following the cursors; checks every page but the last is full. */
export async function allPages(http: HttpClient, path: string, limit: number): Promise<any[]> {
  const { paged } = await import("./shell-suite-support.ts");
  const items: any[] = [];
  let cursor: string | undefined;
  const join = path.includes("?") ? "&" : "?";
  do {
    const page = paged(
      await http.get(`${path}${join}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
    );
    if (page.cursor !== undefined) assert.equal(page.result.length, limit, "a page with a cursor is full");
    items.push(...page.result);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return items;
}

/** The three places the Submodel API is served (AAS API §a.2/§a.3 and the spec §4.1.5 form). */
export type SubmodelMount = "repository" | "shell" | "shell-aas";

export const MOUNTS: readonly SubmodelMount[] = ["repository", "shell", "shell-aas"];

/**
 * A fixture submodel and the Submodel API's base path for it at `mount`; below a shell, a fresh
 * shell referencing the submodel is created too.
 */
export async function createFixtureAt(
  http: HttpClient,
  label: string,
  mount: SubmodelMount,
): Promise<{ submodel: any; path: string; aasId?: string }> {
  const { submodel, path } = await createFixture(http, label);
  if (mount === "repository") return { submodel, path };
  const aasId = `${submodel.id}:shell`;
  const shell = {
    modelType: "AssetAdministrationShell",
    id: aasId,
    assetInformation: { assetKind: "Instance", globalAssetId: `${aasId}:asset` },
    submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: submodel.id }] }],
  };
  const res = await http.request("POST", "/shells", { body: JSON.stringify(shell) });
  assert.equal(res.status, 201, res.text);
  const below = `/shells/${b64(aasId)}/${mount === "shell" ? "submodels" : "aas/submodels"}/${b64(submodel.id)}${mount === "shell" ? "" : "/submodel"}`;
  return { submodel, path: below, aasId };
}
