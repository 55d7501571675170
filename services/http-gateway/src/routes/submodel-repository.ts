import { decodeBase64Url, isAasError } from "@twinport/shared";
import { badRequest } from "../http/api-error.ts";
import type { ApiRoute } from "../http/api-routes.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { submodelLocation } from "../http/locations.ts";
import { readPagingAndModifiers, singleQuery } from "../http/query.ts";
import { createdResponse, jsonValue, pagedResponse } from "../http/reply-response.ts";
import { requestBodyText } from "../http/request-body.ts";
import { SUBMODEL_REPOSITORY } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * Submodel Repository API: /submodels (AAS API §a.3, rows 1–2). The Submodel API below
 * /submodels/{submodelIdentifier} is in submodel.ts.
 */
export function submodelRepositoryRoutes({ send }: RouteDeps): ApiRoute[] {
  return [
    {
      path: "/submodels",
      operations: [
        {
          method: "GET",
          profiles: SUBMODEL_REPOSITORY.read,
          handle: async (c) => {
            const { page, modifiers } = readPagingAndModifiers(c, { paging: true, level: ["deep", "core"], extent: true, content: ["path"] });
            const reply = await send(c, "GetAllSubmodels", { page, modifiers, idShort: singleQuery(c, "idShort"), semanticId: semanticIdQuery(c) });
            return pagedResponse(c, reply.value);
          },
        },
        {
          method: "POST",
          profiles: SUBMODEL_REPOSITORY.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const reply = await send(c, "PostSubmodel", { body: await requestBodyText(c) });
            const id = (jsonValue(reply.value) as { id?: unknown } | null)?.id;
            return createdResponse(c, reply, typeof id === "string" ? submodelLocation({ submodelId: id }) : undefined);
          },
        },
      ],
    },
  ];
}

/** `semanticId`: base64url; whether it holds a Reference as JSON or a key value, the engine decides (§l). */
function semanticIdQuery(c: GatewayContext): string | undefined {
  const encoded = singleQuery(c, "semanticId");
  if (encoded === undefined) return undefined;
  try {
    return decodeBase64Url(encoded);
  } catch (error) {
    if (isAasError(error)) throw badRequest(`Query parameter "semanticId": ${error.message}`);
    throw error;
  }
}
