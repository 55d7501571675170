import type { ApiOperation, ApiRoute } from "../http/api-routes.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { elementLocation } from "../http/locations.ts";
import { idShortPathParam, identifierParam } from "../http/path-params.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { createdResponse, noContentResponse, pagedResponse, resourceResponse } from "../http/reply-response.ts";
import { requestBodyText } from "../http/request-body.ts";
import type { ProfileSets } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";
import type { SendCommand } from "../http/command-sender.ts";

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

/** Submodel API (AAS API §a.2/§a.3): the submodel, its elements, and element values. */
export function submodelRoutes({ send }: RouteDeps, mount: SubmodelMount): ApiRoute[] {
  const scopeOf = (c: GatewayContext): SubmodelScope => {
    const scope: SubmodelScope = { submodelId: identifierParam(c, "submodelIdentifier") };
    if (mount.belowShell) scope.aasId = identifierParam(c, "aasIdentifier");
    return scope;
  };
  const { read, write } = mount.profiles;
  const route = (path: string, operations: ApiOperation[]): ApiRoute => ({ path: `${mount.path}${path}`, operations });

  return [
    route("", [
      {
        method: "GET",
        profiles: [...read, ...(mount.belowShell ? [] : ["SUBMODEL_VALUE"])],
        handle: async (c) => {
          const { modifiers } = readPagingAndModifiers(c, { level: ["deep", "core"], extent: true, content: ["path"] });
          return resourceResponse(c, await send(c, "GetSubmodelById", { ...scopeOf(c), modifiers }));
        },
      },
      {
        method: "PUT",
        profiles: write,
        handle: async (c) => {
          // v3.0.1 declares level(deep) on some PUTs and 3.1 allows extent: accepted, meaningless.
          readPagingAndModifiers(c, { level: ["deep"], extent: true });
          await send(c, "PutSubmodelById", { ...scopeOf(c), body: await requestBodyText(c), preconditions: readPreconditions(c) });
          return noContentResponse(c);
        },
      },
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
    route("/submodel-elements", [
      {
        method: "GET",
        profiles: read,
        handle: async (c) => {
          const { page, modifiers } = readPagingAndModifiers(c, { paging: true, level: ["deep", "core"], extent: true, content: ["path"] });
          return pagedResponse(c, (await send(c, "GetAllSubmodelElements", { ...scopeOf(c), page, modifiers })).value);
        },
      },
      {
        method: "POST",
        profiles: write,
        handle: (c) => postElement(send, c, scopeOf(c), undefined),
      },
    ]),
    route("/submodel-elements/:idShortPath", [
      {
        method: "GET",
        profiles: read,
        handle: async (c) => {
          const { modifiers } = readPagingAndModifiers(c, { level: ["deep", "core"], extent: true, content: ["path"] });
          return resourceResponse(c, await send(c, "GetSubmodelElementByPath", { ...scopeOf(c), idShortPath: idShortPathParam(c), modifiers }));
        },
      },
      {
        method: "POST",
        profiles: write,
        handle: (c) => postElement(send, c, scopeOf(c), idShortPathParam(c)),
      },
      {
        method: "PUT",
        profiles: write,
        handle: async (c) => {
          readPagingAndModifiers(c, { level: ["deep"], extent: true });
          const params = { ...scopeOf(c), idShortPath: idShortPathParam(c), body: await requestBodyText(c), preconditions: readPreconditions(c) };
          await send(c, "PutSubmodelElementByPath", params);
          return noContentResponse(c);
        },
      },
      {
        method: "DELETE",
        profiles: write,
        handle: async (c) => {
          readPagingAndModifiers(c, {});
          await send(c, "DeleteSubmodelElementByPath", { ...scopeOf(c), idShortPath: idShortPathParam(c), preconditions: readPreconditions(c) });
          return noContentResponse(c);
        },
      },
    ]),
    route("/submodel-elements/:idShortPath/$value", [
      {
        method: "GET",
        profiles: read,
        handle: async (c) => {
          const { modifiers } = readPagingAndModifiers(c, { level: ["deep", "core"], extent: true });
          const params = { ...scopeOf(c), idShortPath: idShortPathParam(c), modifiers: { ...modifiers, content: "value" as const } };
          return resourceResponse(c, await send(c, "GetSubmodelElementByPath", params));
        },
      },
      {
        method: "PATCH",
        profiles: write,
        handle: async (c) => {
          // Every PATCH declares some `level`; it has no meaning for a value patch (AAS API §c).
          readPagingAndModifiers(c, { level: ["deep", "core"] });
          const params = { ...scopeOf(c), idShortPath: idShortPathParam(c), body: await requestBodyText(c), preconditions: readPreconditions(c) };
          await send(c, "PatchSubmodelElementValueByPath", params);
          return noContentResponse(c);
        },
      },
    ]),
  ];
}

/** POST at the root (parentPath undefined) or into a container; answers where the new element lives. */
async function postElement(send: SendCommand, c: GatewayContext, scope: SubmodelScope, parentPath: string | undefined): Promise<Response> {
  readPagingAndModifiers(c, {});
  const reply = await send(c, "PostSubmodelElement", { ...scope, idShortPath: parentPath, body: await requestBodyText(c) });
  // The engine names the new element's path: only it knows the index a list item got.
  return createdResponse(c, reply, reply.idShortPath === undefined ? undefined : elementLocation(scope, reply.idShortPath));
}
