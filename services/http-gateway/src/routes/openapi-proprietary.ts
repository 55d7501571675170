import type { OpenApiOperation } from "./openapi-official.ts";

/**
 * What this gateway serves beyond the v3.0.1 files, for the OpenAPI document: one entry per
 * operation, keyed "METHOD /path" (relative to /api/v3.0, path parameters as `{name}`). A route
 * mounted without an entry here or in the official files makes the route-comparison test
 * (services/http-gateway/src/routes/openapi-document.test.ts) fail, so the two cannot drift.
 * Adding a proprietary route = adding its entry here.
 */
const TWINPORT = "Twinport (proprietary)";
const RESULT = { $ref: "#/components/schemas/Result" };
const ERROR = (description: string) => ({ description, content: { "application/json": { schema: RESULT } } });
const MODEL_BODY = {
  description:
    "The model to import: an AAS environment in JSON or XML, or an AASX package. Content-Type names the format; a multipart/form-data upload's `file` part works too (its name or type names the format).",
  required: true,
  content: {
    "application/json": { schema: { $ref: "#/components/schemas/Environment" } },
    "application/xml": { schema: { type: "string" } },
    "application/asset-administration-shell-package+xml": { schema: { type: "string", format: "binary" } },
    "multipart/form-data": {
      schema: { type: "object", properties: { file: { type: "string", format: "binary" } }, required: ["file"] },
    },
  },
};
const IMPORT_RESPONSES = {
  "200": {
    description:
      "Imported. The body lists the identifiables that were left out (each invalid, or an id already taken with other content); empty when everything was imported.",
    content: {
      "application/json": {
        schema: { type: "array", items: { $ref: "#/components/schemas/Message" } },
      },
    },
  },
  "400": ERROR("The document cannot be read at all; nothing was imported"),
  "401": ERROR("Authentication is required"),
  "403": ERROR("The caller may not import"),
  "413": ERROR("The body is larger than the endpoint's maxRequestBodySize"),
};
const RESET: OpenApiOperation = {
  tags: [TWINPORT],
  summary:
    "Deletes every shell, submodel, concept description and file, the pending operations and the configuration file's asset connections (until a restart; FA³ST's reset; profile FAAAST_RESET)",
  responses: {
    "204": { description: "Everything was deleted" },
    "401": ERROR("Authentication is required"),
    "403": ERROR("The caller may not delete everything"),
  },
};

export const PROPRIETARY_OPERATIONS: Readonly<Record<string, OpenApiOperation>> = {
  "GET /reset": { ...RESET, operationId: "Reset" },
  "DELETE /reset": { ...RESET, operationId: "ResetByDelete" },
  "POST /import": {
    tags: [TWINPORT],
    operationId: "ImportModel",
    summary: "Adds the identifiables of a model to the repository (FA³ST's import; profile FAAAST_IMPORT)",
    requestBody: MODEL_BODY,
    responses: IMPORT_RESPONSES,
  },
  "GET /events": {
    tags: [TWINPORT],
    operationId: "GetEvents",
    summary:
      "Every committed change as Server-Sent Events, in seq order, resumable with Last-Event-ID or after (profile TWINPORT_EVENTS; docs/events.md)",
    parameters: [
      {
        name: "kinds",
        in: "query",
        description: "Entity kinds, comma-separated: shell, submodel, element, concept-description, operation",
        schema: { type: "string" },
      },
      {
        name: "id",
        in: "query",
        description: "Only changes of this identifiable (base64url-encoded identifier)",
        schema: { type: "string" },
      },
      {
        name: "semanticId",
        in: "query",
        description: "Only changes of submodels or elements with this semanticId (base64url-encoded Reference JSON)",
        schema: { type: "string" },
      },
      {
        name: "idShortPath",
        in: "query",
        description: "Only elements at or below this idShortPath (on whole segments)",
        schema: { type: "string" },
      },
      {
        name: "after",
        in: "query",
        description: "Replay the retained changes after this seq first",
        schema: { type: "integer", minimum: 0 },
      },
      {
        name: "Last-Event-ID",
        in: "header",
        description: "The id of the last event a reconnecting client saw (as after)",
        schema: { type: "string" },
      },
    ],
    responses: {
      "200": { description: "The event stream", content: { "text/event-stream": { schema: { type: "string" } } } },
      "400": ERROR("A filter cannot be read"),
      "401": ERROR("Authentication is required"),
      "403": ERROR("The caller may read nothing"),
    },
  },
  "PUT /upload": {
    tags: [TWINPORT],
    operationId: "UploadModel",
    summary: "The same as POST /import, under the name an earlier FA³ST release used",
    requestBody: MODEL_BODY,
    responses: IMPORT_RESPONSES,
  },
};

/**
 * Paths Twinport serves as other spellings of an official path: the operation is the official
 * one's, with this note. `from` is replaced by `to` to find it.
 */
export const PATH_ALIASES: readonly { from: string; to: string; note: string }[] = [
  {
    from: "/shells/{aasIdentifier}/aas/submodels/{submodelIdentifier}/submodel",
    to: "/shells/{aasIdentifier}/submodels/{submodelIdentifier}",
    note: "The Submodel API below a shell in the form endpoint spec §4.1.5 names (an earlier draft's superpath); the same as",
  },
  {
    from: "/invoke-asnyc",
    to: "/invoke-async",
    note: "The misspelling of the v3.0.1 AAS service file, served for clients generated from it; the same as",
  },
];
