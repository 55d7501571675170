import Negotiator from "negotiator";
import { ApiError } from "./api-error.ts";

/**
 * Accept (RFC 9110 §12.5.1), through jshttp's `negotiator`: the most specific media range decides
 * each offered type's quality, so `application/json;q=0, *\/*;q=0.1` excludes JSON and nothing
 * with q=0 is ever chosen. No Accept (or an empty one) accepts anything.
 */

/** Spellings that name one format: the same representation, whichever of them a client asks for. */
const SYNONYMS: readonly (readonly string[])[] = [
  // RFC 7303 §9.2: text/xml is an alias of application/xml.
  ["application/xml", "text/xml"],
  // The three AASX spellings of the specifications (see model-media-types.ts).
  [
    "application/asset-administration-shell-package+xml",
    "application/asset-administration-shell-package",
    "application/aasx+xml",
  ],
];

/**
 * The offered media type the request prefers (ties: the first offered), or undefined when its
 * Accept excludes every one of them.
 */
export function preferredMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (offered.length === 0) return undefined;
  if (accept === undefined || accept.trim() === "") return offered[0];
  const candidates = offered.map((type) => ({ type, offer: withCharset(type) }));
  const chosen = new Negotiator({ headers: { accept } }).mediaType(candidates.map((candidate) => candidate.offer));
  return candidates.find((candidate) => candidate.offer === chosen)?.type;
}

/**
 * Whether a response of `contentType` (or one of its synonyms) is acceptable to the request. A
 * client sends the same few Accept headers again and again: their answers are remembered.
 */
export function isAcceptable(accept: string | undefined, contentType: string): boolean {
  // Long headers are negotiated each time: the cache stays small whatever clients send.
  if (accept !== undefined && accept.length > 256) return negotiateAcceptable(accept, contentType);
  const key = `${contentType}\u0000${accept ?? ""}`;
  let answer = acceptableCache.get(key);
  if (answer === undefined) {
    answer = negotiateAcceptable(accept, contentType);
    if (acceptableCache.size >= ACCEPTABLE_CACHE_SIZE) acceptableCache.clear();
    acceptableCache.set(key, answer);
  }
  return answer;
}

/**
 * Whether the Accept header names `mediaType` itself with a quality above 0 (a wildcard does not
 * count): for a second type a response may also go as, when the request asks for it by name.
 */
export function namesMediaType(accept: string, mediaType: string): boolean {
  return new Negotiator({ headers: { accept } }).mediaTypes().some((type) => type.toLowerCase() === mediaType);
}

const ACCEPTABLE_CACHE_SIZE = 512;
const acceptableCache = new Map<string, boolean>();

function negotiateAcceptable(accept: string | undefined, contentType: string): boolean {
  const base = baseType(contentType);
  const synonyms = SYNONYMS.find((group) => group.includes(base)) ?? [base];
  return preferredMediaType(accept, [contentType, ...synonyms.filter((type) => type !== base)]) !== undefined;
}

/** 406 with the AAS Result body, naming what could have been sent. */
export function notAcceptable(offered: readonly string[]): ApiError {
  return ApiError.of(
    "not-acceptable",
    `The Accept header excludes every representation offered here: ${offered.join(", ")}`,
  );
}

function baseType(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase();
}

/**
 * The text we write is UTF-8. `negotiator` matches a media range with parameters only to a type
 * with the same parameters, so a plain `application/json` offer would not satisfy
 * `Accept: application/json; charset=utf-8`; offering the charset makes both match.
 */
function withCharset(type: string): string {
  const base = baseType(type);
  const textual = base.startsWith("text/") || /[/+](json|xml)$/.test(base);
  return textual && !/;\s*charset=/i.test(type) ? `${type}; charset=utf-8` : type;
}
