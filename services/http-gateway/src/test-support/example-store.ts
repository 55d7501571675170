import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type ChangeEvent,
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createMemoryRepository,
  encodeBase64Url,
  type StoreClient,
} from "@twinport/shared";

/** Test support: the real engine on a memory repository, loaded with examples/model.json. */
export const EXAMPLE_MODEL_TEXT = readFileSync(
  fileURLToPath(new URL("../../../../examples/model.json", import.meta.url)),
  "utf8",
);

export interface ExampleStore {
  store: StoreClient;
  /** Every change event the engine published, in order. */
  events: ChangeEvent[];
  close(): Promise<void>;
}

export async function exampleStore(options: { load?: boolean } = {}): Promise<ExampleStore> {
  const repository = createMemoryRepository();
  const bus = createInProcessEventBus();
  const engine = createEngine({ repository, bus });
  const store = createDirectStoreClient(engine);
  if (options.load !== false) {
    const reply = await store.execute({ type: "LoadEnvironment", params: { body: EXAMPLE_MODEL_TEXT } });
    if (!reply.ok) throw new Error(`example model did not load: ${reply.error.message}`);
  }
  const events: ChangeEvent[] = [];
  const subscription = await bus.subscribe({ onEvent: (event) => events.push(event) });
  return {
    store,
    events,
    async close() {
      await subscription.unsubscribe();
      await store.close();
      await engine.close();
      await bus.close();
      await repository.close();
    },
  };
}

export const b64 = encodeBase64Url;

export const SHELL_1 = "https://example.org/aas/test-1";
export const SUBMODEL_1 = "https://example.org/submodels/technical-data-1";
export const SUBMODEL_2 = "https://example.org/submodels/technical-data-2";
