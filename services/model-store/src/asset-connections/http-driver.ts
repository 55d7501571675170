import {
  type HttpAssetConnectionConfig,
  type ProviderTarget,
  type StoreClient,
  stringifyLossless,
} from "@twinport/shared";
import {
  type AssetConnectionDriver,
  type AssetReading,
  type ProviderConfigs,
  type ReadSource,
} from "./asset-connection-types.ts";
import { propertyLexical, valueOnlyBodyFromJson, valueOnlyJson } from "./asset-value.ts";
import { type AssetHttpClient, createAssetHttpClient, expectSuccess, mainBranchUrl } from "./http-client.ts";
import { createHttpOperationProvider } from "./http-operation.ts";
import { extractValue, httpAssetError } from "./http-payload.ts";
import { compileJsonPath } from "./json-path.ts";
import { fillTemplate } from "./payload-template.ts";

type HttpConfigs = Extract<ProviderConfigs, { kind: "http" }>;

export interface HttpDriverOptions {
  config: HttpAssetConnectionConfig;
  /** Extra trusted certificates (PEM), read from `trustedCertificates` by the caller. */
  trustedCertificates?: string[];
  /** Key and chain (PEM) shown to an HTTPS asset that asks for a client certificate. */
  clientCertificate?: { key: string; cert: string[] };
  /** Bounds each read (core.assetConnectionReadTimeout). */
  readTimeoutMs: number;
  /** Reads Operation declarations for operation providers. */
  store: StoreClient;
  log: (line: string) => void;
}

function jsonReading(value: unknown, text: string): AssetReading {
  return { key: text, bodyFor: (element) => valueOnlyBodyFromJson(element, value) };
}

/**
 * HTTP asset connection (docs/reference/faaast-asset-connections.md §3). "Connecting" only makes the client, as in
 * FA³ST: an unreachable asset shows up per request, and polling simply keeps trying.
 */
export function createHttpDriver(options: HttpDriverOptions): AssetConnectionDriver<HttpConfigs> {
  const { config, readTimeoutMs, log } = options;
  let client: AssetHttpClient | undefined;
  // "connected" is said once, when the asset first answered a request with success.
  let answered = false;
  const reporting = (inner: AssetHttpClient): AssetHttpClient => ({
    resolve: (path) => inner.resolve(path),
    close: () => inner.close(),
    async request(method, target, requestOptions) {
      const response = await inner.request(method, target, requestOptions);
      if (!answered && response.status >= 200 && response.status < 300) {
        answered = true;
        log(`connected to ${config.baseUrl} (${method} ${response.url.href} answered ${response.status})`);
      }
      return response;
    },
  });
  const http = () =>
    (client ??= reporting(
      createAssetHttpClient({
        baseUrl: config.baseUrl,
        headers: config.headers,
        username: config.username,
        password: config.password,
        trustedCertificates: options.trustedCertificates,
        clientCertificate: options.clientCertificate,
      }),
    ));
  const warned = new Set<string>();
  const urlOf = (path: string) => {
    const url = http().resolve(path);
    const joined = mainBranchUrl(config.baseUrl, path);
    if (joined !== url.href && !warned.has(path)) {
      warned.add(path);
      log(
        `path "${path}" resolves to ${url.href} (FA³ST v1.3.0's rule, a relative link); FA³ST's newer versions would use ${joined}: write the path so both agree`,
      );
    }
    return url;
  };

  const get = async (path: string, headers: Record<string, string>, signal?: AbortSignal) => {
    const url = urlOf(path);
    try {
      return expectSuccess(await http().request("GET", url, { headers, timeoutMs: readTimeoutMs, signal }), "GET").body;
    } catch (error) {
      throw httpAssetError(error, `GET ${url}`);
    }
  };

  const pollSource = (
    path: string,
    query: string | undefined,
    headers: Record<string, string>,
    intervalMs: number,
  ): ReadSource => {
    const compiled = query?.trim() ? compileJsonPath(query) : undefined;
    return {
      mode: "poll",
      intervalMs,
      async read(signal) {
        const body = await get(path, headers, signal);
        const value = extractValue(body, compiled);
        return jsonReading(value, stringifyLossless(value));
      },
    };
  };

  return {
    kind: "http",
    endpoint: config.baseUrl,
    connectsOnFirstRequest: true,
    async connect() {
      http();
    },
    async disconnect() {},
    onLost() {
      // Nothing stays open between requests: there is nothing to lose.
    },
    valueProvider(target: ProviderTarget, provider) {
      const mode = provider.readWriteMode;
      const canRead = mode === "READ" || mode === "READ_WRITE";
      const canWrite = mode === "WRITE" || mode === "READ_WRITE";
      return {
        target,
        ...(canRead
          ? { read: pollSource(provider.path, provider.query, provider.headers, provider.readInterval) }
          : {}),
        ...(canWrite
          ? {
              async write(element) {
                propertyLexical(element); // only Property values are written (FA³ST)
                const template = provider.template?.trim() ? provider.template : "${value}";
                const body = fillTemplate(template, new Map([["value", valueOnlyJson(element)]]));
                const url = urlOf(provider.path);
                try {
                  expectSuccess(
                    await http().request(provider.writeMethod, url, {
                      headers: provider.headers,
                      body,
                      timeoutMs: readTimeoutMs,
                    }),
                    provider.writeMethod,
                  );
                } catch (error) {
                  throw httpAssetError(error, `${provider.writeMethod} ${url}`);
                }
              },
            }
          : {}),
      };
    },
    subscriptionProvider(target, provider) {
      return { target, read: pollSource(provider.path, provider.query, provider.headers, provider.interval) };
    },
    operationProvider(target, provider) {
      return createHttpOperationProvider({ target, config: provider, http, urlOf, store: options.store });
    },
    async close() {
      client?.close();
      client = undefined;
    },
  };
}
