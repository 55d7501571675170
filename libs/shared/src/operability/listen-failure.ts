/**
 * Why a server could not bind, and whether the port or the host setting is to blame: one reading for
 * the management port, the HTTP and the OPC UA endpoints, which each name their own setting.
 * node-opcua wraps the socket error in its own, so the code is also looked for in the message.
 */
export interface ListenFailure {
  code: string;
  /** "the port is already in use", … */
  reason: string;
  /** The setting to change. */
  blame: "port" | "host";
}

export function listenFailureOf(error: unknown, host: string): ListenFailure | undefined {
  const cause = error as NodeJS.ErrnoException | undefined;
  const text = cause?.message ?? String(error);
  const code = cause?.code ?? /\b(EADDRINUSE|EACCES|ENOTFOUND|EAI_AGAIN|EADDRNOTAVAIL)\b/.exec(text)?.[1];
  switch (code) {
    case "EADDRINUSE":
      return { code, reason: "the port is already in use", blame: "port" };
    case "EACCES":
      return { code, reason: "ports below 1024 need privileges", blame: "port" };
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return { code, reason: `the host name '${host}' does not resolve (${text})`, blame: "host" };
    case "EADDRNOTAVAIL":
      return { code, reason: "the address is not available on this machine", blame: "host" };
    default:
      return undefined;
  }
}
