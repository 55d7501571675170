import type { ApiRoute } from "../http/api-routes.ts";
import { submodelReferenceLocation } from "../http/locations.ts";
import { identifierParam } from "../http/path-params.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { readPagingAndModifiers } from "../http/query.ts";
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
import { SHELL } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * AAS API mounted at /shells/{aasIdentifier} (AAS API §a.1, rows 7–9 and 13–15): the shell as a
 * reference, its asset information and its submodel references. Thumbnails are in the files routes.
 */
export function aasRoutes({ send }: RouteDeps): ApiRoute[] {
  return [
    {
      path: "/shells/:aasIdentifier/$reference",
      operations: [
        {
          method: "GET",
          profiles: SHELL.read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const aasId = identifierParam(c, "aasIdentifier");
            return resourceResponse(
              c,
              await send(
                c,
                "GetAssetAdministrationShellById",
                { aasId, modifiers: { content: "reference" } },
                RAW_VALUE,
              ),
            );
          },
        },
      ],
    },
    {
      path: "/shells/:aasIdentifier/asset-information",
      operations: [
        {
          method: "GET",
          profiles: SHELL.read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            return resourceResponse(
              c,
              await send(c, "GetAssetInformation", { aasId: identifierParam(c, "aasIdentifier") }, RAW_VALUE),
            );
          },
        },
        {
          method: "PUT",
          profiles: SHELL.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const aasId = identifierParam(c, "aasIdentifier");
            await send(c, "PutAssetInformation", {
              aasId,
              body: await requestBodyText(c),
              preconditions: readPreconditions(c),
            });
            return noContentResponse(c);
          },
        },
      ],
    },
    {
      path: "/shells/:aasIdentifier/submodel-refs",
      operations: [
        {
          method: "GET",
          profiles: SHELL.read,
          handle: async (c) => {
            const { page } = readPagingAndModifiers(c, { paging: true });
            return pagedResponse(
              c,
              (
                await send(
                  c,
                  "GetAllSubmodelReferences",
                  { aasId: identifierParam(c, "aasIdentifier"), page },
                  RAW_ITEMS,
                )
              ).value,
            );
          },
        },
        {
          method: "POST",
          profiles: SHELL.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const aasId = identifierParam(c, "aasIdentifier");
            const reply = await send(c, "PostSubmodelReference", {
              aasId,
              body: await requestBodyText(c),
              preconditions: readPreconditions(c),
            });
            const keys = (jsonValue(reply.value) as { keys?: { value?: unknown }[] }).keys ?? [];
            const submodelId = keys[keys.length - 1]?.value;
            // The shell's revision is no ETag of the reference: the 201 carries none.
            const { revision: _shellRevision, ...created } = reply;
            return createdResponse(
              c,
              created,
              typeof submodelId === "string" ? submodelReferenceLocation(aasId, submodelId) : undefined,
            );
          },
        },
      ],
    },
    {
      path: "/shells/:aasIdentifier/submodel-refs/:submodelIdentifier",
      operations: [
        {
          method: "DELETE",
          profiles: SHELL.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const params = {
              aasId: identifierParam(c, "aasIdentifier"),
              submodelId: identifierParam(c, "submodelIdentifier"),
              preconditions: readPreconditions(c),
            };
            await send(c, "DeleteSubmodelReferenceById", params);
            return noContentResponse(c);
          },
        },
      ],
    },
  ];
}
