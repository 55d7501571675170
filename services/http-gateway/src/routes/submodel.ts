import type { Content, Level } from "@twinport/shared";
import type { ApiOperation, ApiRoute } from "../http/api-routes.ts";
import type { SendCommand } from "../http/command-sender.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { identifierParam, idShortPathParam } from "../http/path-params.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { type QueryRules, readPagingAndModifiers } from "../http/query.ts";
import {
  createdResponse,
  noContentResponse,
  pagedResponse,
  RAW_ITEMS,
  RAW_VALUE,
  resourceResponse,
} from "../http/reply-response.ts";
import { requestBodyText } from "../http/request-body.ts";
import type { ProfileSets } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";
import { readGetQuery } from "./submodel-query.ts";

/** Where the Submodel API is mounted: /submodels/{submodelIdentifier} or below a shell. */
export interface SubmodelMount {
  /** Path template relative to /api/v3.0, with the Hono parameters of the identifiers. */
  path: string;
  profiles: ProfileSets;
  /** Profiles containing DELETE of the submodel itself (a repository operation, not Submodel API). */
  deleteProfiles: readonly string[];
  /** Below a shell, the engine checks the shell references the submodel: pass the shell's id. */
  belowShell: boolean;
}

interface SubmodelScope {
  submodelId: string;
  aasId?: string;
}

const DEEP_CORE: readonly Level[] = ["deep", "core"];
const CORE: readonly Level[] = ["core"];

/**
 * Submodel API (AAS API §a.2/§a.3): the submodel, its elements and every content form of both.
 * Query parameters follow the v3.0.1 matrix per mount (§c); suffix routes are registered before
 * `{idShortPath}` so `/submodel-elements/$metadata` is never read as an element called "$metadata".
 */
