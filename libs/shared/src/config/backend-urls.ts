import { z } from "zod";

/**
 * The URLs of Redis and NATS, checked at start-up. Unchecked, a mistyped one (`redis//…`, `http://…`)
 * was taken by ioredis for the path of a Unix socket and by nats.js for a host name: the process
 * waited for it forever and logged it, password and all, every few seconds (a black-box finding).
 * A URL the clients would not read as meant is now the configuration error it is (exit 2); the
 * message quotes it with its credentials masked (validate-config.ts).
 */

// [user[:password]@]host[:port], host a name, an IPv4 address or a bracketed IPv6 address.
const AUTHORITY = String.raw`(?:[^\s/@]+@)?(?:\[[0-9A-Fa-f:.]+\]|[^\s/@:\[\]]+)(?::\d{1,5})?`;
// A database number of any size (Redis' `databases` can be raised) and ioredis' query options (`?family=6`).
const REDIS_URL = new RegExp(String.raw`^rediss?://${AUTHORITY}(?:/\d+)?/?(?:\?[^\s#]*)?$`);
const NATS_SERVER = new RegExp(String.raw`^(?:(?:nats|tls)://)?${AUTHORITY}/?$`);

/**
 * What the clients' own URL parsing would refuse later with a bare "Invalid URL" or "URI malformed"
 * and exit 1 (a black-box finding): a port outside 1–65535, a user or password that is not
 * URL-encoded (`%zz`, a raw `?` or `#`).
 */
function parsesAsUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value.includes("://") ? value : `nats://${value}`);
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return false;
  }
  return url.port === "" || Number(url.port) > 0;
}

/** persistence.url: redis:// or rediss:// (TLS), with an optional database number, or a Unix socket's absolute path. */
export const redisUrlSchema = z
  .string()
  .min(1)
  .superRefine((value, context) => {
    if ((REDIS_URL.test(value) && parsesAsUrl(value)) || /^\/\S+$/.test(value)) return;
    context.addIssue({
      code: "custom",
      message:
        "not a Redis URL: redis://[user:password@]host[:port][/db], rediss://… for TLS, or the absolute path of a Unix socket",
    });
  });

/** messageBus.url: one NATS server or several, comma-separated, each nats://, tls:// or host:port. */
export const natsUrlSchema = z
  .string()
  .min(1)
  .superRefine((value, context) => {
    const servers = value.split(",").map((one) => one.trim());
    if (servers.every((one) => NATS_SERVER.test(one) && parsesAsUrl(one))) return;
    context.addIssue({
      code: "custom",
      message:
        "not a NATS URL: nats://[user:password@|token@]host[:port], tls://… for TLS, or several of them separated by commas",
    });
  });
