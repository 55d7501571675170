import { encodeBase64Url, parseJsonText } from "@twinport/shared";
import { badRequest } from "../http/api-error.ts";
import { API_PREFIX, type ApiRoute } from "../http/api-routes.ts";
import { bodyStream } from "../http/body-stream.ts";
import { base64UrlQuery } from "../http/encoded-query.ts";
import { contentDisposition, fileResponse } from "../http/file-response.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { longRequest } from "../http/long-request.ts";
import { type MultipartUpload, readMultipartUpload } from "../http/multipart-upload.ts";
import { identifierParam } from "../http/path-params.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { asAddressed, noContentResponse, pagedResponse, RAW_ITEMS } from "../http/reply-response.ts";
import { AASX_FILE_SERVER } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * AASX File Server API (AAS API §a.8, §k), profile AASX_FILE_SERVER_FULL. A posted package's
 * content joins the served model; deleting the package removes it again (engine/handlers/
 * aasx-packages.ts). `packageId` is base64url in the path; the multipart `aasIds` part may repeat
 * or hold a JSON array.
 */
export function aasxFileServerRoutes({ send }: RouteDeps): ApiRoute[] {
  const { read, write } = AASX_FILE_SERVER;
  return [
    {
      path: "/packages",
      operations: [
        {
          method: "GET",
          profiles: read,
          handle: async (c) => {
            const { page } = readPagingAndModifiers(c, { paging: true });
            const reply = await send(c, "GetAllAASXPackageIds", { aasId: base64UrlQuery(c, "aasId"), page }, RAW_ITEMS);
            return pagedResponse(c, reply.value);
          },
        },
        {
          method: "POST",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const upload = await readMultipartUpload(c);
            const reply = await send(
              c,
              "PostAASXPackage",
              { file: packageFile(upload), aasIds: aasIdsOf(upload) },
              longRequest(),
            );
            const location = `${API_PREFIX}/packages/${encodeBase64Url(reply.value.packageId)}`;
            return c.body(JSON.stringify(reply.value), 201, {
              "Content-Type": "application/json",
              Location: asAddressed(c, location),
            });
          },
        },
      ],
    },
    {
      path: "/packages/:packageId",
      operations: [
        {
          method: "GET",
          profiles: read,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            // Streamed: the package leaves in slices as the client reads it (docs/adr/0037).
            if (send.stream) {
              const { fileName, contentType, chunks } = await send.stream(
                c,
                "GetAASXByPackageId",
                { packageId: packageIdOf(c) },
                longRequest(),
              );
              const name = fileName ?? "package.aasx";
              return c.body(bodyStream(chunks), 200, {
                "Content-Type": contentType,
                "Content-Disposition": contentDisposition(name),
                "X-FileName": headerSafe(name),
              });
            }
            const reply = await send(c, "GetAASXByPackageId", { packageId: packageIdOf(c) }, longRequest());
            return fileResponse(c, reply.value, { "X-FileName": headerSafe(reply.value.fileName ?? "package.aasx") });
          },
        },
        {
          method: "PUT",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const packageId = packageIdOf(c);
            const upload = await readMultipartUpload(c);
            await send(
              c,
              "PutAASXByPackageId",
              { packageId, file: packageFile(upload), aasIds: aasIdsOf(upload) },
              longRequest(),
            );
            return noContentResponse(c);
          },
        },
        {
          method: "DELETE",
          profiles: write,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            await send(c, "DeleteAASXByPackageId", { packageId: packageIdOf(c) }, longRequest());
            return noContentResponse(c);
          },
        },
      ],
    },
  ];
}

function packageIdOf(c: GatewayContext): string {
  return identifierParam(c, "packageId");
}

/** The part's type says nothing the store needs: a package is a package. */
function packageFile(upload: MultipartUpload) {
  const { contentType: _ignored, ...file } = upload.file;
  return file;
}

/**
 * `aasIds`: repeated parts of plain ids, or one part holding a JSON array of them. Absent, or only
 * empty parts (a form's empty field) = from the package; an empty list stored instead made the
 * package one no `?aasId=` filter ever finds.
 */
function aasIdsOf(upload: MultipartUpload): string[] | undefined {
  const values = upload.field("aasIds");
  if (values.length === 0) return undefined;
  const ids = values.flatMap((value) => {
    const text = value.trim();
    if (!text.startsWith("[")) return text === "" ? [] : [text];
    let parsed: unknown;
    try {
      parsed = parseJsonText(text);
    } catch {
      throw badRequest('The part "aasIds" is neither an id nor a JSON array of ids');
    }
    if (!Array.isArray(parsed) || parsed.some((id) => typeof id !== "string"))
      throw badRequest('The part "aasIds" must be a JSON array of strings');
    return parsed as string[];
  });
  return ids.length === 0 ? undefined : ids;
}

/** Header values are ISO-8859-1 at best: a non-ASCII file name travels percent-encoded. */
function headerSafe(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text);
}
