/**
 * Black-box suite of the HTTP rights matrix (issue 13), embedded and distributed, with real bearer
 * tokens: an oidc-provider on loopback issues each row's client a token (client-credentials grant)
 * whose role the rules grant exactly one right on exactly one object (rights-matrix-rows.ts). Every
 * allowed request must answer its status, every neighbouring one 403. Lists hold only what the
 * caller may read, with full pages and cursors that continue on any gateway. The engine runs the
 * test operation providers (operations-launcher.ts) so that EXECUTE really invokes.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DEFAULT_AASX_LIMITS, readAasx } from "@twinport/shared";
import {
  ACCESS_CD_1,
  ACCESS_MANY,
  ACCESS_SHELL_A,
  ACCESS_SHELL_B,
  ACCESS_SM_1,
  accessModel,
  OPERATIONS_SUBMODEL_ID as OPS,
  operationsSubmodel,
} from "@twinport/shared/test-support";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import {
  type OpenIdProvider,
  signingKeys,
  startOpenIdProvider,
  TWINPORT_AUDIENCE,
} from "../test-support/openid-provider.ts";
import { type Mode, REPO_ROOT, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import {
  el,
  type MatrixRequest,
  OPS_SEMANTIC_ID,
  packageUpload,
  ROWS,
  type SetupIds,
  sm,
} from "./rights-matrix-rows.ts";
import { assertResult, paged } from "./shell-suite-support.ts";

const LAUNCHER = join(REPO_ROOT, "tests/test-support/operations-launcher.ts");
const ALL_RIGHTS = ["READ", "CREATE", "UPDATE", "DELETE", "EXECUTE"];
const LISTED_SUBMODELS = ACCESS_MANY.filter((id) => id.startsWith("urn:access:many:04"));

/** Roles besides the rows': `row-<n>` is row n's role. */
const EXTRA_RULES = [
  { subjects: [{ role: "admin" }], rights: ALL_RIGHTS, objects: [{ all: true }] },
  {
    subjects: [{ role: "lister" }],
    rights: ["READ"],
    objects: [
      { shells: "urn:access:shell:*" },
      { submodels: "urn:access:many:04*" },
      { conceptDescriptions: ACCESS_CD_1 },
      { proprietary: "packages" },
    ],
  },
  // Reading /reset is not resetting: GET /reset (which resets, as FA³ST's) needs DELETE like DELETE /reset.
  // (A rule naming `proprietary: reset` without DELETE is refused at load; `all` reaches /reset.)
  {
    subjects: [{ role: "reset-reader" }],
    rights: ["READ", "CREATE", "UPDATE", "EXECUTE"],
    objects: [{ all: true }],
  },
  { subjects: [{ role: "resetter" }], rights: ["DELETE"], objects: [{ proprietary: "reset" }] },
];
const EXTRA_CLIENTS = ["admin", "lister", "reset-reader", "resetter", "stranger"];

