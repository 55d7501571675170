/**
 * An in-memory AAS Registry and Submodel Registry (SSP-001 of both, API v3.0.1) for tests. Every
 * request body is validated against the official OpenAPI schemas (copied into
 * tests/fixtures/registry-openapi); answers follow the specification's status codes:
 * POST 201 + Location | 409, PUT 204 | 404, DELETE 204 | 404, GET 200 | 404, schema violation 400
 * with a Result body. Every request is recorded. The server can answer 500, hang (never answer), be
 * stopped and started again on the same port (state kept unless `clear()`), and require a header.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";
import {
  AAS_REGISTRY_SPEC,
  describeErrors,
  loadRequestBodySchemas,
  type RequestBodySchemas,
  SUBMODEL_REGISTRY_SPEC,
} from "./openapi-schemas.ts";

export interface RecordedRequest {
  method: string;
  /** Path below the server's API root, e.g. "/shell-descriptors/aHR0cA". */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined without one; the raw text when it is not JSON). */
  body: unknown;
  status: number;
  time: number;
}

export type Behaviour = "normal" | "fail-500" | "fail-401" | "hang";

export interface RegistryServerOptions {
  /** Path of the API root; default "/api/v3.0". */
  prefix?: string;
  /** Port to listen on; default a free one (kept across stop/start). */
  port?: number;
  /** When set, requests without this header value answer 401. */
  requiredHeader?: { name: string; value: string };
}

type Descriptor = Record<string, unknown> & { id: string };

export interface RegistryServer {
  /** Base URL including the API root, e.g. http://127.0.0.1:4711/api/v3.0 */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Shell descriptors by id (decoded). */
  readonly shells: Map<string, Descriptor>;
  /** Submodel descriptors of the Submodel Registry by id. */
  readonly submodels: Map<string, Descriptor>;
  behaviour: Behaviour;
  start(): Promise<void>;
  /** Close the listener and every open connection (hanging requests included). */
  stop(): Promise<void>;
  clear(): void;
}

const SHELL_DESCRIPTORS = /^\/shell-descriptors(?:\/([^/]+)(?:\/submodel-descriptors(?:\/([^/]+))?)?)?$/;
const SUBMODEL_DESCRIPTORS = /^\/submodel-descriptors(?:\/([^/]+))?$/;

/** The registries' ids are base64url (padded or not); anything else is a 400. */
function decodeId(segment: string): string | undefined {
  const text = decodeURIComponent(segment).replace(/=+$/, "");
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  return Buffer.from(text, "base64url").toString("utf8");
}

function result(text: string, code = ""): { messages: Record<string, string>[] } {
  return { messages: [{ messageType: "Error", text, code, timestamp: new Date().toISOString() }] };
}

let schemas: RequestBodySchemas | undefined;

