import { parseJsonLossless } from "@twinport/shared";
import { AssetError } from "./asset-connection-types.ts";
import { AssetHttpError } from "./http-client.ts";
import { type JsonPath, queryOne } from "./json-path.ts";

/** Network trouble and 5xx/408/429 are worth retrying; any other status is the asset refusing. */
export function httpAssetError(error: unknown, what: string): AssetError {
  if (error instanceof AssetError) return error;
  const status = error instanceof AssetHttpError ? error.status : undefined;
  const retryable = status === undefined || status >= 500 || status === 408 || status === 429;
  const message = error instanceof AssetHttpError ? error.message : `${what}: ${(error as Error).message}`;
  return new AssetError(message, { retryable, cause: error });
}

/** The value a `query` selects from a JSON payload (no query: the whole payload). */
export function extractValue(body: string, query: JsonPath | undefined): unknown {
  let document: unknown;
  try {
    document = parseJsonLossless(body, { foreign: true });
  } catch (error) {
    throw new AssetError(`the asset's answer is not JSON: ${(error as Error).message}`, { retryable: false });
  }
  if (!query) return document;
  try {
    return queryOne(document, query);
  } catch (error) {
    throw new AssetError((error as Error).message, { retryable: false });
  }
}
