import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";

export interface AssetHttpClientOptions {
  baseUrl: string;
  /** Sent with every request; a request's own headers of the same name win (case-sensitive, as FA³ST). */
  headers: Record<string, string>;
  username?: string;
  password?: string;
  /** PEM certificates trusted besides the usual CAs (self-signed assets). */
  trustedCertificates?: string[];
  /** Mutual TLS: the key and certificate chain (PEM) shown when an HTTPS asset asks for one. */
  clientCertificate?: { key: string; cert: string[] };
}

export interface AssetHttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  url: URL;
}

export interface AssetRequest {
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface AssetHttpClient {
  /** FA³ST v1.3.0's rule: `path` resolved against `baseUrl` like a relative link. */
  resolve(path: string): URL;
  request(method: string, target: string | URL, options?: AssetRequest): Promise<AssetHttpResponse>;
  close(): void;
}

export class AssetHttpError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "AssetHttpError";
  }
}

/** An asset answer larger than this is refused rather than buffered (values are small). */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * The HTTP client of one asset connection: keep-alive agents, the connection's headers and
 * credentials, `Content-Type: application/json` on every request (FA³ST sets it from `format`,
 * GET included), no redirects followed (as FA³ST).
 *
 * Credentials: FA³ST's Java client sends Basic auth only in answer to a 401 challenge. We do the
 * same on the first 401, then send them up front, so a polled asset is not asked twice per poll.
 */
export function createAssetHttpClient(options: AssetHttpClientOptions): AssetHttpClient {
  const base = new URL(options.baseUrl);
  const httpAgent = new HttpAgent({ keepAlive: true });
  const httpsAgent = new HttpsAgent({
    keepAlive: true,
    ...(options.trustedCertificates?.length ? { ca: [...rootCertificates, ...options.trustedCertificates] } : {}),
    ...(options.clientCertificate ? { key: options.clientCertificate.key, cert: options.clientCertificate.cert } : {}),
  });
  const credentials = options.username?.trim()
    ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ""}`).toString("base64")}`
    : undefined;
  let sendCredentials = false;

  const once = (method: string, url: URL, request: AssetRequest, withCredentials: boolean) =>
    new Promise<AssetHttpResponse>((resolve, reject) => {
      const headers: Record<string, string> = { ...options.headers, ...request.headers };
      if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type"))
        headers["Content-Type"] = "application/json";
      if (withCredentials && credentials) headers.Authorization = credentials;
      const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
      if (body) headers["Content-Length"] = String(body.length);
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(
        url,
        { method, headers, agent: url.protocol === "https:" ? httpsAgent : httpAgent, signal: request.signal },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES)
              req.destroy(new AssetHttpError(`the asset's answer from ${url} exceeds ${MAX_RESPONSE_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString("utf8"),
              url,
            }),
          );
          res.on("error", reject);
        },
      );
      if (request.timeoutMs !== undefined) {
        req.setTimeout(request.timeoutMs, () =>
          req.destroy(new AssetHttpError(`no answer from ${url} within ${request.timeoutMs} ms`)),
        );
      }
      req.on("error", (error) =>
        reject(error.name === "AbortError" ? new AssetHttpError(`request to ${url} aborted`) : error),
      );
      req.end(body);
    });

  return {
    resolve: (path) => new URL(path, base),
    async request(method, target, request = {}) {
      const url = typeof target === "string" ? new URL(target, base) : target;
      const response = await once(method, url, request, sendCredentials);
      if (
        response.status === 401 &&
        credentials &&
        !sendCredentials &&
        /^\s*basic/i.test(String(response.headers["www-authenticate"] ?? ""))
      ) {
        sendCredentials = true;
        return once(method, url, request, true);
      }
      return response;
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/** A 2xx answer, or an error naming the status and the start of the body. */
export function expectSuccess(response: AssetHttpResponse, what: string): AssetHttpResponse {
  if (response.status >= 200 && response.status < 300) return response;
  const excerpt = response.body.length > 200 ? `${response.body.slice(0, 200)}…` : response.body;
  throw new AssetHttpError(
    `${what} ${response.url} answered ${response.status}${excerpt ? `: ${excerpt}` : ""}`,
    response.status,
  );
}

/** FA³ST main joins base and path with exactly one "/" (the base path is kept); v1.3.0 resolves like a link. */
export function mainBranchUrl(baseUrl: string, path: string): string {
  if (path === "") return baseUrl;
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return path;
  return `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
