/**
 * The console's only way to the server: Twinport's public HTTP API on the same origin, with the
 * bearer token when the person gave one. A 401 asks for a token (token.ts); every error carries the
 * messages of the AAS Result body, which the views show as they are.
 */
import { askForToken, currentToken } from "./token.ts";

export const API = "/api/v3.0";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** base64url without padding, of the UTF-8 bytes (AAS Part 2 identifiers in paths). */
export function b64(id: string): string {
  const bytes = new TextEncoder().encode(id);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** An idShortPath as one path segment ("Tags[0]" → "Tags%5B0%5D"). */
export function pathSegment(idShortPath: string): string {
  return encodeURIComponent(idShortPath);
}

export function authHeaders(headers: HeadersInit = {}): Headers {
  const result = new Headers(headers);
  const token = currentToken();
  if (token) result.set("Authorization", `Bearer ${token}`);
  return result;
}

/** The text of a Result body ({"messages":[{"text":…}]}), or the status line. */
async function errorOf(response: Response): Promise<ApiError> {
  let text = `${response.status} ${response.statusText}`.trim();
  try {
    const body = await response.json();
    const messages = (body?.messages ?? []) as { text?: string }[];
    const texts = messages.map((m) => m.text).filter((t): t is string => typeof t === "string" && t !== "");
    if (texts.length > 0) text = texts.join("; ");
  } catch {
    // Not a Result body (a proxy's page, an empty answer): the status says what we know.
  }
  if (response.status === 401) askForToken(text);
  if (response.status === 403) text = `Not allowed: ${text}`;
  return new ApiError(response.status, text);
}

/** fetch below /api/v3.0 with the token; a non-2xx answer throws an ApiError. */
export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${API}${path}`, { ...init, headers: authHeaders(init.headers) });
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await request(path, { headers: { Accept: "application/json" } })).json() as Promise<T>;
}

/** Every item of a paged list (GET /shells, /concept-descriptions, …), following the cursor. */
export async function getAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const page = await getJson<{ result: T[]; paging_metadata?: { cursor?: string } }>(
      cursor === undefined ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`,
    );
    items.push(...page.result);
    cursor = page.paging_metadata?.cursor;
  } while (cursor);
  return items;
}

/** Hands a response body to the browser as a file download. */
export async function saveResponse(response: Response, fileName: string): Promise<void> {
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
