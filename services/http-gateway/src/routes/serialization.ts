import type { ModelFormat } from "@twinport/shared";
import { decodeBase64Url, isAasError } from "@twinport/shared";
import { badRequest } from "../http/api-error.ts";
import type { ApiRoute } from "../http/api-routes.ts";
import { bodyStream } from "../http/body-stream.ts";
import { booleanQuery } from "../http/boolean-query.ts";
import { notAcceptable, preferredMediaType } from "../http/content-negotiation.ts";
import { contentDisposition, fileResponse } from "../http/file-response.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { longRequest } from "../http/long-request.ts";
import { formatOfContentType, SERIALIZATION_TYPES } from "../http/model-media-types.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { SERIALIZATION } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * Serialization API: GET /serialization?aasIds=…&submodelIds=…&includeConceptDescriptions=…
 * (AAS API §j). The format follows Accept (JSON when absent or `*\/*`); an Accept that excludes
 * every format is a 406 (the digest allows 406 or 400).
 */
export function serializationRoutes({ send }: RouteDeps): ApiRoute[] {
  return [
    {
      path: "/serialization",
      operations: [
        {
          method: "GET",
          profiles: SERIALIZATION,
          handle: async (c) => {
            readPagingAndModifiers(c, {});
            const chosen = preferredMediaType(c.req.header("Accept"), SERIALIZATION_TYPES);
            if (chosen === undefined) throw notAcceptable(SERIALIZATION_TYPES);
            const format: ModelFormat = formatOfContentType(chosen)!;
            const params = {
              aasIds: idsQuery(c, "aasIds"),
              submodelIds: idsQuery(c, "submodelIds"),
              includeConceptDescriptions: booleanQuery(c, "includeConceptDescriptions", true),
              format,
            };
            // Streamed: the body leaves as the store writes it, whatever the model's size (ADR 0034).
            if (send.stream) {
              const { fileName, warnings, contentType, chunks } = await send.stream(
                c,
                "GenerateSerializationByIds",
                params,
                longRequest(),
              );
              const headers: Record<string, string> = { "Content-Type": contentType };
              if (format === "aasx" && fileName !== undefined)
                headers["Content-Disposition"] = contentDisposition(fileName);
              if (warnings?.length) headers["Twinport-Warning"] = warnings.map(headerSafe).join("; ");
              return c.body(bodyStream(chunks), 200, headers);
            }
            const reply = await send(c, "GenerateSerializationByIds", params, longRequest());
            // Only the package is a download; JSON and XML are plain bodies.
            const { fileName, warnings, ...content } = reply.value;
            // A 200 binary body has no room for Result messages: what the package left out is said
            // in a header any client can read (browsers too: CORS always exposes it).
            const headers = warnings?.length ? { "Twinport-Warning": warnings.map(headerSafe).join("; ") } : undefined;
            return fileResponse(c, format === "aasx" ? { fileName, ...content } : content, headers);
          },
        },
      ],
    },
  ];
}

/**
 * Identifiers, each base64url-encoded: repeated (`aasIds=a&aasIds=b`) or comma-separated
 * (`aasIds=a,b`; base64url has no comma). FA³ST's one value of comma-joined ids is resolved in the
 * store, which knows whether an id with a comma exists.
 */
function idsQuery(c: GatewayContext, name: string): string[] | undefined {
  const values = (c.req.queries(name) ?? []).flatMap((value) => value.split(","));
  if (values.length === 0) return undefined;
  // "aasIds=" (a client whose id came out empty) names nothing; read as absent it would serve the
  // whole repository, which no parameter at all asks for.
  if (values.includes("")) throw badRequest(`Query parameter "${name}" has an empty value: it names no identifier`);
  return values.map((value) => {
    try {
      return decodeBase64Url(value);
    } catch (error) {
      if (isAasError(error)) throw badRequest(`Query parameter "${name}": ${error.message}`);
      throw error;
    }
  });
}

/** Header values are ASCII without control characters: anything else is percent-encoded. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]|%/gu, (char) =>
    [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}
