import type { ApiOperation, ApiRoute } from "../http/api-routes.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { servedProfileIdentifiers } from "../profile-identifiers.ts";
import { PROFILE_NAMES } from "../profiles.ts";

/**
 * Description API (AAS API §a.7): GET /description lists the profile identifiers of exactly what
 * this endpoint serves, computed once from the other routes and the endpoint's `profiles`.
 * Every service specification contains GetDescription, so it is served under any profile.
 */
export function descriptionRoutes(served: readonly ApiRoute[], enabledProfiles: readonly string[]): ApiRoute[] {
  const operations: ApiOperation[] = served.flatMap((route) => route.operations);
  const body = JSON.stringify({ profiles: servedProfileIdentifiers(operations, enabledProfiles) });
  return [
    {
      path: "/description",
      operations: [
        {
          method: "GET",
          profiles: PROFILE_NAMES,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            return c.body(body, 200, { "Content-Type": "application/json" });
          },
        },
      ],
    },
  ];
}
