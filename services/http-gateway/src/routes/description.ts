import type { ApiOperation, ApiRoute } from "../http/api-routes.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { servedProfileIdentifiers } from "../profile-identifiers.ts";
import { PROFILE_NAMES } from "../profiles.ts";

/**
 * Description API (AAS API §a.7): GET /description lists the profile identifiers of exactly what
 * this endpoint serves, computed once from the other routes and the endpoint's `profiles`.
 * Every service specification contains GetDescription, so it is served under any profile that
 * claims one. An endpoint that claims none (only FAAAST_RESET, FAAAST_IMPORT, TWINPORT_EVENTS)
 * serves no service specification and so no Description API: `ServiceDescription.profiles` has
 * `minItems: 1`, and `{"profiles": []}` would be an invalid answer. Such an endpoint answers 404
 * there, as for every other path its profiles leave out.
 */
export function descriptionRoutes(served: readonly ApiRoute[], enabledProfiles: readonly string[]): ApiRoute[] {
  const operations: ApiOperation[] = served.flatMap((route) => route.operations);
  const profiles = servedProfileIdentifiers(operations, enabledProfiles);
  const body = JSON.stringify({ profiles });
  return [
    {
      path: "/description",
      operations: [
        {
          method: "GET",
          profiles: profiles.length > 0 ? PROFILE_NAMES : [],
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            return c.body(body, 200, { "Content-Type": "application/json" });
          },
        },
      ],
    },
  ];
}
