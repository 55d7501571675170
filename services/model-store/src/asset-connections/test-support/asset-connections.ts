// Test support for the asset-connection tests beside the code (not exported by the package).
import {
  type AssetConnectionConfig,
  type ChangeEvent,
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createMemoryRepository,
  createOperationProviderRegistry,
  type ElementJson,
  type EventBus,
  type MutableOperationProviderRegistry,
  type StoreClient,
  validateConfig,
} from "@twinport/shared";

export interface TestStore {
  store: StoreClient;
  bus: EventBus;
  registry: MutableOperationProviderRegistry;
  events: ChangeEvent[];
  /** The element as stored now. */
  element(submodelId: string, idShortPath: string): Promise<ElementJson>;
  /** Polls until `check` holds for the element (or fails naming what it last saw). */
  waitForElement(
    submodelId: string,
    idShortPath: string,
    check: (element: ElementJson) => boolean,
    timeoutMs?: number,
  ): Promise<ElementJson>;
  close(): Promise<void>;
}

/**
 * The engine on a memory repository with the in-process bus, loaded with `model`: embedded mode in
 * miniature. `resetHooks`: the engine's array, for components that take part in /reset.
 */
export async function startTestStore(
  model: unknown,
  options: { resetHooks?: (() => Promise<void>)[] } = {},
): Promise<TestStore> {
  const repository = createMemoryRepository();
  const bus = createInProcessEventBus();
  const registry = createOperationProviderRegistry();
  const engine = createEngine({ repository, bus, operationProviders: registry, resetHooks: options.resetHooks });
  const store = createDirectStoreClient(engine);
  const loaded = await store.execute({ type: "LoadEnvironment", params: { body: JSON.stringify(model) } });
  if (!loaded.ok) throw new Error(`model: ${loaded.error.message} ${loaded.error.details?.join("; ") ?? ""}`);
  const events: ChangeEvent[] = [];
  const subscription = await bus.subscribe({ onEvent: (event) => void events.push(event) });
  const element = async (submodelId: string, idShortPath: string) => {
    const reply = await store.execute({ type: "GetSubmodelElementByPath", params: { submodelId, idShortPath } });
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.value as ElementJson;
  };
  return {
    store,
    bus,
    registry,
    events,
    element,
    async waitForElement(submodelId, idShortPath, check, timeoutMs = 8000) {
      const until = Date.now() + timeoutMs;
      let last: ElementJson | undefined;
      while (Date.now() < until) {
        last = await element(submodelId, idShortPath);
        if (check(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(
        `${idShortPath} did not reach the expected state within ${timeoutMs} ms; last: ${JSON.stringify(last)}`,
      );
    },
    async close() {
      await subscription.unsubscribe();
      await store.close();
      await engine.close();
      await bus.close();
      await repository.close();
    },
  };
}

/** Asset connections as the configuration loader leaves them (defaults applied, class names reduced). */
export function assetConnectionsConfig(...connections: unknown[]): AssetConnectionConfig[] {
  return validateConfig({
    persistence: { "@class": "persistence.memory.PersistenceInMemory" },
    messageBus: { "@class": "messagebus.internal.MessageBusInternal" },
    fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
    assetConnections: connections,
  }).assetConnections;
}

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
