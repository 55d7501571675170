/**
 * The HTTP rights matrix (issue 13): one row per grant. Each row's role is granted exactly one right
 * on exactly one object; `allowed` are the requests that grant makes possible (with their status),
 * `refused` its neighbours, which must answer 403: the other rights on the same object, and the same
 * right on a neighbouring object. `setup` runs as the admin first (what a DELETE row deletes).
 *
 * Rows change the shared model, so each writes only what no other row reads: the lists test reads
 * urn:access:many:04* and the shells, which no row changes in a way it checks.
 */
import assert from "node:assert/strict";
import { writeAasx } from "@twinport/shared";
import {
  ACCESS_CD_1,
  ACCESS_CD_2,
  ACCESS_MANY,
  ACCESS_NAMEPLATE,
  ACCESS_SHELL_A,
  ACCESS_SHELL_B,
  ACCESS_SM_1,
  ACCESS_SM_2,
  OPERATIONS_SUBMODEL_ID as OPS,
} from "@twinport/shared/test-support";
import { b64, type HttpResponse } from "../test-support/http-client.ts";
import { shellBody, submodelRef } from "./shell-suite-support.ts";

/** The suite gives the operations submodel this semanticId (it has none of its own). */
export const OPS_SEMANTIC_ID = "urn:matrix:sem:operations";

export type Right = "READ" | "CREATE" | "UPDATE" | "DELETE" | "EXECUTE";

export interface MatrixRequest {
  method: string;
  /** A function when the path is known only once the suite's setup ran (package ids). */
  path: string | ((ids: SetupIds) => string);
  body?: unknown;
  /** A body sent as it is, with this Content-Type (multipart uploads); else `body` goes as JSON. */
  contentType?: string;
  /** Expected status of an allowed request. */
  status?: number;
  /** More checks on an allowed request's answer (e.g. what a partial reader sees). */
  check?: (response: HttpResponse) => void;
}

export interface MatrixRow {
  name: string;
  right: Right;
  object: Record<string, unknown>;
  setup?: MatrixRequest[];
  allowed: MatrixRequest[];
  refused: MatrixRequest[];
}

/** Ids the suite learns while setting up (packages get their id from the server). */
export interface SetupIds {
  packages: string[];
}

export const sm = (id: string) => `/submodels/${b64(id)}`;
export const el = (id: string, path: string) => `${sm(id)}/submodel-elements/${path}`;
const shell = (id: string) => `/shells/${b64(id)}`;
const cd = (id: string) => `/concept-descriptions/${b64(id)}`;
const pkg = (n: number) => (ids: SetupIds) => `/packages/${b64(ids.packages[n]!)}`;

const req = (
  method: string,
  path: MatrixRequest["path"],
  body?: unknown,
  status?: number,
  check?: MatrixRequest["check"],
): MatrixRequest => ({ method, path, body, status, check });
const get = (path: MatrixRequest["path"], check?: MatrixRequest["check"]) => req("GET", path, undefined, 200, check);
const property = (idShort: string, value = "1") => ({ modelType: "Property", idShort, valueType: "xs:int", value });
const submodel = (id: string, extra: Record<string, unknown> = {}) => ({
  modelType: "Submodel",
  id,
  idShort: "Matrix",
  ...extra,
});
const conceptDescription = (id: string) => ({ modelType: "ConceptDescription", id, idShort: "Cd" });
const nameplate = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: ACCESS_NAMEPLATE }] };
const assetInfo = (id: string) => ({ assetKind: "Instance", globalAssetId: `${id}/asset` });
const invoke = (id: string, path: string, status?: number) =>
  req(
    "POST",
    `${el(id, path)}/invoke/$value`,
    { inputArguments: path === "Add" ? { a: 1 } : path === "Folder.Echo" ? { text: "x" } : {} },
    status ?? 200,
  );
/** An AASX package holding one shell, urn:matrix:pkg:<n>, as the multipart upload /packages takes. */
export function packageUpload(n: number): { body: Buffer; contentType: string } {
  const id = `urn:matrix:pkg:${n}`;
  const aasx = Buffer.from(writeAasx({ environment: { assetAdministrationShells: [shellBody(id)] }, files: [] }));
  return multipart([
    ["aasIds", id],
    ["fileName", `pkg-${n}.aasx`],
    ["file", aasx, `; filename="pkg-${n}.aasx"\r\nContent-Type: application/asset-administration-shell-package`],
  ]);
}

