import type { ApiRoute } from "../http/api-routes.ts";
import { assetIdsQuery } from "../http/encoded-query.ts";
import { shellLocation } from "../http/locations.ts";
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
import { SHELL, SHELL_REPOSITORY } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * AAS Repository API: /shells, /shells/$reference and /shells/{aasIdentifier} (AAS API §a.1, rows
 * 1–6). The AAS API below /shells/{aasIdentifier} is in aas.ts.
 */
export function aasRepositoryRoutes({ send }: RouteDeps): ApiRoute[] {
  return [
    {
      path: "/shells",
      operations: [
        {
          method: "GET",
          profiles: SHELL_REPOSITORY.read,
          handle: async (c) => {
            const { page } = readPagingAndModifiers(c, { paging: true });
            const reply = await send(
              c,
              "GetAllAssetAdministrationShells",
              { page, idShort: singleQuery(c, "idShort"), assetIds: assetIdsQuery(c) },
              RAW_ITEMS,
            );
            return pagedResponse(c, reply.value);
          },
        },
        {
          method: "POST",
          profiles: SHELL_REPOSITORY.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const reply = await send(c, "PostAssetAdministrationShell", {
              body: await requestBodyText(c),
              preconditions: readPreconditions(c),
            });
            const id = (jsonValue(reply.value) as { id?: unknown } | null)?.id;
            return createdResponse(c, reply, typeof id === "string" ? shellLocation(id) : undefined);
          },
        },
      ],
    },
    // Before /shells/{aasIdentifier}: "$reference" is a suffix, not an identifier.
    {
      path: "/shells/$reference",
      operations: [
        {
          method: "GET",
          profiles: SHELL_REPOSITORY.read,
          handle: async (c) => {
            const { page } = readPagingAndModifiers(c, { paging: true });
            // Spec §4.1.10 names the filter `assetId`; the OpenAPI names it `assetIds`: both count.
            const assetIds = assetIdsQuery(c, ["assetIds", "assetId"]);
            const reply = await send(
              c,
              "GetAllAssetAdministrationShells",
              { page, idShort: singleQuery(c, "idShort"), assetIds, modifiers: { content: "reference" } },
              RAW_ITEMS,
            );
            return pagedResponse(c, reply.value);
          },
        },
      ],
    },
    {
      path: "/shells/:aasIdentifier",
      operations: [
        {
          method: "GET",
          profiles: SHELL.read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            return resourceResponse(
              c,
              await send(
                c,
                "GetAssetAdministrationShellById",
                { aasId: identifierParam(c, "aasIdentifier") },
                RAW_VALUE,
              ),
            );
          },
        },
        {
          method: "PUT",
          profiles: SHELL.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const aasId = identifierParam(c, "aasIdentifier");
            await send(c, "PutAssetAdministrationShellById", {
              aasId,
              body: await requestBodyText(c),
              preconditions: readPreconditions(c),
            });
            return noContentResponse(c);
          },
        },
        {
          method: "DELETE",
          profiles: SHELL_REPOSITORY.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            await send(c, "DeleteAssetAdministrationShellById", {
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
