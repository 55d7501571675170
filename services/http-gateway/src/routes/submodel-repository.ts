import type { Content, Level } from "@twinport/shared";
import type { ApiOperation, ApiRoute } from "../http/api-routes.ts";
import { base64UrlQuery } from "../http/encoded-query.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { submodelLocation } from "../http/locations.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { type QueryRules, readPagingAndModifiers, singleQuery } from "../http/query.ts";
import { createdResponse, jsonValue, pagedResponse, RAW_ITEMS } from "../http/reply-response.ts";
import { requestBodyText } from "../http/request-body.ts";
import { SUBMODEL_REPOSITORY } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";
import { readGetQuery } from "./submodel-query.ts";

const DEEP_CORE: readonly Level[] = ["deep", "core"];

/**
 * Submodel Repository API: /submodels and its content forms (AAS API §a.3, rows 1–6). The Submodel
 * API below /submodels/{submodelIdentifier} is in submodel.ts. Every list takes the filters
 * `idShort` (plain) and `semanticId` (base64url of a Reference as JSON or of one key value: the
 * engine tells them apart, §l).
 */
export function submodelRepositoryRoutes({ send }: RouteDeps): ApiRoute[] {
  const list = (rules: QueryRules, content?: Content, pathRules?: QueryRules): ApiOperation => ({
    method: "GET",
    profiles: SUBMODEL_REPOSITORY.read,
    handle: async (c) => {
      const { page, modifiers } = readGetQuery(
        c,
        { paging: true, ...rules },
        pathRules && { paging: true, ...pathRules },
      );
      const filters = { idShort: singleQuery(c, "idShort"), semanticId: base64UrlQuery(c, "semanticId") };
      const reply = await send(
        c,
        "GetAllSubmodels",
        { page, ...filters, modifiers: content ? { ...modifiers, content } : modifiers },
        RAW_ITEMS,
      );
      return pagedResponse(c, reply.value);
    },
  });
  const route = (path: string, operations: ApiOperation[]): ApiRoute => ({ path, operations });
  return [
    route("/submodels", [
      list({ level: DEEP_CORE, extent: true }, undefined, { level: DEEP_CORE }),
      {
        method: "POST",
        profiles: SUBMODEL_REPOSITORY.write,
        handle: async (c: GatewayContext) => {
          readPagingAndModifiers(c, {});
          const reply = await send(c, "PostSubmodel", {
            body: await requestBodyText(c),
            preconditions: readPreconditions(c),
          });
          const id = (jsonValue(reply.value) as { id?: unknown } | null)?.id;
          return createdResponse(c, reply, typeof id === "string" ? submodelLocation({ submodelId: id }) : undefined);
        },
      },
    ]),
    // v3.0.1 declares level on $metadata (3.0.2 removed it): tolerated, it changes nothing.
    route("/submodels/$metadata", [list({ level: DEEP_CORE }, "metadata")]),
    route("/submodels/$value", [list({ level: DEEP_CORE, extent: true }, "value")]),
    route("/submodels/$reference", [list({ level: ["core"] }, "reference")]),
    route("/submodels/$path", [list({ level: DEEP_CORE }, "path")]),
  ];
}