export function submodelRoutes({ send }: RouteDeps, mount: SubmodelMount): ApiRoute[] {
  const scopeOf = (c: GatewayContext): SubmodelScope => {
    const scope: SubmodelScope = { submodelId: identifierParam(c, "submodelIdentifier") };
    if (mount.belowShell) scope.aasId = identifierParam(c, "aasIdentifier");
    return scope;
  };
  const element = (c: GatewayContext) => ({ ...scopeOf(c), idShortPath: idShortPathParam(c) });
  const { read, write } = mount.profiles;
  // GET of the submodel and of its $value are also the Submodel Service's value profile (SSP-003).
  const valueRead = [...read, ...(mount.belowShell ? [] : ["SUBMODEL_VALUE"])];
  // Element PATCHes declare level core in the Submodel Repository, deep/core below a shell (§c).
  const elementPatchLevels = mount.belowShell ? DEEP_CORE : CORE;
  const route = (path: string, operations: ApiOperation[]): ApiRoute => ({ path: `${mount.path}${path}`, operations });

  /** GET of the submodel or of one element, in the form `content` (undefined: normal or ?content=path). */
  const getSubmodel = (
    profiles: readonly string[],
    rules: QueryRules,
    content?: Content,
    pathRules?: QueryRules,
  ): ApiOperation => ({
    method: "GET",
    profiles,
    handle: async (c) => {
      const { modifiers } = readGetQuery(c, rules, pathRules);
      return resourceResponse(
        c,
        await send(
          c,
          "GetSubmodelById",
          { ...scopeOf(c), modifiers: content ? { ...modifiers, content } : modifiers },
          RAW_VALUE,
        ),
      );
    },
  });
  const getElements = (rules: QueryRules, content?: Content, pathRules?: QueryRules): ApiOperation => ({
    method: "GET",
    profiles: read,
    handle: async (c) => {
      const { page, modifiers } = readGetQuery(
        c,
        { paging: true, ...rules },
        pathRules && { paging: true, ...pathRules },
      );
      return pagedResponse(
        c,
        (
          await send(
            c,
            "GetAllSubmodelElements",
            { ...scopeOf(c), page, modifiers: content ? { ...modifiers, content } : modifiers },
            RAW_ITEMS,
          )
        ).value,
      );
    },
  });
  const getElement = (rules: QueryRules, content?: Content, pathRules?: QueryRules): ApiOperation => ({
    method: "GET",
    profiles: read,
    handle: async (c) => {
      const { modifiers } = readGetQuery(c, rules, pathRules);
      return resourceResponse(
        c,
        await send(
          c,
          "GetSubmodelElementByPath",
          { ...element(c), modifiers: content ? { ...modifiers, content } : modifiers },
          RAW_VALUE,
        ),
      );
    },
  });
  const patchSubmodel = (content: "normal" | "metadata" | "value"): ApiOperation => ({
    method: "PATCH",
    profiles: write,
    handle: async (c) => {
      // Every PATCH declares `level` (core); it means nothing for a patch (AAS API §c).
      readPagingAndModifiers(c, { level: CORE });
      await send(c, "PatchSubmodelById", {
        ...scopeOf(c),
        content,
        body: await requestBodyText(c),
        preconditions: readPreconditions(c),
      });
      return noContentResponse(c);
    },
  });
  const patchElement = (content: "normal" | "metadata" | "value"): ApiOperation => ({
    method: "PATCH",
    profiles: write,
    handle: async (c) => {
      readPagingAndModifiers(c, { level: elementPatchLevels });
      const params = { ...element(c), body: await requestBodyText(c), preconditions: readPreconditions(c) };
      if (content === "value") await send(c, "PatchSubmodelElementValueByPath", params);
      else await send(c, "PatchSubmodelElementByPath", { ...params, content });
      return noContentResponse(c);
    },
  });

  return [
    route("", [
      getSubmodel(valueRead, { level: DEEP_CORE, extent: true }, undefined, { level: DEEP_CORE }),
      {
        method: "PUT",
        profiles: write,
        handle: async (c) => {
          // v3.0.1 declares level(deep) on some PUTs and 3.1 allows extent: accepted, meaningless.
          readPagingAndModifiers(c, { level: ["deep"], extent: true });
          await send(c, "PutSubmodelById", {
            ...scopeOf(c),
            body: await requestBodyText(c),
            preconditions: readPreconditions(c),
          });
          return noContentResponse(c);
        },
      },
      patchSubmodel("normal"),
      {
        method: "DELETE",
        profiles: mount.deleteProfiles,
        handle: async (c) => {
          readPagingAndModifiers(c, {});
          await send(c, "DeleteSubmodelById", { ...scopeOf(c), preconditions: readPreconditions(c) });
          return noContentResponse(c);
        },
      },
    ]),
    // v3.0.1 still declares level on $metadata (3.0.2 removed it): tolerated, it changes nothing.
    route("/$metadata", [getSubmodel(read, { level: DEEP_CORE }, "metadata"), patchSubmodel("metadata")]),
    route("/$value", [getSubmodel(valueRead, { level: DEEP_CORE, extent: true }, "value"), patchSubmodel("value")]),
    // Spec §4.1.8: level is accepted on a submodel's $reference and has no effect.
    route("/$reference", [getSubmodel(read, { level: DEEP_CORE }, "reference")]),
    route("/$path", [getSubmodel(read, { level: DEEP_CORE }, "path")]),
    route("/submodel-elements", [
      getElements({ level: DEEP_CORE, extent: true }, undefined, { level: DEEP_CORE }),
      { method: "POST", profiles: write, handle: (c) => postElement(send, c, scopeOf(c), undefined) },
    ]),
    route("/submodel-elements/$metadata", [getElements({ level: DEEP_CORE }, "metadata")]),
    route("/submodel-elements/$value", [getElements({ level: DEEP_CORE, extent: true }, "value")]),
    route("/submodel-elements/$reference", [getElements({ level: CORE }, "reference")]),
    // Below a shell v3.0.1 declares extent on this one (AAS API §a quirk 6): accepted there, unused.
    route("/submodel-elements/$path", [getElements({ level: DEEP_CORE, extent: mount.belowShell }, "path")]),
    route("/submodel-elements/:idShortPath", [
      getElement({ level: DEEP_CORE, extent: true }, undefined, { level: DEEP_CORE }),
      { method: "POST", profiles: write, handle: (c) => postElement(send, c, scopeOf(c), idShortPathParam(c)) },
      {
        method: "PUT",
        profiles: write,
        handle: async (c) => {
          readPagingAndModifiers(c, { level: ["deep"], extent: true });
          await send(c, "PutSubmodelElementByPath", {
            ...element(c),
            body: await requestBodyText(c),
            preconditions: readPreconditions(c),
          });
          return noContentResponse(c);
        },
      },
      patchElement("normal"),
      {
        method: "DELETE",
        profiles: write,
        handle: async (c) => {
          readPagingAndModifiers(c, {});
          await send(c, "DeleteSubmodelElementByPath", { ...element(c), preconditions: readPreconditions(c) });
          return noContentResponse(c);
        },
      },
    ]),
    route("/submodel-elements/:idShortPath/$metadata", [
      getElement({ level: DEEP_CORE }, "metadata"),
      patchElement("metadata"),
    ]),
    route("/submodel-elements/:idShortPath/$value", [
      getElement({ level: DEEP_CORE, extent: true }, "value"),
      patchElement("value"),
    ]),
    route("/submodel-elements/:idShortPath/$reference", [getElement({ level: CORE }, "reference")]),
    route("/submodel-elements/:idShortPath/$path", [getElement({ level: DEEP_CORE }, "path")]),
  ];
}

/** POST at the root (parentPath undefined) or into a container; answers where the new element lives. */
async function postElement(
  send: SendCommand,
  c: GatewayContext,
  scope: SubmodelScope,
  parentPath: string | undefined,
): Promise<Response> {
  readPagingAndModifiers(c, {});
  const reply = await send(c, "PostSubmodelElement", {
    ...scope,
    idShortPath: parentPath,
    body: await requestBodyText(c),
    preconditions: readPreconditions(c),
  });
  // The engine names the new element's path: only it knows the index a list item got.
  return createdResponse(c, reply, reply.idShortPath === undefined ? undefined : locationAtMount(c, reply.idShortPath));
}

/** The new element's URL at the mount the client used (there are three below a shell and one above). */
function locationAtMount(c: GatewayContext, idShortPath: string): string {
  const mount = c.req.path.slice(0, c.req.path.indexOf("/submodel-elements"));
  // encodeURIComponent keeps "." and escapes "[" "]" as %5B %5D, as the API examples write them.
  return `${mount}/submodel-elements/${encodeURIComponent(idShortPath)}`;
}
