/**
 * Real assets for asset-connection tests: a small HTTP device (node:http) on a free loopback port,
 * stopped by the test, and the model its values feed (the OPC UA device is in opcua-asset.ts, so
 * HTTP-only tests do not load node-opcua). No mocks: connections talk to them over real sockets.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { freePort } from "./servers.ts";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpAsset {
  url: string;
  port: number;
  /** GET <path> answers documents.get(path) as JSON (404 when missing); PUT/POST <path> replaces it with the body. */
  documents: Map<string, unknown>;
  requests: RecordedRequest[];
  /** Answers a request before the default behaviour; undefined falls through. */
  handle?: (request: RecordedRequest) => HttpAnswer | undefined | Promise<HttpAnswer | undefined>;
  /** Resolves with the first recorded request (past or future) that satisfies `predicate`. */
  waitForRequest(predicate: (request: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  stop(): Promise<void>;
}

export async function startHttpAsset(options: { port?: number } = {}): Promise<HttpAsset> {
  const port = options.port ?? (await freePort());
  const waiters: { predicate: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = [];
  const asset: HttpAsset = {
    url: `http://127.0.0.1:${port}`,
    port,
    documents: new Map(),
    requests: [],
    waitForRequest(predicate, timeoutMs = 10_000) {
      const found = asset.requests.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no matching request within ${timeoutMs} ms; got ${asset.requests.map((r) => `${r.method} ${r.path}`).join(", ")}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({ predicate, resolve: (r) => (clearTimeout(timer), resolve(r)) });
      });
    },
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const respond = (response: ServerResponse, answer: HttpAnswer) => {
    response.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
    response.end(answer.body ?? "");
  };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const recorded: RecordedRequest = {
        method: request.method ?? "GET",
        path: request.url ?? "/",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      asset.requests.push(recorded);
      for (const waiter of waiters.splice(0)) {
        if (waiter.predicate(recorded)) waiter.resolve(recorded);
        else waiters.push(waiter);
      }
      const custom = await asset.handle?.(recorded);
      if (custom) return respond(response, custom);
      if (recorded.method === "GET") {
        if (!asset.documents.has(recorded.path))
          return respond(response, { status: 404, body: '{"error":"not found"}' });
        return respond(response, { status: 200, body: JSON.stringify(asset.documents.get(recorded.path)) });
      }
      try {
        asset.documents.set(recorded.path, JSON.parse(recorded.body));
        respond(response, { status: 204 });
      } catch {
        respond(response, { status: 400, body: '{"error":"not JSON"}' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return asset;
}

export const DRIVE_SUBMODEL_ID = "urn:twinport:test:submodel:drive";

const property = (idShort: string, valueType: string, value?: string) => ({
  modelType: "Property",
  idShort,
  valueType,
  ...(value === undefined ? {} : { value }),
});

/** A model whose elements the test assets feed: the Drive submodel, with a shell that references it. */
export const ASSET_TEST_MODEL = {
  assetAdministrationShells: [
    {
      modelType: "AssetAdministrationShell",
      id: "urn:twinport:test:aas:drive",
      idShort: "DriveShell",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:twinport:test:asset:drive" },
      submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: DRIVE_SUBMODEL_ID }] }],
    },
  ],
  submodels: [
    {
      modelType: "Submodel",
      id: DRIVE_SUBMODEL_ID,
      idShort: "Drive",
      submodelElements: [
        property("Temperature", "xs:double", "0"),
        property("Setpoint", "xs:int", "1"),
        property("Label", "xs:string"),
        property("BigCounter", "xs:long", "0"),
        property("Position2", "xs:double", "0"),
        {
          modelType: "SubmodelElementCollection",
          idShort: "Status",
          value: [property("Mode", "xs:string", "off"), property("Speed", "xs:int", "0")],
        },
        {
          modelType: "Operation",
          idShort: "Calibrate",
          inputVariables: [{ value: property("Offset", "xs:double") }, { value: property("Cycles", "xs:int", "1") }],
          outputVariables: [{ value: property("Deviation", "xs:double") }],
        },
      ],
    },
  ],
};