/** A multipart/form-data body of [name, value, extra header text after the name] parts. */
function multipart(parts: [string, Buffer | string, string?][]): { body: Buffer; contentType: string } {
  const boundary = "----twinport-matrix-boundary";
  const pieces = parts.flatMap(([name, value, extra = ""]) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n`),
    Buffer.from(value),
    Buffer.from("\r\n"),
  ]);
  return {
    body: Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
const attachment = (method: string, path: string, status?: number): MatrixRequest => ({
  method,
  path,
  ...multipart([
    ["fileName", "doc.txt"],
    ["file", "a document", '; filename="doc.txt"\r\nContent-Type: text/plain'],
  ]),
  status,
});
const upload = (method: string, path: MatrixRequest["path"], n: number, status?: number): MatrixRequest => {
  const { body, contentType } = packageUpload(n);
  return { method, path, body, contentType, status };
};
const many = (n: number) => ACCESS_MANY[n]!;
const idShortsOf = (response: HttpResponse): string[] =>
  (response.json().value as { idShort: string }[]).map((e) => e.idShort);

export const ROWS: MatrixRow[] = [
  // ---- everything
  {
    name: "READ on everything",
    right: "READ",
    object: { all: true },
    allowed: [get(shell(ACCESS_SHELL_A)), get(sm(ACCESS_SM_2)), get(el(OPS, "Add")), get(cd(ACCESS_CD_1)), get(pkg(0))],
    refused: [
      req("PATCH", `${el(ACCESS_SM_2, "Q")}/$value`, 2),
      req("POST", "/submodels", submodel("urn:matrix:all:read")),
      req("DELETE", sm(ACCESS_SM_2)),
      invoke(OPS, "Add"),
      req("DELETE", "/reset"),
    ],
  },
  {
    name: "CREATE on everything",
    right: "CREATE",
    object: { all: true },
    allowed: [
      req("POST", "/submodels", submodel("urn:matrix:all:create"), 201),
      req("POST", "/concept-descriptions", conceptDescription("urn:matrix:all:create-cd"), 201),
    ],
    refused: [
      get(sm("urn:matrix:all:create")),
      req("PATCH", `${el(ACCESS_SM_2, "Q")}/$value`, 3),
      req("DELETE", sm("urn:matrix:all:create")),
      invoke(OPS, "Add"),
    ],
  },
  {
    name: "UPDATE on everything",
    right: "UPDATE",
    object: { all: true },
    allowed: [
      req("PATCH", `${el(ACCESS_SM_2, "Q")}/$value`, 3, 204),
      req("PUT", `${shell(ACCESS_SHELL_B)}/asset-information`, assetInfo(ACCESS_SHELL_B), 204),
    ],
    refused: [
      get(sm(ACCESS_SM_2)),
      req("POST", `${sm(ACCESS_SM_2)}/submodel-elements`, property("New")),
      req("DELETE", el(ACCESS_SM_2, "Q")),
      invoke(OPS, "Add"),
    ],
  },
  {
    name: "DELETE on everything",
    right: "DELETE",
    object: { all: true },
    setup: [req("POST", "/submodels", submodel("urn:matrix:all:delete"), 201)],
    allowed: [req("DELETE", sm("urn:matrix:all:delete"), undefined, 204)],
    refused: [
      get(sm(ACCESS_SM_2)),
      req("PATCH", `${el(ACCESS_SM_2, "Q")}/$value`, 4),
      req("POST", "/submodels", submodel("urn:matrix:all:delete")),
      invoke(OPS, "Add"),
    ],
  },
  {
    name: "EXECUTE on everything",
    right: "EXECUTE",
    object: { all: true },
    allowed: [invoke(OPS, "Add"), invoke(OPS, "Folder.Echo")],
    refused: [get(el(OPS, "Add")), req("PATCH", `${el(ACCESS_SM_2, "Q")}/$value`, 5), req("DELETE", el(OPS, "Fail"))],
  },
  // ---- shells by id
  {
    name: "READ on a shell by id",
    right: "READ",
    object: { shells: ACCESS_SHELL_A },
    allowed: [
      get(shell(ACCESS_SHELL_A)),
      get(`${shell(ACCESS_SHELL_A)}/asset-information`),
      get(`${shell(ACCESS_SHELL_A)}/submodel-refs`),
    ],
    // Shell rights do not reach the submodels it references, not even under the shell's path.
    refused: [
      get(shell(ACCESS_SHELL_B)),
      get(sm(ACCESS_SM_1)),
      get(`${shell(ACCESS_SHELL_A)}/submodels/${b64(ACCESS_SM_1)}`),
      req("PUT", `${shell(ACCESS_SHELL_A)}/asset-information`, assetInfo(ACCESS_SHELL_A)),
    ],
  },
  {
    name: "CREATE on a shell by id",
    right: "CREATE",
    object: { shells: "urn:matrix:shell:new" },
    allowed: [req("POST", "/shells", shellBody("urn:matrix:shell:new"), 201)],
    refused: [
      req("POST", "/shells", shellBody("urn:matrix:shell:other")),
      get(shell("urn:matrix:shell:new")),
      req("DELETE", shell("urn:matrix:shell:new")),
      req("POST", "/submodels", submodel("urn:matrix:shell:new")),
    ],
  },
  {
    name: "UPDATE on a shell by id",
    right: "UPDATE",
    object: { shells: ACCESS_SHELL_B },
    allowed: [
      req("PUT", `${shell(ACCESS_SHELL_B)}/asset-information`, assetInfo(ACCESS_SHELL_B), 204),
      req("POST", `${shell(ACCESS_SHELL_B)}/submodel-refs`, submodelRef(ACCESS_SM_2), 201),
    ],
    refused: [
      req("PUT", `${shell(ACCESS_SHELL_A)}/asset-information`, assetInfo(ACCESS_SHELL_A)),
      get(shell(ACCESS_SHELL_B)),
      req("DELETE", shell(ACCESS_SHELL_B)),
    ],
  },
  {
    name: "DELETE on a shell by id",
    right: "DELETE",
    object: { shells: "urn:matrix:shell:doomed" },
    setup: [req("POST", "/shells", shellBody("urn:matrix:shell:doomed"), 201)],
    allowed: [req("DELETE", shell("urn:matrix:shell:doomed"), undefined, 204)],
    refused: [
      req("DELETE", shell(ACCESS_SHELL_B)),
      get(shell("urn:matrix:shell:doomed")),
      req("POST", "/shells", shellBody("urn:matrix:shell:doomed")),
    ],
  },
  // ---- shells by id pattern
  {
    name: "READ on shells by id pattern",
    right: "READ",
    object: { shells: "urn:access:shell:*" },
    allowed: [get(shell(ACCESS_SHELL_A)), get(shell(ACCESS_SHELL_B))],
    refused: [
      get(shell("urn:matrix:shell:new")),
      get(sm(ACCESS_SM_1)),
      req("PUT", `${shell(ACCESS_SHELL_A)}/asset-information`, assetInfo(ACCESS_SHELL_A)),
    ],
  },
  {
    name: "UPDATE on shells by id pattern",
    right: "UPDATE",
    object: { shells: "urn:access:shell:*" },
    allowed: [
      req("PUT", `${shell(ACCESS_SHELL_A)}/asset-information`, assetInfo(ACCESS_SHELL_A), 204),
      req("PUT", `${shell(ACCESS_SHELL_B)}/asset-information`, assetInfo(ACCESS_SHELL_B), 204),
    ],
    refused: [
      req("PUT", `${shell("urn:matrix:shell:new")}/asset-information`, assetInfo("urn:matrix:shell:new")),
      get(shell(ACCESS_SHELL_A)),
      req("DELETE", shell(ACCESS_SHELL_A)),
    ],
  },
  // ---- submodels by id pattern
  {
    name: "READ on submodels by id pattern",
    right: "READ",
    object: { submodels: "urn:access:many:00*" },
    allowed: [
      get(sm(many(1))),
      get(`${sm(many(9))}/$value`, (r) => assert.deepEqual(r.json(), { V: 9 })),
      get(el(many(0), "V")),
    ],
    refused: [get(sm(many(10))), req("PATCH", `${el(many(1), "V")}/$value`, 1), get(shell(ACCESS_SHELL_A))],
  },
  {
    name: "CREATE on submodels by id pattern",
    right: "CREATE",
    object: { submodels: "urn:matrix:sm:*" },
    allowed: [
      req("POST", "/submodels", submodel("urn:matrix:sm:new"), 201),
      req("POST", `${sm("urn:matrix:sm:new")}/submodel-elements`, property("N"), 201),
    ],
    refused: [
      req("POST", "/submodels", submodel("urn:matrix:other")),
      req("POST", `${sm(many(1))}/submodel-elements`, property("N")),
      get(sm("urn:matrix:sm:new")),
      req("DELETE", sm("urn:matrix:sm:new")),
    ],
  },
  {
    name: "UPDATE on submodels by id pattern",
    right: "UPDATE",
    object: { submodels: "urn:access:many:01*" },
    allowed: [
      req("PATCH", `${el(many(11), "V")}/$value`, 111, 204),
      req("PUT", el(many(12), "V"), property("V", "112"), 204),
    ],
    refused: [
      req("PATCH", `${el(many(21), "V")}/$value`, 121),
      get(sm(many(11))),
      req("POST", `${sm(many(11))}/submodel-elements`, property("N")),
      req("DELETE", el(many(11), "V")),
    ],
  },
  {
    name: "DELETE on submodels by id pattern",
    right: "DELETE",
    object: { submodels: "urn:access:many:02*" },
    allowed: [req("DELETE", el(many(20), "V"), undefined, 204), req("DELETE", sm(many(21)), undefined, 204)],
    refused: [
      req("DELETE", sm(many(30))),
      get(sm(many(22))),
      req("PATCH", `${el(many(22), "V")}/$value`, 1),
      req("POST", `${sm(many(22))}/submodel-elements`, property("N")),
    ],
  },
  {
    name: "EXECUTE on submodels by id pattern",
    right: "EXECUTE",
    object: { submodels: "urn:twinport:test:operation*" },
    allowed: [invoke(OPS, "Add"), invoke(OPS, "Folder.Echo")],
    refused: [invoke(ACCESS_SM_1, "Op"), get(el(OPS, "Add")), req("DELETE", el(OPS, "Fail"))],
  },
  // ---- submodels by semanticId
  {
    name: "READ on submodels by semanticId",
    right: "READ",
    object: { semanticId: ACCESS_NAMEPLATE },
    allowed: [
      get(sm(ACCESS_SM_1)),
      get(el(ACCESS_SM_1, "P")),
      get(`/submodels?semanticId=${b64(ACCESS_NAMEPLATE)}`, (r) =>
        assert.deepEqual(
          r.json().result.map((s: { id: string }) => s.id),
          [ACCESS_SM_1],
        ),
      ),
    ],
    // Under a shell's path the shell must be readable too.
    refused: [
      get(sm(ACCESS_SM_2)),
      get(`${shell(ACCESS_SHELL_A)}/submodels/${b64(ACCESS_SM_1)}`),
      req("PATCH", `${el(ACCESS_SM_1, "P")}/$value`, 1),
      req("DELETE", el(ACCESS_SM_1, "P")),
    ],
  },
  {
    name: "CREATE on submodels by semanticId",
    right: "CREATE",
    object: { semanticId: ACCESS_NAMEPLATE },
    allowed: [
      req("POST", `${sm(ACCESS_SM_1)}/submodel-elements`, property("Made"), 201),
      req("POST", "/submodels", submodel("urn:matrix:np:new", { semanticId: nameplate }), 201),
    ],
    refused: [
      req("POST", `${sm(ACCESS_SM_2)}/submodel-elements`, property("Made")),
      req("POST", "/submodels", submodel("urn:matrix:np:other")),
      get(sm(ACCESS_SM_1)),
    ],
  },
  {
    name: "UPDATE on submodels by semanticId",
    right: "UPDATE",
    object: { semanticId: ACCESS_NAMEPLATE },
    allowed: [req("PATCH", `${el(ACCESS_SM_1, "P")}/$value`, 5, 204)],
    refused: [
      req("PATCH", `${el(ACCESS_SM_2, "Q")}/$value`, 5),
      // A semanticId-scoped right cannot move the submodel out of its own scope.
      req(
        "PUT",
        sm(ACCESS_SM_1),
        submodel(ACCESS_SM_1, {
          semanticId: { ...nameplate, keys: [{ type: "GlobalReference", value: "urn:matrix:sem:elsewhere" }] },
        }),
      ),
      get(sm(ACCESS_SM_1)),
      req("DELETE", el(ACCESS_SM_1, "P")),
      req("POST", `${sm(ACCESS_SM_1)}/submodel-elements`, property("Other")),
    ],
  },
  {
    name: "DELETE on submodels by semanticId",
    right: "DELETE",
    object: { semanticId: ACCESS_NAMEPLATE },
    setup: [req("POST", `${sm(ACCESS_SM_1)}/submodel-elements`, property("Doomed"), 201)],
    allowed: [req("DELETE", el(ACCESS_SM_1, "Doomed"), undefined, 204)],
    // Under a shell, deleting its submodel also changes the shell: a submodel right alone does not do.
    refused: [
      req("DELETE", el(ACCESS_SM_2, "Q")),
      req("DELETE", `${shell(ACCESS_SHELL_A)}/submodels/${b64(ACCESS_SM_1)}`),
      get(el(ACCESS_SM_1, "P")),
      req("PATCH", `${el(ACCESS_SM_1, "P")}/$value`, 6),
    ],
  },
  {
    name: "EXECUTE on submodels by semanticId",
    right: "EXECUTE",
    object: { semanticId: OPS_SEMANTIC_ID },
    allowed: [invoke(OPS, "Add"), invoke(OPS, "Folder.Echo")],
    refused: [invoke(ACCESS_SM_1, "Op"), get(el(OPS, "Add")), req("PATCH", `${el(OPS, "NotAnOperation")}/$value`, "x")],
  },
  // ---- elements by idShortPath prefix
  {
    name: "READ on elements by idShortPath prefix",
    right: "READ",
    object: { submodels: ACCESS_SM_1, idShortPath: "C.X" },
    allowed: [
      get(el(ACCESS_SM_1, "C.X")),
      // An ancestor shows only what leads to the granted prefix: C holds X alone (not XY, not Y).
      get(el(ACCESS_SM_1, "C"), (r) => assert.deepEqual(idShortsOf(r), ["X"])),
      get(sm(ACCESS_SM_1), (r) =>
        assert.deepEqual(
          r.json().submodelElements.map((e: { idShort: string }) => e.idShort),
          ["C"],
        ),
      ),
      get(`${sm(ACCESS_SM_1)}/$path`, (r) => assert.deepEqual(r.json(), ["C", "C.X"])),
      get(`${sm(ACCESS_SM_1)}/submodel-elements`, (r) =>
        assert.deepEqual(
          r.json().result.map((e: { idShort: string }) => e.idShort),
          ["C"],
        ),
      ),
      get(`${sm(ACCESS_SM_1)}/$value`, (r) => assert.deepEqual(r.json(), { C: { X: 10 } })),
    ],
    refused: [
      get(el(ACCESS_SM_1, "C.XY")),
      get(el(ACCESS_SM_1, "P")),
      req("PATCH", `${el(ACCESS_SM_1, "C.X")}/$value`, 7),
    ],
  },
  {
    name: "CREATE on elements by idShortPath prefix",
    right: "CREATE",
    object: { submodels: ACCESS_SM_1, idShortPath: "C.Made" },
    allowed: [req("POST", el(ACCESS_SM_1, "C"), property("Made"), 201)],
    refused: [
      req("POST", el(ACCESS_SM_1, "C"), property("Other")),
      req("POST", `${sm(ACCESS_SM_1)}/submodel-elements`, property("Made")),
      get(el(ACCESS_SM_1, "C.Made")),
      req("DELETE", el(ACCESS_SM_1, "C.Made")),
    ],
  },
  {
    name: "UPDATE on elements by idShortPath prefix",
    right: "UPDATE",
    object: { submodels: ACCESS_SM_1, idShortPath: "C.X" },
    allowed: [
      req("PATCH", `${el(ACCESS_SM_1, "C.X")}/$value`, 13, 204),
      req("PUT", el(ACCESS_SM_1, "C.X"), property("X", "14"), 204),
    ],
    refused: [
      req("PATCH", `${el(ACCESS_SM_1, "C.XY")}/$value`, 13),
      req("PATCH", `${el(ACCESS_SM_1, "P")}/$value`, 13),
      // A $value patch of the submodel may touch any element: it needs the whole submodel.
      req("PATCH", `${sm(ACCESS_SM_1)}/$value`, { C: { X: 15 } }),
      get(el(ACCESS_SM_1, "C.X")),
      req("DELETE", el(ACCESS_SM_1, "C.X")),
    ],
  },
  {
    name: "UPDATE on a list item by idShortPath prefix",
    right: "UPDATE",
    object: { submodels: ACCESS_SM_1, idShortPath: "L[0]" },
    allowed: [req("PATCH", `${el(ACCESS_SM_1, "L[0]")}/$value`, 30, 204)],
    // The list's $value may touch every item: it needs the whole list.
    refused: [
      req("PATCH", `${el(ACCESS_SM_1, "L[1]")}/$value`, 31),
      req("PATCH", `${el(ACCESS_SM_1, "L")}/$value`, [30, 31]),
      get(el(ACCESS_SM_1, "L[0]")),
    ],
  },
  {
    name: "CREATE in a list by idShortPath prefix (items have no idShort: the right is on the list)",
    right: "CREATE",
    object: { submodels: ACCESS_SM_1, idShortPath: "L" },
    allowed: [req("POST", el(ACCESS_SM_1, "L"), { modelType: "Property", valueType: "xs:int", value: "22" }, 201)],
    refused: [
      req("POST", el(ACCESS_SM_1, "C"), property("InC")),
      req("PATCH", `${el(ACCESS_SM_1, "L[0]")}/$value`, 32),
      get(el(ACCESS_SM_1, "L")),
    ],
  },
  {
    name: "DELETE on a list item by idShortPath prefix (an index names a position)",
    right: "DELETE",
    object: { submodels: ACCESS_SM_1, idShortPath: "L[1]" },
    // L holds 20, 21 and the 22 the CREATE row appended. Deleting L[1] moves 22 into position 1,
    // which the same grant covers: the rule is about the position, not the item that was there.
    allowed: [
      req("DELETE", el(ACCESS_SM_1, "L[1]"), undefined, 204),
      req("DELETE", el(ACCESS_SM_1, "L[1]"), undefined, 204),
      req("DELETE", el(ACCESS_SM_1, "L[1]"), undefined, 404),
    ],
    refused: [
      req("DELETE", el(ACCESS_SM_1, "L[0]")),
      req("DELETE", el(ACCESS_SM_1, "L")),
      get(el(ACCESS_SM_1, "L[1]")),
    ],
  },
  {
    name: "UPDATE on a File element by idShortPath prefix: its attachment",
    right: "UPDATE",
    object: { submodels: ACCESS_SM_2, idShortPath: "Doc" },
    setup: [
      req(
        "POST",
        `${sm(ACCESS_SM_2)}/submodel-elements`,
        { modelType: "File", idShort: "Doc", contentType: "text/plain" },
        201,
      ),
    ],
    // Writing and deleting the attachment are UPDATEs of the element, which goes on existing.
    allowed: [
      attachment("PUT", `${el(ACCESS_SM_2, "Doc")}/attachment`, 204),
      req("DELETE", `${el(ACCESS_SM_2, "Doc")}/attachment`, undefined, 200),
    ],
    refused: [
      get(`${el(ACCESS_SM_2, "Doc")}/attachment`),
      attachment("PUT", `${el(ACCESS_SM_2, "Q")}/attachment`),
      req("DELETE", el(ACCESS_SM_2, "Doc")),
    ],
  },
  {
    name: "DELETE on elements by idShortPath prefix",
    right: "DELETE",
    object: { submodels: ACCESS_SM_1, idShortPath: "C.Y" },
    allowed: [req("DELETE", el(ACCESS_SM_1, "C.Y"), undefined, 204)],
    refused: [req("DELETE", el(ACCESS_SM_1, "C.X")), req("DELETE", el(ACCESS_SM_1, "C")), get(el(ACCESS_SM_1, "C.Y"))],
  },
  {
    name: "EXECUTE on elements by idShortPath prefix",
    right: "EXECUTE",
    object: { submodels: OPS, idShortPath: "Folder" },
    allowed: [invoke(OPS, "Folder.Echo")],
    refused: [invoke(OPS, "Add"), get(el(OPS, "Folder.Echo"))],
  },
  // ---- concept descriptions
  {
    name: "READ on a concept description by id",
    right: "READ",
    object: { conceptDescriptions: ACCESS_CD_1 },
    allowed: [get(cd(ACCESS_CD_1))],
    refused: [
      get(cd(ACCESS_CD_2)),
      req("PUT", cd(ACCESS_CD_1), conceptDescription(ACCESS_CD_1)),
      req("DELETE", cd(ACCESS_CD_1)),
    ],
  },
  {
    name: "CREATE on concept descriptions by id pattern",
    right: "CREATE",
    object: { conceptDescriptions: "urn:matrix:cd:*" },
    allowed: [req("POST", "/concept-descriptions", conceptDescription("urn:matrix:cd:new"), 201)],
    refused: [
      req("POST", "/concept-descriptions", conceptDescription("urn:matrix:other-cd")),
      get(cd("urn:matrix:cd:new")),
      req("DELETE", cd("urn:matrix:cd:new")),
    ],
  },
  {
    name: "UPDATE on a concept description by id",
    right: "UPDATE",
    object: { conceptDescriptions: ACCESS_CD_2 },
    allowed: [req("PUT", cd(ACCESS_CD_2), conceptDescription(ACCESS_CD_2), 204)],
    refused: [
      req("PUT", cd(ACCESS_CD_1), conceptDescription(ACCESS_CD_1)),
      get(cd(ACCESS_CD_2)),
      req("DELETE", cd(ACCESS_CD_2)),
    ],
  },
  {
    name: "DELETE on concept descriptions by id pattern",
    right: "DELETE",
    object: { conceptDescriptions: "urn:matrix:cd:doomed*" },
    setup: [req("POST", "/concept-descriptions", conceptDescription("urn:matrix:cd:doomed1"), 201)],
    allowed: [req("DELETE", cd("urn:matrix:cd:doomed1"), undefined, 204)],
    refused: [
      req("DELETE", cd(ACCESS_CD_1)),
      get(cd("urn:matrix:cd:doomed1")),
      req("POST", "/concept-descriptions", conceptDescription("urn:matrix:cd:doomed2")),
    ],
  },
  // ---- proprietary calls
  {
    name: "CREATE on /import",
    right: "CREATE",
    object: { proprietary: "import" },
    allowed: [
      req("POST", "/import", { submodels: [submodel("urn:matrix:imported")] }, 200, (r) =>
        assert.deepEqual(r.json(), []),
      ),
    ],
    // The import right is not a submodel right, nor a right on the other proprietary calls.
    refused: [
      req("POST", "/submodels", submodel("urn:matrix:imported-2")),
      get(sm("urn:matrix:imported")),
      req("DELETE", "/reset"),
      get(pkg(0)),
    ],
  },
  {
    name: "READ on /packages",
    right: "READ",
    object: { proprietary: "packages" },
    allowed: [get(pkg(0)), get("/packages?limit=1", (r) => assert.equal(r.json().result.length, 1))],
    refused: [req("DELETE", pkg(0)), req("POST", "/import", { submodels: [] }), get(shell("urn:matrix:pkg:0"))],
  },
  {
    name: "DELETE on /packages",
    right: "DELETE",
    object: { proprietary: "packages" },
    allowed: [req("DELETE", pkg(1), undefined, 204)],
    refused: [get(pkg(0)), req("DELETE", "/reset"), req("DELETE", shell("urn:matrix:pkg:0"))],
  },
  {
    name: "CREATE on /packages",
    right: "CREATE",
    object: { proprietary: "packages" },
    allowed: [upload("POST", "/packages", 3, 201)],
    refused: [
      get(pkg(0)),
      upload("PUT", pkg(2), 2),
      req("DELETE", pkg(0)),
      req("POST", "/shells", shellBody("urn:matrix:pkg:9")),
    ],
  },
  {
    name: "UPDATE on /packages",
    right: "UPDATE",
    object: { proprietary: "packages" },
    allowed: [upload("PUT", pkg(2), 2, 204)],
    refused: [
      upload("POST", "/packages", 4),
      get(pkg(2)),
      req("DELETE", pkg(2)),
      req("PUT", `${shell("urn:matrix:pkg:2")}/asset-information`, assetInfo("urn:matrix:pkg:2")),
    ],
  },
  // DELETE on /reset empties the store: the suite's last test.
];
