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
    const incoming = incomingMessageOf(c);
    const servername = serverNameOf(incoming?.socket);
    if (servername) {
      const host = hostnameOf(authorityOf(incoming?.url) ?? c.req.header("Host") ?? "");
      if (host !== hostnameOf(servername))
        throw badRequest(`Host "${echoed(host)}" does not match the TLS server name "${servername}" (sniEnabled)`);
    }
    await next();
  };
}

/** Whether sniHostCheck lets this request pass (hot-value-route.ts hands the others on). */
export function sniHostMatches(socket: Socket | undefined, hostHeader: string | undefined): boolean {
  const servername = serverNameOf(socket);
  return !servername || hostnameOf(hostHeader ?? "") === hostnameOf(servername);
}

/**
 * The authority of an absolute-form request target (`GET https://host/… HTTP/1.1`): RFC 9112
 * §3.2.2 has the server use it and ignore Host. Undefined for the usual origin form (`/api/…`).
 */
function authorityOf(target: string | undefined): string | undefined {
  if (target === undefined || target.startsWith("/") || !/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return undefined;
  try {
    return new URL(target).host;
  } catch {
    return undefined;
  }
}

function serverNameOf(socket: Socket | undefined): string | undefined {
  const servername = (socket as TLSSocket | undefined)?.servername;
  return typeof servername === "string" ? servername : undefined;
}

/** The host name, in lower case and without the trailing dot of a fully qualified name (`localhost.`): SNI never carries it (RFC 6066 §3). */
function hostnameOf(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]"));
  const colon = host.lastIndexOf(":");
  const name = colon === -1 ? host : host.slice(0, colon);
  return name.endsWith(".") ? name.slice(0, -1) : name;
}
