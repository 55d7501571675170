import { decodeBase64Url, isAasError } from "@twinport/shared";
import { badRequest } from "../http/api-error.ts";
import type { ApiRoute } from "../http/api-routes.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { shellLocation } from "../http/locations.ts";
import { identifierParam } from "../http/path-params.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { readPagingAndModifiers, singleQuery } from "../http/query.ts";
import { createdResponse, jsonValue, noContentResponse, pagedResponse, resourceResponse } from "../http/reply-response.ts";
import { requestBodyText } from "../http/request-body.ts";
import { SHELL, SHELL_REPOSITORY } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/** AAS Repository API: /shells and /shells/{aasIdentifier} (AAS API §a.1, rows 1, 2, 4–6). */
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
            const reply = await send(c, "GetAllAssetAdministrationShells", { page, idShort: singleQuery(c, "idShort"), assetIds: assetIdsQuery(c) });
            return pagedResponse(c, reply.value);
          },
        },
        {
          method: "POST",
          profiles: SHELL_REPOSITORY.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const reply = await send(c, "PostAssetAdministrationShell", { body: await requestBodyText(c) });
            const id = (jsonValue(reply.value) as { id?: unknown } | null)?.id;
            return createdResponse(c, reply, typeof id === "string" ? shellLocation(id) : undefined);
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
            return resourceResponse(c, await send(c, "GetAssetAdministrationShellById", { aasId: identifierParam(c, "aasIdentifier") }));
          },
        },
        {
          method: "PUT",
          profiles: SHELL.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const aasId = identifierParam(c, "aasIdentifier");
            await send(c, "PutAssetAdministrationShellById", { aasId, body: await requestBodyText(c), preconditions: readPreconditions(c) });
            return noContentResponse(c);
          },
        },
        {
          method: "DELETE",
          profiles: SHELL_REPOSITORY.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            await send(c, "DeleteAssetAdministrationShellById", { aasId: identifierParam(c, "aasIdentifier"), preconditions: readPreconditions(c) });
            return noContentResponse(c);
          },
        },
      ],
    },
  ];
}

/**
 * `assetIds`: repeatable (or comma-separated), each base64url of a JSON SpecificAssetId-like object,
 * or of an array of them (AAS API §l). The shell must match all of them; the engine filters.
 */
function assetIdsQuery(c: GatewayContext): { name: string; value: string }[] | undefined {
  const values = (c.req.queries("assetIds") ?? []).flatMap((value) => value.split(","));
  if (values.length === 0) return undefined;
  return values.flatMap((encoded) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(decodeBase64Url(encoded));
    } catch (error) {
      const why = isAasError(error) ? error.message : "it is not JSON";
      throw badRequest(`Query parameter "assetIds": ${why}`);
    }
    return (Array.isArray(parsed) ? parsed : [parsed]).map(assetIdOf);
  });
}

function assetIdOf(candidate: unknown): { name: string; value: string } {
  const { name, value } = (candidate ?? {}) as { name?: unknown; value?: unknown };
  if (typeof candidate !== "object" || typeof name !== "string" || typeof value !== "string") {
    throw badRequest('Query parameter "assetIds": each value must encode an object with string "name" and "value"');
  }
  return { name, value };
}
