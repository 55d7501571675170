/**
 * A small HTTP(S) client for black-box tests: real sockets, keep-alive, and trust in the server's
 * self-signed certificate (Node 20's fetch cannot take a CA without the undici package).
 */
import http from "node:http";
import https from "node:https";

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body as received (binary bodies: `text` is their UTF-8 reading). */
  bytes?: Buffer;
  json(): any;
}

export interface HttpClient {
  baseUrl: string;
  request(
    method: string,
    path: string,
    options?: { body?: string | Buffer; headers?: Record<string, string> },
  ): Promise<HttpResponse>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResponse>;
  close(): void;
}

/** `cert`/`key`: a client certificate (PEM) presented in the TLS handshake (mutual TLS). */
export function createHttpClient(
  baseUrl: string,
  options: { ca?: string; cert?: string; key?: string } = {},
): HttpClient {
  const url = new URL(baseUrl);
  const secure = url.protocol === "https:";
  const agent = secure
    ? new https.Agent({
        keepAlive: true,
        maxSockets: 64,
        ca: options.ca,
        rejectUnauthorized: options.ca !== undefined,
        cert: options.cert,
        key: options.key,
      })
    : new http.Agent({ keepAlive: true, maxSockets: 64 });
  const request: HttpClient["request"] = (method, path, opts = {}) =>
    new Promise((resolve, reject) => {
      const target = new URL(url.pathname.replace(/\/$/, "") + path, url);
      const body =
        opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
      const headers: Record<string, string> = {
        ...(body ? { "content-type": "application/json", "content-length": String(body.length) } : {}),
        ...opts.headers,
      };
      const req = (secure ? https : http).request(target, { method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json: () => JSON.parse(text) });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.end(body);
    });
  return {
    baseUrl,
    request,
    get: (path, headers) => request("GET", path, { headers }),
    close: () => agent.destroy(),
  };
}

/** base64url of an identifier, unpadded, as the API wants it in paths. */
export function b64(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}