export async function startRegistryServer(options: RegistryServerOptions = {}): Promise<RegistryServer> {
  schemas ??= loadRequestBodySchemas();
  const prefix = options.prefix ?? "/api/v3.0";
  const shells = new Map<string, Descriptor>();
  const submodels = new Map<string, Descriptor>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = options.port ?? 0;

  const registry: RegistryServer = {
    get url() {
      return `http://127.0.0.1:${port}${prefix}`;
    },
    get port() {
      return port;
    },
    requests,
    shells,
    submodels,
    behaviour: "normal",
    start,
    stop,
    clear() {
      shells.clear();
      submodels.clear();
      requests.length = 0;
    },
  };

  function handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    const url = new URL(req.url ?? "/", "http://x");
    const method = req.method ?? "GET";
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    let body: unknown = undefined;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const record: RecordedRequest = { method, path, headers: req.headers, body, status: 0, time: Date.now() };
    requests.push(record);
    if (registry.behaviour === "hang") return; // the socket stays open until stop()
    const answer = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      const payload = json === undefined ? "" : JSON.stringify(json);
      res.writeHead(status, { ...(payload ? { "content-type": "application/json" } : {}), ...headers });
      res.end(payload);
    };
    if (registry.behaviour === "fail-500") return answer(500, result("the registry test server was told to fail"));
    if (registry.behaviour === "fail-401") return answer(401, result("the registry test server refuses everyone"));
    if (!url.pathname.startsWith(prefix)) return answer(404, result(`no such path ${url.pathname}`));
    const required = options.requiredHeader;
    if (required && req.headers[required.name.toLowerCase()] !== required.value)
      return answer(401, result(`header ${required.name} missing or wrong`));
    if (path === "/description" && method === "GET") {
      return answer(200, {
        profiles: [
          "https://admin-shell.io/aas/API/3/0/AssetAdministrationShellRegistryServiceSpecification/SSP-001",
          "https://admin-shell.io/aas/API/3/0/SubmodelRegistryServiceSpecification/SSP-001",
        ],
      });
    }

    // Which operation of which specification: its path template names the request body schema.
    let spec: string;
    let template: string;
    let collection: Map<string, Descriptor>;
    let idSegment: string | undefined;
    let nestedSegment: string | undefined;
    let shell: Descriptor | undefined;
    const shellMatch = SHELL_DESCRIPTORS.exec(path);
    const submodelMatch = SUBMODEL_DESCRIPTORS.exec(path);
    if (shellMatch) {
      spec = AAS_REGISTRY_SPEC;
      [, idSegment, nestedSegment] = shellMatch;
      const nested = path.includes("/submodel-descriptors");
      template = nested
        ? `/shell-descriptors/{aasIdentifier}/submodel-descriptors${nestedSegment ? "/{submodelIdentifier}" : ""}`
        : `/shell-descriptors${idSegment ? "/{aasIdentifier}" : ""}`;
      collection = shells;
      if (nested) {
        const aasId = decodeId(idSegment!);
        if (aasId === undefined) return answer(400, result(`aasIdentifier '${idSegment}' is not base64url`));
        shell = shells.get(aasId);
        if (!shell) return answer(404, result(`no shell descriptor '${aasId}'`));
        const list = (shell.submodelDescriptors as Descriptor[] | undefined) ?? [];
        collection = new Map(list.map((d) => [d.id, d]));
        idSegment = nestedSegment;
      }
    } else if (submodelMatch) {
      spec = SUBMODEL_REGISTRY_SPEC;
      [, idSegment] = submodelMatch;
      template = `/submodel-descriptors${idSegment ? "/{submodelIdentifier}" : ""}`;
      collection = submodels;
    } else {
      return answer(404, result(`no such path ${path}`));
    }
    const validate = schemas!.forOperation(spec, template, method);
    if (["POST", "PUT"].includes(method)) {
      if (!validate) return answer(405, result(`${method} is not allowed on ${template}`));
      if (typeof body !== "object" || body === null) return answer(400, result("the body is not a JSON object"));
      if (!validate(body))
        return answer(400, {
          messages: describeErrors(validate.errors).map((text) => result(text, "schema").messages[0]),
        });
    }
    const descriptor = body as Descriptor;
    const commit = () => {
      if (shell) shell.submodelDescriptors = [...collection.values()];
    };
    if (!idSegment) {
      if (method === "GET") return answer(200, { paging_metadata: {}, result: [...collection.values()] });
      if (method !== "POST") return answer(405, result(`${method} is not allowed on ${template}`));
      if (collection.has(descriptor.id)) return answer(409, result(`descriptor '${descriptor.id}' exists`));
      collection.set(descriptor.id, descriptor);
      commit();
      return answer(201, descriptor, {
        location: `${prefix}${path}/${Buffer.from(descriptor.id).toString("base64url")}`,
      });
    }
    const id = decodeId(idSegment);
    if (id === undefined) return answer(400, result(`identifier '${idSegment}' is not base64url`));
    switch (method) {
      case "GET":
        return collection.has(id) ? answer(200, collection.get(id)) : answer(404, result(`no descriptor '${id}'`));
      case "PUT":
        if (descriptor.id !== id)
          return answer(400, result(`the body's id '${descriptor.id}' differs from the path's '${id}'`));
        if (!collection.has(id)) return answer(404, result(`no descriptor '${id}'`));
        collection.set(id, descriptor);
        commit();
        return answer(204);
      case "DELETE":
        if (!collection.delete(id)) return answer(404, result(`no descriptor '${id}'`));
        commit();
        return answer(204);
      default:
        return answer(405, result(`${method} is not allowed on ${template}`));
    }
  }

  async function start(): Promise<void> {
    if (server) return;
    const next = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
    });
    next.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => resolve());
    });
    port = (next.address() as { port: number }).port;
    server = next;
  }

  async function stop(): Promise<void> {
    const current = server;
    server = undefined;
    if (!current) return;
    const closed = new Promise<void>((resolve) => current.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  }

  await start();
  return registry;
}
