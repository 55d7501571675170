import type { ApiRoute } from "../http/api-routes.ts";
import { assetIdsQuery } from "../http/encoded-query.ts";
import { identifierParam } from "../http/path-params.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import {
  createdResponse,
  noContentResponse,
  pagedResponse,
  RAW_ITEMS,
  RAW_VALUE,
  resourceResponse,
} from "../http/reply-response.ts";
import { requestBodyText } from "../http/request-body.ts";
import { DISCOVERY } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * Basic Discovery API (AAS API §a.5). The asset links are the shells' asset ids (docs/adr/0005),
 * so this endpoint discovers the shells of this repository.
 */
export function discoveryRoutes({ send }: RouteDeps): ApiRoute[] {
  const { read, write } = DISCOVERY;
  return [
    {
      path: "/lookup/shells",
      operations: [
        {
          method: "GET",
          profiles: read,
          handle: async (c) => {
            const { page } = readPagingAndModifiers(c, { paging: true });
            return pagedResponse(
              c,
              (
                await send(
                  c,
                  "GetAllAssetAdministrationShellIdsByAssetLink",
                  { page, assetIds: assetIdsQuery(c) },
                  RAW_ITEMS,
                )
              ).value,
            );
          },
        },
      ],
    },
    {
      path: "/lookup/shells/:aasIdentifier",
      operations: [
        {
          method: "GET",
          profiles: read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            return resourceResponse(
              c,
              await send(c, "GetAllAssetLinksById", { aasId: identifierParam(c, "aasIdentifier") }, RAW_VALUE),
            );
          },
        },
        {
          method: "POST",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const reply = await send(c, "PostAllAssetLinksById", {
              aasId: identifierParam(c, "aasIdentifier"),
              body: await requestBodyText(c),
              preconditions: readPreconditions(c),
            });
            // 201 with every link of the shell; the OpenAPI defines no Location and no ETag here.
            return createdResponse(c, { ok: true, value: reply.value }, undefined);
          },
        },
        {
          method: "DELETE",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            await send(c, "DeleteAllAssetLinksById", {
              aasId: identifierParam(c, "aasIdentifier"),
              preconditions: readPreconditions(c),
            });
            return noContentResponse(c);
          },
        },
      ],
    },
  ];
}
