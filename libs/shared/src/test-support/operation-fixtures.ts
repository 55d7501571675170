import type { ElementJson } from "../aas/index.ts";
import type {
  MutableOperationProviderRegistry,
  OperationInvocation,
  OperationProvider,
} from "../engine/ports/index.ts";

/**
 * A submodel of Operations and the in-process providers that run them, for tests of the invocation
 * lifecycle (engine suites and the black-box suites, whose test launcher registers the same
 * providers in the process that runs the engine). Nothing here is reachable from production code.
 */

export const OPERATIONS_SUBMODEL_ID = "urn:twinport:test:operations";

const property = (idShort: string, valueType: string, value?: string): ElementJson => ({
  modelType: "Property",
  idShort,
  valueType,
  ...(value !== undefined ? { value } : {}),
});
const variables = (...elements: ElementJson[]) => elements.map((value) => ({ value }));
const operation = (
  idShort: string,
  io: { input?: ElementJson[]; output?: ElementJson[]; inoutput?: ElementJson[] },
): ElementJson => ({
  modelType: "Operation",
  idShort,
  ...(io.input ? { inputVariables: variables(...io.input) } : {}),
  ...(io.output ? { outputVariables: variables(...io.output) } : {}),
  ...(io.inoutput ? { inoutputVariables: variables(...io.inoutput) } : {}),
});

/**
 * - Add: sum = a + b (b declared with value 7: the default when left out), counter += 1 (in-out);
 *   big = a as xs:long with 19 digits appended, to see that ValueOnly numbers keep their digits.
 * - Slow: answers done = true after `delayMs`, or rejects as soon as it is aborted.
 * - Fail: the provider throws. Refuse: the provider reports success false with a message.
 * - BadOutput: answers an output of the wrong valueType. NoProvider: nothing is registered.
 * - Folder.Echo: an Operation inside a collection; echoes `text` into `echo`.
 */
export function operationsSubmodel(): Record<string, unknown> {
  return {
    modelType: "Submodel",
    id: OPERATIONS_SUBMODEL_ID,
    idShort: "TestOperations",
    submodelElements: [
      operation("Add", {
        input: [property("a", "xs:int"), property("b", "xs:int", "7")],
        output: [property("sum", "xs:int"), property("big", "xs:long")],
        inoutput: [property("counter", "xs:int", "0")],
      }),
      operation("Slow", { input: [property("delayMs", "xs:int", "0")], output: [property("done", "xs:boolean")] }),
      operation("Fail", {}),
      operation("Refuse", {}),
      operation("BadOutput", { output: [property("n", "xs:int")] }),
      operation("NoProvider", { input: [property("x", "xs:string")] }),
      property("NotAnOperation", "xs:string", "just a value"),
      {
        modelType: "SubmodelElementCollection",
        idShort: "Folder",
        value: [operation("Echo", { input: [property("text", "xs:string")], output: [property("echo", "xs:string")] })],
      },
    ],
  };
}

/** What the providers saw, for tests that run in the same process. */
export interface ProviderObservations {
  calls: OperationInvocation[];
  /** Invocations whose AbortSignal fired (Slow only: it is the one that waits). */
  aborted: OperationInvocation[];
}

function valueOf(elements: ElementJson[], idShort: string): string | undefined {
  return elements.find((e) => e.idShort === idShort)?.value as string | undefined;
}

export function registerTestOperationProviders(
  registry: MutableOperationProviderRegistry,
  submodelId = OPERATIONS_SUBMODEL_ID,
): { observations: ProviderObservations; dispose(): void } {
  const observations: ProviderObservations = { calls: [], aborted: [] };
  const observed = (provider: OperationProvider): OperationProvider => ({
    invoke(request) {
      observations.calls.push(request);
      return provider.invoke(request);
    },
  });
  const providers: Record<string, OperationProvider> = {
    Add: {
      async invoke({ inputArguments, inoutputArguments }) {
        const a = BigInt(valueOf(inputArguments, "a") ?? "0");
        const b = BigInt(valueOf(inputArguments, "b") ?? "0");
        const counter = BigInt(valueOf(inoutputArguments, "counter") ?? "0");
        return {
          outputArguments: [
            property("sum", "xs:int", String(a + b)),
            property("big", "xs:long", `${a}${"0".repeat(17)}1`),
          ],
          inoutputArguments: [property("counter", "xs:int", String(counter + 1n))],
        };
      },
    },
    Slow: {
      invoke(request) {
        const delay = Number(valueOf(request.inputArguments, "delayMs") ?? "0");
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve({ outputArguments: [property("done", "xs:boolean", "true")] }), delay);
          request.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            observations.aborted.push(request);
            reject(request.signal.reason);
          });
        });
      },
    },
    Fail: {
      async invoke() {
        throw new Error("the asset refused: overheated");
      },
    },
    Refuse: {
      async invoke() {
        return { success: false, messages: [{ messageType: "Error", text: "the asset is busy", code: "BUSY" }] };
      },
    },
    BadOutput: {
      async invoke() {
        return { outputArguments: [property("n", "xs:string", "not a number")] };
      },
    },
    "Folder.Echo": {
      async invoke({ inputArguments }) {
        return { outputArguments: [property("echo", "xs:string", valueOf(inputArguments, "text"))] };
      },
    },
  };
  const disposers = Object.entries(providers).map(([path, provider]) =>
    registry.register(submodelId, path, observed(provider)),
  );
  return { observations, dispose: () => disposers.forEach((dispose) => dispose()) };
}
