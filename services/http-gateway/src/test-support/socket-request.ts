import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { type Agent, request as httpsRequest } from "node:https";
import type { TLSSocket } from "node:tls";

export interface SocketAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaderNames: string[];
  body: string;
  /** SHA-256 fingerprint of the server certificate (HTTPS only). */
  certificateFingerprint?: string;
}

export interface SocketRequest {
  url: string;
  method?: string;
  path: string;
  headers?: Record<string, string | number>;
  /** Sent as-is; an array is sent chunk by chunk (Transfer-Encoding: chunked). */
  body?: string | string[];
  /** Trust anchor for HTTPS (the endpoint's certificate). */
  ca?: string;
  servername?: string;
  agent?: Agent;
  /** Do not end the request: only headers go out (to see the server answer before any body). */
  headersOnly?: boolean;
}

/** Test support: one request over a real socket with node:http(s), answer read completely. */
export function socketRequest(options: SocketRequest): Promise<SocketAnswer> {
  const url = new URL(options.url);
  const secure = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const common = {
      host: url.hostname,
      port: Number(url.port),
      method: options.method ?? "GET",
      path: options.path,
      headers: options.headers,
    };
    const onResponse = (response: import("node:http").IncomingMessage) => {
      const chunks: Buffer[] = [];
      const socket = response.socket as TLSSocket;
      const certificateFingerprint = secure ? socket.getPeerCertificate().fingerprint256 : undefined;
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const rawHeaderNames = response.rawHeaders
          .filter((_, index) => index % 2 === 0)
          .map((name) => name.toLowerCase());
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          rawHeaderNames,
          body: Buffer.concat(chunks).toString("utf8"),
          certificateFingerprint,
        });
      });
      response.on("error", reject);
    };
    const req = secure
      ? httpsRequest(
          {
            ...common,
            ca: options.ca,
            servername: options.servername ?? (url.hostname === "localhost" ? "localhost" : undefined),
            agent: options.agent,
          },
          onResponse,
        )
      : httpRequest(common, onResponse);
    req.on("error", reject);
    if (options.headersOnly) {
      req.flushHeaders();
      return;
    }
    if (Array.isArray(options.body)) {
      for (const chunk of options.body) req.write(chunk);
    } else if (options.body !== undefined) {
      req.write(options.body);
    }
    req.end();
  });
}
