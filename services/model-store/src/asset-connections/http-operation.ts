import type {
  ElementJson,
  HttpOperationProviderConfig,
  OperationInvocation,
  OperationOutcome,
  OperationProvider,
  ProviderTarget,
  StoreClient,
} from "@twinport/shared";
import { AssetError } from "./asset-connection-types.ts";
import { scalarText, valueOnlyJson, withAssetValue } from "./asset-value.ts";
import { type AssetHttpClient, type AssetHttpResponse, expectSuccess } from "./http-client.ts";
import { extractValue, httpAssetError } from "./http-payload.ts";
import { compileJsonPath, type JsonPath } from "./json-path.ts";
import { readDeclaration, validateArguments } from "./operation-arguments.ts";
import { fillTemplate } from "./payload-template.ts";

export interface HttpOperationOptions {
  target: ProviderTarget;
  config: HttpOperationProviderConfig;
  http: () => AssetHttpClient;
  urlOf: (path: string) => URL;
  store: StoreClient;
}

const FINISHED_BADLY = new Set(["Failed", "Canceled", "Timeout"]);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new AssetError("the invocation was aborted", { retryable: false }));
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(new AssetError("the invocation was aborted", { retryable: false }));
    }
    signal.addEventListener("abort", abort, { once: true });
  });
}

function locationOf(response: AssetHttpResponse, what: string): URL {
  const location = response.headers.location;
  if (!location)
    throw new AssetError(`${what} ${response.url} answered ${response.status} without a Location header`, {
      retryable: false,
    });
  return new URL(location, response.url);
}

/**
 * FA³ST main's ASYNC_AAS mode: the asset itself follows the AAS asynchronous invocation pattern —
 * 202 with Location, a status resource polled until it redirects (302) to the result.
 */
async function invokeAsyncAas(
  http: AssetHttpClient,
  config: HttpOperationProviderConfig,
  url: URL,
  body: string | undefined,
  signal: AbortSignal,
): Promise<string> {
  const started = await http.request(config.method, url, { headers: config.headers, body, signal });
  if (started.status !== 202)
    throw new AssetError(
      `${config.method} ${url} answered ${started.status}; an ASYNC_AAS operation must answer 202 with a Location`,
      { retryable: false },
    );
  let status = locationOf(started, config.method);
  for (let first = true; ; first = false) {
    if (!first) await sleep(config.asyncPollInterval, signal);
    const polled = await http.request("GET", status, { headers: config.headers, signal });
    if (polled.status === 302) {
      status = locationOf(polled, "GET");
      break;
    }
    expectSuccess(polled, "GET");
    const state = String((JSON.parse(polled.body || "{}") as { executionState?: unknown }).executionState ?? "");
    if (FINISHED_BADLY.has(state))
      throw new AssetError(`the asset's operation ended ${state}: ${polled.body.slice(0, 300)}`, { retryable: false });
  }
  const result = await http.request("GET", status, { headers: config.headers, signal });
  if (result.status !== 200)
    throw new AssetError(`GET ${status} (the operation result) answered ${result.status}`, { retryable: false });
  return result.body;
}

/**
 * Reads each output variable from the answer. One that cannot be read (no match for its query, more
 * than one, a value that does not fit its type, a body that is not what the query reads) fails the
 * call, as in FA³ST (docs/reference/faaast-asset-connections.md §2.2): a default in its place made an
 * asset's garbage answer a success.
 */
function answerOutputs(declared: ElementJson[], body: string, queries: Map<string, JsonPath>): ElementJson[] {
  return declared.map((variable) => {
    try {
      return withAssetValue(variable, extractValue(body, queries.get(String(variable.idShort))));
    } catch (error) {
      throw new AssetError(
        `the asset's answer gives no valid value for the output ${String(variable.idShort)}: ${(error as Error).message}`,
        { retryable: false },
      );
    }
  });
}

/** In-out arguments the answer carries; one it does not carry (or not readably) keeps the value sent. */
function answerInoutputs(sent: ElementJson[], body: string, queries: Map<string, JsonPath>): ElementJson[] {
  if (body.trim() === "") return sent;
  return sent.map((argument) => {
    try {
      return withAssetValue(argument, extractValue(body, queries.get(String(argument.idShort))));
    } catch {
      return argument;
    }
  });
}

/**
 * An HTTP operation provider (docs/reference/faaast-asset-connections.md §3.3): one request built from `path`,
 * `method`, `template`; outputs read from the answer with `queries`.
 *
 * Templates: each input and in-out argument fills `${idShort}` as ValueOnly JSON (strings quoted),
 * FA³ST v1.3.0's rule. In the URL path the same placeholder takes the bare text, URL-encoded: v1.3.0
 * put JSON quotes into URLs, which no asset expects. No template: an empty body (FA³ST main; v1.3.0
 * failed whenever the Operation had arguments).
 */
export function createHttpOperationProvider(options: HttpOperationOptions): OperationProvider {
  const { target, config, http, urlOf, store } = options;
  const queries = new Map(Object.entries(config.queries).map(([idShort, query]) => [idShort, compileJsonPath(query)]));
  return {
    async invoke(invocation: OperationInvocation): Promise<OperationOutcome> {
      const declaration = await readDeclaration(store, target);
      const inputs = validateArguments(
        config.inputValidationMode,
        declaration.inputs,
        invocation.inputArguments,
        "input",
      );
      const inoutputs = validateArguments(
        config.inoutputValidationMode,
        declaration.inoutputs,
        invocation.inoutputArguments,
        "in-out",
      );
      const json = new Map<string, string>();
      const bare = new Map<string, string>();
      for (const argument of [...inputs, ...inoutputs]) {
        const idShort = String(argument.idShort);
        if (json.has(idShort))
          throw new AssetError(`${idShort} is both an input and an in-out argument`, { retryable: false });
        const text = valueOnlyJson(argument);
        json.set(idShort, text);
        const scalar =
          argument.modelType === "Property" && typeof argument.value === "string"
            ? scalarText(argument.value)
            : undefined;
        bare.set(idShort, encodeURIComponent(scalar ?? text));
      }
      const url = urlOf(fillTemplate(config.path, bare));
      const body = config.template === undefined ? undefined : fillTemplate(config.template, json);
      let answer: string;
      try {
        answer =
          config.mode === "ASYNC_AAS"
            ? await invokeAsyncAas(http(), config, url, body, invocation.signal)
            : expectSuccess(
                await http().request(config.method, url, { headers: config.headers, body, signal: invocation.signal }),
                config.method,
              ).body;
      } catch (error) {
        throw httpAssetError(error, `${config.method} ${url}`);
      }
      const outputs = validateArguments(
        config.outputValidationMode,
        declaration.outputs,
        answerOutputs(declaration.outputs, answer, queries),
        "output",
      );
      return { outputArguments: outputs, inoutputArguments: answerInoutputs(inoutputs, answer, queries) };
    },
  };
}
