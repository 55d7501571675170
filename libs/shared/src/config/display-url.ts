/** A URL for logs and the ready line: credentials removed (redis://:secret@host → redis://***@host). */
export function displayUrl(url: string): string {
  return url.split(",").map(withoutCredentials).join(",");
}

/**
 * Everything between the scheme's `//` (or the start) and the last `@` is userinfo: also where the
 * scheme is mistyped (`redis//user:pw@host`) or missing (`user:pw@host`), and where a password
 * holds a `/` or `@` of its own.
 */
function withoutCredentials(url: string): string {
  const one = withoutSecretParameters(url.trim());
  const at = one.lastIndexOf("@");
  if (at < 0) return one;
  const slashes = one.indexOf("//");
  const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
  return `${one.slice(0, start)}***${one.slice(at)}`;
}

/**
 * Credentials given as query parameters (`/run/redis.sock?password=…`, the one way to give a Unix
 * socket's password; `?token=` for NATS) were printed in the banner and every retry line.
 */
function withoutSecretParameters(url: string): string {
  return url.replace(/([?&](?:password|pass|pwd|token|auth|secret)=)[^&#]*/gi, "$1***");
}
