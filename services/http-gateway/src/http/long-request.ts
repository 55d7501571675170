import type { ExecuteOptions } from "@twinport/shared";

/**
 * Commands that move whole files or models (imports, packages, serialization, attachments) get
 * more time than the bus's default request timeout: a large AASX is read, checked and written in
 * the store, and over NATS it travels in chunks both ways. So does any write whose body reaches
 * LONG_BODY_BYTES (a submodel, an element, a Blob's value): a 41 MB submodel PUT took the store
 * longer than the default 5 s, answered 504, and, repeated, was refused for its spent deadline
 * again and again, so it could never be written.
 */
export const LONG_REQUEST_MS = 120_000;

/** From this many bytes of request body on, a command gets LONG_REQUEST_MS. */
export const LONG_BODY_BYTES = 1024 * 1024;

export function longRequest(): ExecuteOptions {
  return { deadline: Date.now() + LONG_REQUEST_MS };
}
