import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { echoed } from "@twinport/shared";
import type { MiddlewareHandler } from "hono";
import { badRequest } from "./api-error.ts";
import { incomingMessageOf } from "./gateway-env.ts";

/**
 * `sniEnabled`: when the client named a server in the TLS handshake (SNI), the Host header must name
 * the same one, so a connection opened for one name cannot be used to send requests for another.
 * Clients that connect by IP address send no SNI and are not affected.
 */
export function sniHostCheck(): MiddlewareHandler {
  return async (c, next) => {
    const servername = serverNameOf(incomingMessageOf(c)?.socket);
    if (servername) {
      const host = hostnameOf(c.req.header("Host") ?? "");
      if (host !== servername.toLowerCase())
        throw badRequest(`Host "${echoed(host)}" does not match the TLS server name "${servername}" (sniEnabled)`);
    }
    await next();
  };
}

/** Whether sniHostCheck lets this request pass (hot-value-route.ts hands the others on). */
export function sniHostMatches(socket: Socket | undefined, hostHeader: string | undefined): boolean {
  const servername = serverNameOf(socket);
  return !servername || hostnameOf(hostHeader ?? "") === servername.toLowerCase();
}

function serverNameOf(socket: Socket | undefined): string | undefined {
  const servername = (socket as TLSSocket | undefined)?.servername;
  return typeof servername === "string" ? servername : undefined;
}

function hostnameOf(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]"));
  const colon = host.lastIndexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}
