import type { ImportDocument, ImportProblem, ModelFormat } from "@twinport/shared";
import { badRequest } from "../http/api-error.ts";
import type { ApiOperation, ApiRoute } from "../http/api-routes.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { longRequest } from "../http/long-request.ts";
import { ACCEPTED_MODEL_TYPES, formatOfContentType } from "../http/model-media-types.ts";
import { isMultipart, readMultipartUpload } from "../http/multipart-upload.ts";
import { readPagingAndModifiers } from "../http/query.ts";
import { noContentResponse } from "../http/reply-response.ts";
import { FAAAST_IMPORT, FAAAST_RESET } from "../profiles.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * FA³ST's proprietary calls (spec §4.2), under /api/v3.0 like everything else:
 * - GET and DELETE /reset → 204: every shell, submodel, concept description and file is deleted
 *   (one deletion event each, so every endpoint follows), pending operations and the configured
 *   asset connections too (the engine's reset hooks); profile FAAAST_RESET.
 * - POST /import, and PUT /upload (an earlier release's name) → 200 with the list of problems met;
 *   profile FAAAST_IMPORT. The body is the model; Content-Type names its format (a multipart
 *   upload's `file` part works too). A document that cannot be read at all is a 400 and nothing is
 *   imported; otherwise each identifiable that fails (invalid, id already taken, the same id with
 *   other content) is reported and left out whole, and the rest is imported.
 */
export function proprietaryRoutes({ send }: RouteDeps): ApiRoute[] {
  const reset: ApiOperation["handle"] = async (c) => {
    readPagingAndModifiers(c, {});
    await send(c, "ResetStore", {}, longRequest());
    return noContentResponse(c);
  };
  const importModel: ApiOperation["handle"] = async (c) => {
    readPagingAndModifiers(c, {});
    const document = await importDocument(c);
    const reply = await send(c, "ImportEnvironment", { documents: [document], mode: "partial" }, longRequest());
    return c.body(JSON.stringify(reply.value.problems.map(problemMessage)), 200, {
      "Content-Type": "application/json",
    });
  };
  return [
    {
      path: "/reset",
      operations: [
        { method: "GET", profiles: FAAAST_RESET, changesState: true, handle: reset },
        { method: "DELETE", profiles: FAAAST_RESET, handle: reset },
      ],
    },
    { path: "/import", operations: [{ method: "POST", profiles: FAAAST_IMPORT, handle: importModel }] },
    { path: "/upload", operations: [{ method: "PUT", profiles: FAAAST_IMPORT, handle: importModel }] },
  ];
}

/** One reported problem, in the AAS Message shape plus what it is about. */
function problemMessage(problem: ImportProblem): Record<string, unknown> {
  return {
    messageType: "Error",
    code: problem.code,
    text: problem.text,
    ...(problem.modelType !== undefined ? { modelType: problem.modelType } : {}),
    ...(problem.id !== undefined ? { id: problem.id } : {}),
    ...(problem.details !== undefined ? { details: problem.details } : {}),
  };
}

async function importDocument(c: GatewayContext): Promise<ImportDocument> {
  if (isMultipart(c)) {
    const { file } = await readMultipartUpload(c);
    const format = formatOfContentType(file.contentType) ?? formatOfName(file.fileName);
    if (format === undefined)
      throw badRequest(
        `Cannot tell the format of "${file.fileName}": name it .json, .xml or .aasx, or give the part one of ${ACCEPTED_MODEL_TYPES.join(", ")}`,
      );
    return { source: file.fileName, format, contentBase64: file.contentBase64 };
  }
  const bytes = Buffer.from(await c.req.arrayBuffer());
  if (bytes.length === 0) throw badRequest("The request body is empty; it must be the model to import");
  const contentType = c.req.header("Content-Type");
  const format =
    formatOfContentType(contentType) ??
    (/^application\/octet-stream\b/i.test(contentType ?? "") && bytes[0] === 0x50 && bytes[1] === 0x4b
      ? "aasx"
      : undefined);
  if (format === undefined)
    throw badRequest(`The Content-Type must name the model's format: one of ${ACCEPTED_MODEL_TYPES.join(", ")}`);
  return { source: "the uploaded model", format, contentBase64: bytes.toString("base64") };
}

function formatOfName(fileName: string): ModelFormat | undefined {
  const extension = fileName.slice(fileName.lastIndexOf(".") + 1).toLowerCase();
  return extension === "json" || extension === "xml" || extension === "aasx" ? extension : undefined;
}
