import type { ElementJson } from "../../aas/index.ts";

/**
 * The seam between the operation lifecycle (engine) and whatever actually runs an Operation: an
 * asset connection's operation provider (HTTP, OPC UA), or a built-in one. The engine owns states,
 * time-outs, handles and events; a provider only does the work once.
 *
 * Arguments are AAS submodel elements in JSON (the `value` of each OperationVariable), matched by
 * idShort against the Operation's declared variables. The engine has already checked them.
 */

/** An AAS Part 2 Message, as providers report it (code, correlationId, timestamp are optional). */
export interface OperationMessage {
  messageType: "Undefined" | "Info" | "Warning" | "Error" | "Exception";
  text: string;
  code?: string;
  correlationId?: string;
  timestamp?: string;
}

export interface OperationInvocation {
  submodelId: string;
  /** idShortPath of the Operation element inside the submodel. */
  idShortPath: string;
  inputArguments: ElementJson[];
  inoutputArguments: ElementJson[];
  /** Aborted when the caller's time-out passed or the store is being reset: stop working, if you can. */
  signal: AbortSignal;
}

export interface OperationOutcome {
  outputArguments?: ElementJson[];
  /** The in-out variables after the call; when absent, the ones passed in come back unchanged. */
  inoutputArguments?: ElementJson[];
  /** false = the execution failed (state Failed, with `messages`). Default: true. */
  success?: boolean;
  messages?: OperationMessage[];
}

export interface OperationProvider {
  /** A rejected promise is a failed execution; its message becomes an Error message of the result. */
  invoke(request: OperationInvocation): Promise<OperationOutcome>;
}

export interface OperationProviderRegistry {
  find(submodelId: string, idShortPath: string): OperationProvider | undefined;
}

/** A registry that components (asset connections, tests) fill at run time. */
export interface MutableOperationProviderRegistry extends OperationProviderRegistry {
  /** Registers (or replaces) the provider of one Operation; call the result to remove it again. */
  register(submodelId: string, idShortPath: string, provider: OperationProvider): () => void;
  unregister(submodelId: string, idShortPath: string): void;
}

export function createOperationProviderRegistry(): MutableOperationProviderRegistry {
  const providers = new Map<string, OperationProvider>();
  // A NUL cannot occur in an identifier that reached us as text, so the pair is unambiguous.
  const key = (submodelId: string, idShortPath: string) => `${submodelId}\u0000${idShortPath}`;
  return {
    find: (submodelId, idShortPath) => providers.get(key(submodelId, idShortPath)),
    register(submodelId, idShortPath, provider) {
      const k = key(submodelId, idShortPath);
      providers.set(k, provider);
      // Removes only what this call registered: a later replacement stays.
      return () => {
        if (providers.get(k) === provider) providers.delete(k);
      };
    },
    unregister(submodelId, idShortPath) {
      providers.delete(key(submodelId, idShortPath));
    },
  };
}
