import type { ApiRoute } from "../http/api-routes.ts";
import { base64UrlQuery } from "../http/encoded-query.ts";
import { conceptDescriptionLocation } from "../http/locations.ts";
import { identifierParam } from "../http/path-params.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { readPagingAndModifiers, singleQuery } from "../http/query.ts";
import {
  createdResponse,
  jsonValue,
  noContentResponse,
  pagedResponse,
  RAW_ITEMS,
  RAW_VALUE,
  resourceResponse,
} from "../http/reply-response.ts";
import { requestBodyText } from "../http/request-body.ts";
import { CONCEPT_DESCRIPTION_REPOSITORY } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/** Concept Description Repository API (AAS API §a.4). No output modifiers apply here (§c). */
export function conceptDescriptionRepositoryRoutes({ send }: RouteDeps): ApiRoute[] {
  const { read, write } = CONCEPT_DESCRIPTION_REPOSITORY;
  return [
    {
      path: "/concept-descriptions",
      operations: [
        {
          method: "GET",
          profiles: read,
          handle: async (c) => {
            const { page } = readPagingAndModifiers(c, { paging: true });
            const reply = await send(
              c,
              "GetAllConceptDescriptions",
              {
                page,
                idShort: singleQuery(c, "idShort"),
                isCaseOf: base64UrlQuery(c, "isCaseOf"),
                dataSpecificationRef: base64UrlQuery(c, "dataSpecificationRef"),
              },
              RAW_ITEMS,
            );
            return pagedResponse(c, reply.value);
          },
        },
        {
          method: "POST",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const reply = await send(c, "PostConceptDescription", {
              body: await requestBodyText(c),
              preconditions: readPreconditions(c),
            });
            const id = (jsonValue(reply.value) as { id?: unknown } | null)?.id;
            return createdResponse(c, reply, typeof id === "string" ? conceptDescriptionLocation(id) : undefined);
          },
        },
      ],
    },
    {
      path: "/concept-descriptions/:cdIdentifier",
      operations: [
        {
          method: "GET",
          profiles: read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            return resourceResponse(
              c,
              await send(c, "GetConceptDescriptionById", { cdId: identifierParam(c, "cdIdentifier") }, RAW_VALUE),
            );
          },
        },
        {
          method: "PUT",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const cdId = identifierParam(c, "cdIdentifier");
            await send(c, "PutConceptDescriptionById", {
              cdId,
              body: await requestBodyText(c),
              preconditions: readPreconditions(c),
            });
            return noContentResponse(c);
          },
        },
        {
          method: "DELETE",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            await send(c, "DeleteConceptDescriptionById", {
              cdId: identifierParam(c, "cdIdentifier"),
              preconditions: readPreconditions(c),
            });
            return noContentResponse(c);
          },
        },
      ],
    },
  ];
}
