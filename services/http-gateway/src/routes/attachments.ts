import type { ApiRoute } from "../http/api-routes.ts";
import { fileDownloadResponse } from "../http/file-response.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { longRequest } from "../http/long-request.ts";
import { readMultipartUpload } from "../http/multipart-upload.ts";
import { identifierParam, idShortPathParam } from "../http/path-params.ts";
import { etagOf, readPreconditions } from "../http/preconditions.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { noContentResponse } from "../http/reply-response.ts";
import type { ProfileSets } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/** A Submodel API mount the attachment operations are served at. */
export interface AttachmentMount {
  path: string;
  profiles: ProfileSets;
  belowShell: boolean;
}

/**
 * Submodel API …/submodel-elements/{idShortPath}/attachment (AAS API §a.2 rows 28–30, §a.3 rows
 * 34–36): the bytes of a File element. GET answers them with the File's content type; PUT takes
 * multipart `file` + `fileName` (204); DELETE answers 200 (v3.0.1). Non-File elements: 405.
 */
export function attachmentRoutes({ send }: RouteDeps, mount: AttachmentMount): ApiRoute[] {
  const scopeOf = (c: GatewayContext) => ({
    submodelId: identifierParam(c, "submodelIdentifier"),
    ...(mount.belowShell ? { aasId: identifierParam(c, "aasIdentifier") } : {}),
    idShortPath: idShortPathParam(c),
  });
  return [
    {
      path: `${mount.path}/submodel-elements/:idShortPath/attachment`,
      operations: [
        {
          method: "GET",
          profiles: mount.profiles.read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const reply = await send(c, "GetFileByPath", scopeOf(c), longRequest());
            // The bytes are the File element's content: the element's ETag, as each of its GETs carries.
            const etag = reply.revision === undefined ? undefined : etagOf(reply.revision, reply.view, reply.item);
            return fileDownloadResponse(c, reply.value, etag);
          },
        },
        {
          method: "PUT",
          profiles: mount.profiles.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const scope = scopeOf(c);
            const { file } = await readMultipartUpload(c);
            await send(c, "PutFileByPath", { ...scope, file, preconditions: readPreconditions(c) }, longRequest());
            return noContentResponse(c);
          },
        },
        {
          method: "DELETE",
          profiles: mount.profiles.write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            await send(c, "DeleteFileByPath", { ...scopeOf(c), preconditions: readPreconditions(c) });
            return c.body(null, 200);
          },
        },
      ],
    },
  ];
}
