import type { ApiRoute } from "../http/api-routes.ts";
import { SUBMODEL_API_BELOW_SHELL, SUBMODEL_API_IN_REPOSITORY } from "../profiles.ts";
import { aasxFileServerRoutes } from "./aasx-file-server.ts";
import { assetThumbnailRoutes } from "./asset-thumbnail.ts";
import { attachmentRoutes } from "./attachments.ts";
import { proprietaryRoutes } from "./proprietary.ts";
import type { RouteDeps } from "./route-deps.ts";
import { serializationRoutes } from "./serialization.ts";

/**
 * Everything about files, packages and formats: attachments at every Submodel API mount (the
 * same mounts as create-http-app.ts), the asset thumbnail, the Serialization API, FA³ST's
 * /reset and /import, and the AASX File Server.
 */
export function fileRoutes(deps: RouteDeps): ApiRoute[] {
  return [
    ...attachmentRoutes(deps, {
      path: "/shells/:aasIdentifier/submodels/:submodelIdentifier",
      profiles: SUBMODEL_API_BELOW_SHELL,
      belowShell: true,
    }),
    ...attachmentRoutes(deps, {
      path: "/shells/:aasIdentifier/aas/submodels/:submodelIdentifier/submodel",
      profiles: SUBMODEL_API_BELOW_SHELL,
      belowShell: true,
    }),
    ...attachmentRoutes(deps, {
      path: "/submodels/:submodelIdentifier",
      profiles: SUBMODEL_API_IN_REPOSITORY,
      belowShell: false,
    }),
    ...assetThumbnailRoutes(deps),
    ...serializationRoutes(deps),
    ...proprietaryRoutes(deps),
    ...aasxFileServerRoutes(deps),
  ];
}
