import type { ApiRoute } from "../http/api-routes.ts";
import { fileDownloadResponse } from "../http/file-response.ts";
import { longRequest } from "../http/long-request.ts";
import { readMultipartUpload } from "../http/multipart-upload.ts";
import { identifierParam } from "../http/path-params.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { noContentResponse } from "../http/reply-response.ts";
import { SHELL } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * AAS API /shells/{aasIdentifier}/asset-information/thumbnail (AAS API §a.1 rows 10–12): the file
 * behind assetInformation.defaultThumbnail. PUT takes multipart `file` + `fileName` (204); DELETE
 * answers 200 (v3.0.1). A thumbnail without contentType is answered with the stored or guessed
 * type, never a 500 (spec §4.1.11).
 */
export function assetThumbnailRoutes({ send }: RouteDeps): ApiRoute[] {
  return [
    {
      path: "/shells/:aasIdentifier/asset-information/thumbnail",
      operations: [
        {
          method: "GET",
          profiles: SHELL.read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const reply = await send(c, "GetThumbnail", { aasId: identifierParam(c, "aasIdentifier") }, longRequest());
            return fileDownloadResponse(c, reply.value);
          },
        },
        {
          method: "PUT",
          profiles: SHELL.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const aasId = identifierParam(c, "aasIdentifier");
            const { file } = await readMultipartUpload(c);
            await send(c, "PutThumbnail", { aasId, file, preconditions: readPreconditions(c) }, longRequest());
            return noContentResponse(c);
          },
        },
        {
          method: "DELETE",
          profiles: SHELL.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            await send(c, "DeleteThumbnail", {
              aasId: identifierParam(c, "aasIdentifier"),
              preconditions: readPreconditions(c),
            });
            return c.body(null, 200);
          },
        },
      ],
    },
  ];
}