export function rightsMatrixSuite(mode: Mode): void {
  describe(`HTTP rights matrix with bearer tokens, ${mode} mode`, { timeout: 180_000 }, () => {
    let provider: OpenIdProvider;
    let sut: SystemUnderTest;
    let dir: string;
    const tokens = new Map<string, string>();
    const ids: SetupIds = { packages: [] };
    let sent = 0;

    /** Requests alternate between the gateways (embedded: the one endpoint). */
    const nextClient = (): HttpClient => sut.clients[sent++ % sut.clients.length]!;
    const send = (as: string, request: MatrixRequest) => {
      const path = typeof request.path === "function" ? request.path(ids) : request.path;
      const raw = request.contentType !== undefined;
      const body =
        request.body === undefined ? undefined : raw ? (request.body as Buffer) : JSON.stringify(request.body);
      const headers: Record<string, string> = {
        authorization: `Bearer ${tokens.get(as)!}`,
        ...(raw ? { "content-type": request.contentType! } : {}),
      };
      return { path, response: nextClient().request(request.method, path, { body, headers }) };
    };
    const asAdmin = async (request: MatrixRequest) => {
      const { path, response } = send("admin", request);
      const answer = await response;
      assert.equal(answer.status, request.status ?? 200, `admin ${request.method} ${path}: ${answer.text}`);
      return answer;
    };
    /** Every page of a list as `as` sees it, `limit` at a time, alternating gateways. */
    const walk = async (as: string, path: string, limit: number) => {
      const items: any[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const separator = path.includes("?") ? "&" : "?";
        const { response } = send(as, {
          method: "GET",
          path: `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        });
        const page = paged(await response);
        items.push(...page.result);
        sizes.push(page.result.length);
        cursor = page.cursor;
      } while (cursor !== undefined);
      return { items, sizes };
    };

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "twinport-rights-matrix-"));
      const model = accessModel() as { submodels: Record<string, unknown>[] };
      model.submodels.push({
        ...operationsSubmodel(),
        semanticId: { type: "ExternalReference", keys: [{ type: "GlobalReference", value: OPS_SEMANTIC_ID }] },
      });
      writeFileSync(join(dir, "model.json"), JSON.stringify(model));
      const clientIds = [...EXTRA_CLIENTS, ...ROWS.map((_, n) => `row-${n}`)];
      provider = await startOpenIdProvider({
        clients: clientIds.map((id) => ({ id, alg: "ES256" as const, claims: { roles: [id] } })),
        keys: await signingKeys("matrix"),
      });
      const rules = [
        ...EXTRA_RULES,
        ...ROWS.map((row, n) => ({ subjects: [{ role: `row-${n}` }], rights: [row.right], objects: [row.object] })),
      ];
      sut = await startSystem(mode, {
        models: [join(dir, "model.json")],
        engineLauncher: LAUNCHER,
        config: {
          security: { authentication: { bearer: { issuer: provider.issuer, audience: TWINPORT_AUDIENCE } }, rules },
        },
      });
      for (const id of clientIds) tokens.set(id, await provider.token(id));
      for (const n of [0, 1, 2]) {
        const { body, contentType } = packageUpload(n);
        ids.packages.push(
          (await asAdmin({ method: "POST", path: "/packages", body, contentType, status: 201 })).json().packageId,
        );
      }
    });

    after(async () => {
      await sut?.stop();
      await provider?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test("an upload is served through another File only to a caller who may read the element it was uploaded for", async () => {
      // Admin uploads to Secret (in a submodel the lister cannot read), then points a File the lister
      // can read at the same stored path: what anyone who may write a File value could do.
      const owner = ACCESS_MANY[39]!;
      const readable = LISTED_SUBMODELS[0]!;
      const secret = { modelType: "File", idShort: "Secret", contentType: "text/plain" };
      await asAdmin({ method: "POST", path: `${sm(owner)}/submodel-elements`, body: secret, status: 201 });
      const boundary = "----twinport-upload-owner";
      const upload = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="fileName"\r\n\r\nsecret.txt\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="secret.txt"\r\nContent-Type: text/plain\r\n\r\nthe secret\r\n` +
          `--${boundary}--\r\n`,
      );
      await asAdmin({
        method: "PUT",
        path: `${el(owner, "Secret")}/attachment`,
        body: upload,
        contentType: `multipart/form-data; boundary=${boundary}`,
        status: 204,
      });
      const storedPath = (await asAdmin({ method: "GET", path: el(owner, "Secret") })).json().value as string;
      const pointer = { modelType: "File", idShort: "Pointer", contentType: "text/plain", value: storedPath };
      await asAdmin({ method: "POST", path: `${sm(readable)}/submodel-elements`, body: pointer, status: 201 });
      try {
        const { response } = send("lister", { method: "GET", path: `${el(readable, "Pointer")}/attachment` });
        const refused = await response;
        assertResult(refused, 404);
        assert.doesNotMatch(refused.text, /the secret/);
        // Nor does an AASX serialization of the Pointer's submodel carry it: it says it left it out.
        const serialization = `/serialization?submodelIds=${b64(readable)}`;
        const accept = { accept: "application/asset-administration-shell-package+xml" };
        const pkg = await nextClient().get(serialization, {
          ...accept,
          authorization: `Bearer ${tokens.get("lister")}`,
        });
        assert.equal(pkg.status, 200, pkg.text);
        assert.deepEqual(readAasx(pkg.bytes!, DEFAULT_AASX_LIMITS).files, [], "the package holds no secret");
        assert.ok(String(pkg.headers["twinport-warning"]).includes(storedPath), "the left-out path is named");
        // Whoever may read the owner gets the bytes through either element, and in the package.
        const served = await asAdmin({ method: "GET", path: `${el(readable, "Pointer")}/attachment` });
        assert.equal(served.text, "the secret");
        const full = await nextClient().get(serialization, {
          ...accept,
          authorization: `Bearer ${tokens.get("admin")}`,
        });
        const carried = readAasx(full.bytes!, DEFAULT_AASX_LIMITS).files.map((part) =>
          Buffer.from(part.bytes).toString(),
        );
        assert.deepEqual(carried, ["the secret"]);
      } finally {
        await asAdmin({ method: "DELETE", path: el(readable, "Pointer"), status: 204 });
        await asAdmin({ method: "DELETE", path: el(owner, "Secret"), status: 204 });
      }
    });

    test("lists hold only what the caller may read; pages are full and cursors continue on any gateway", async () => {
      const shells = await walk("lister", "/shells", 1);
      assert.deepEqual(
        [shells.items.map((s) => s.id), shells.sizes],
        [
          [ACCESS_SHELL_A, ACCESS_SHELL_B],
          [1, 1],
        ],
      );
      const lookup = await walk("lister", "/lookup/shells", 1);
      assert.deepEqual(
        [lookup.items, lookup.sizes],
        [
          [ACCESS_SHELL_A, ACCESS_SHELL_B],
          [1, 1],
        ],
      );
      const submodels = await walk("lister", "/submodels", 3);
      assert.deepEqual([submodels.items.map((s) => s.id), submodels.sizes], [LISTED_SUBMODELS, [3, 3, 3, 1]]);
      const paths = await walk("lister", "/submodels/$path", 4);
      assert.deepEqual([paths.items, paths.sizes], [LISTED_SUBMODELS.map(() => "V"), [4, 4, 2]]);
      const cds = await walk("lister", "/concept-descriptions", 1);
      assert.deepEqual([cds.items.map((c) => c.id), cds.sizes], [[ACCESS_CD_1], [1]]);
      const packages = await walk("lister", "/packages", 2);
      assert.deepEqual(
        [packages.items.map((p) => p.packageId).sort(), packages.sizes],
        [[...ids.packages].sort(), [2, 1]],
      );
      const { response } = send("lister", { method: "GET", path: "/serialization?includeConceptDescriptions=true" });
      const environment = (await response).json();
      assert.deepEqual((environment.assetAdministrationShells ?? []).map((s: { id: string }) => s.id).sort(), [
        ACCESS_SHELL_A,
        ACCESS_SHELL_B,
      ]);
      assert.deepEqual((environment.submodels ?? []).map((s: { id: string }) => s.id).sort(), LISTED_SUBMODELS);
      assert.deepEqual(
        (environment.conceptDescriptions ?? []).map((c: { id: string }) => c.id),
        [ACCESS_CD_1],
      );
      // A reader of one element (C.X of ACCESS_SM_1) pages through that submodel's paths and elements
      // seeing only the way to it, in full pages and without a cursor to an empty page.
      const partial = `row-${ROWS.findIndex((row) => row.name === "READ on elements by idShortPath prefix")}`;
      const partialPaths = await walk(partial, `${sm(ACCESS_SM_1)}/submodel-elements/$path`, 1);
      assert.deepEqual(
        [partialPaths.items, partialPaths.sizes],
        [
          ["C", "C.X"],
          [1, 1],
        ],
      );
      const partialElements = await walk(partial, `${sm(ACCESS_SM_1)}/submodel-elements`, 1);
      assert.deepEqual([partialElements.items.map((e) => e.idShort), partialElements.sizes], [["C"], [1]]);
      const partialList = await walk(partial, "/submodels", 1);
      // The submodel list shows that submodel as GET of it does: C, holding X alone.
      const shown = partialList.items.map((x) => [
        x.id,
        x.submodelElements.map((e: { idShort: string; value: { idShort: string }[] }) => [
          e.idShort,
          e.value.map((v) => v.idShort),
        ]),
      ]);
      assert.deepEqual([shown, partialList.sizes], [[[ACCESS_SM_1, [["C", ["X"]]]]], [1]]);
      // A semanticId rule needs the store to decide: the one readable submodel comes in one page,
      // without a cursor, however many hidden ones follow it.
      const semanticReader = `row-${ROWS.findIndex((row) => row.name === "READ on submodels by semanticId")}`;
      const bySemanticId = await walk(semanticReader, "/submodels", 1);
      assert.deepEqual([bySemanticId.items.map((s) => s.id), bySemanticId.sizes], [[ACCESS_SM_1], [1]]);
      // Asking for one it may not read is refused, not silently dropped.
      assertResult(
        await send("lister", { method: "GET", path: `/serialization?submodelIds=${b64(ACCESS_MANY[0]!)}` }).response,
        403,
      );
      assertResult(
        await send("lister", { method: "GET", path: `/serialization?aasIds=${b64("urn:matrix:pkg:0")}` }).response,
        403,
      );
      // Part of a submodel is not the submodel: an environment file would pass it off as whole.
      assertResult(
        await send(partial, { method: "GET", path: `/serialization?submodelIds=${b64(ACCESS_SM_1)}` }).response,
        403,
      );
      // An id that names nothing is refused the same way, or the answer would tell which ids exist.
      for (const query of [
        `submodelIds=${b64("urn:matrix:no-such-submodel")}`,
        `aasIds=${b64("urn:matrix:no-such-shell")}`,
        `submodelIds=${b64(`${ACCESS_MANY[0]!},urn:matrix:no-such-submodel`)}`,
      ])
        assertResult(await send("lister", { method: "GET", path: `/serialization?${query}` }).response, 403);
    });

    test("an authenticated caller no rule names gets empty lists (200), not a refusal, and 403 for everything else", async () => {
      // What the server offers is no secret: /description answers anyone, anonymous included.
      assert.equal((await sut.clients[0]!.get("/description")).status, 200);
      for (const path of [
        "/shells",
        "/lookup/shells",
        "/submodels",
        "/submodels/$path",
        "/concept-descriptions",
        "/packages",
      ]) {
        assert.deepEqual(paged(await send("stranger", { method: "GET", path }).response).result, [], path);
      }
      assertResult(await send("stranger", { method: "GET", path: sm(LISTED_SUBMODELS[0]!) }).response, 403);
    });

    ROWS.forEach((row, n) => {
      test(`${row.right} on ${JSON.stringify(row.object)}: ${row.name}`, async () => {
        const role = `row-${n}`;
        for (const request of row.setup ?? []) await asAdmin(request);
        for (const request of row.allowed) {
          const { path, response } = send(role, request);
          const answer = await response;
          assert.equal(answer.status, request.status ?? 200, `allowed ${request.method} ${path}: ${answer.text}`);
          request.check?.(answer);
        }
        for (const request of row.refused) {
          const { path, response } = send(role, request);
          const answer = await response;
          assert.equal(answer.status, 403, `refused ${request.method} ${path}: ${answer.status} ${answer.text}`);
          assertResult(answer, 403);
          assert.equal(answer.headers["www-authenticate"], undefined, "an authenticated refusal carries no challenge");
        }
      });
    });

    test("EXECUTE alone: an async invocation, its status and its result through any gateway; READ on everything does not reach them", async () => {
      const executor = `row-${ROWS.findIndex((row) => row.name === "EXECUTE on elements by idShortPath prefix")}`;
      const reader = `row-${ROWS.findIndex((row) => row.name === "READ on everything")}`;
      const invoked = await send(executor, {
        method: "POST",
        path: `${el(OPS, "Folder.Echo")}/invoke-async`,
        body: {
          inputArguments: [
            { value: { modelType: "Property", idShort: "text", valueType: "xs:string", value: "async" } },
          ],
        },
      }).response;
      assert.equal(invoked.status, 202, invoked.text);
      const location = String(invoked.headers.location);
      const statusPath = location.slice(location.indexOf("/submodels/"));
      let status = 0;
      for (let tries = 0; tries < 100 && status !== 302; tries++) {
        status = (await send(executor, { method: "GET", path: statusPath }).response).status;
        assert.ok(status === 200 || status === 302, `status of the invocation: ${status}`);
      }
      assert.equal(status, 302);
      const resultsPath = statusPath.replace("/operation-status/", "/operation-results/");
      const results = await send(executor, { method: "GET", path: `${resultsPath}/$value` }).response;
      assert.equal(results.status, 200, results.text);
      assert.deepEqual(results.json().outputArguments, { echo: "async" });
      for (const path of [statusPath, resultsPath])
        assertResult(await send(reader, { method: "GET", path }).response, 403);
      assertResult(
        await send(reader, {
          method: "POST",
          path: `${el(OPS, "Folder.Echo")}/invoke-async`,
          body: { inputArguments: [] },
        }).response,
        403,
      );
    });

    test("/reset: every right but DELETE is refused (GET /reset resets too); DELETE empties the store", async () => {
      for (const method of ["GET", "DELETE"])
        assertResult(await send("reset-reader", { method, path: "/reset" }).response, 403);
      assertResult(await send("resetter", { method: "GET", path: sm(LISTED_SUBMODELS[0]!) }).response, 403);
      assertResult(await send("resetter", { method: "POST", path: "/import", body: { submodels: [] } }).response, 403);
      assert.equal(paged(await send("admin", { method: "GET", path: "/submodels?limit=1" }).response).result.length, 1);
      const reset = await send("resetter", { method: "DELETE", path: "/reset" }).response;
      assert.equal(reset.status, 204, reset.text);
      for (const path of ["/shells", "/submodels", "/concept-descriptions"])
        assert.deepEqual(paged(await send("admin", { method: "GET", path }).response).result, [], path);
    });
  });
}
