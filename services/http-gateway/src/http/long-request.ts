import type { ExecuteOptions } from "@twinport/shared";

/**
 * Commands that move whole files or models (imports, packages, serialization, attachments) get
 * more time than the bus's default request timeout: a large AASX is read, checked and written in
 * the store, and over NATS it travels in chunks both ways.
 */
export const LONG_REQUEST_MS = 120_000;

export function longRequest(): ExecuteOptions {
  return { deadline: Date.now() + LONG_REQUEST_MS };
}
