/**
 * Test support: an opcua-gateway on the real engine with a memory repository and the in-process
 * bus (embedded mode's wiring), a model loaded, its own temp PKI folders, and a real OPC UA client.
 * Set XDG_CONFIG_HOME before importing node-opcua elsewhere in the test if it must stay empty.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningOpcuaGateway, startOpcuaGateway } from "@twinport/opcua-gateway";
import {
  type ChangeEvent,
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createMemoryRepository,
  type EventBus,
  loadConfig,
  type OpcUaEndpointConfig,
  type StoreClient,
} from "@twinport/shared";
import { connectOpcua, type OpcuaTestClient } from "./opcua-client.ts";
import { freePort } from "./servers.ts";

export interface InProcessGateway {
  store: StoreClient;
  /** The bus the gateways listen to (events pass `relay` on their way from the engine). */
  bus: EventBus;
  /** Starts (another) gateway on the same store; stopped by stop(). */
  startGateway(overrides?: string[]): Promise<RunningOpcuaGateway>;
  connect(gateway: RunningOpcuaGateway): Promise<OpcuaTestClient>;
  log: string[];
  stop(): Promise<void>;
}

export interface InProcessGatewayOptions {
  /**
   * Between the engine's bus and the gateways' bus: return the event to deliver (possibly changed)
   * or undefined to lose it, as a message bus can.
   */
  relay?: (event: ChangeEvent) => ChangeEvent | undefined;
}

export async function startInProcessGateway(
  model: unknown,
  options: InProcessGatewayOptions = {},
): Promise<InProcessGateway> {
  const dir = mkdtempSync(join(tmpdir(), "twinport-opcua-test-"));
  const engineBus = createInProcessEventBus();
  const bus = createInProcessEventBus();
  const relay = options.relay ?? ((event: ChangeEvent) => event);
  await engineBus.subscribe({
    onEvent: (event) => {
      const delivered = relay(event);
      if (delivered) void bus.publish(delivered);
    },
    onHeartbeat: (heartbeat) => void bus.publishHeartbeat(heartbeat),
  });
  const engine = createEngine({ repository: createMemoryRepository(), bus: engineBus });
  const store = createDirectStoreClient(engine);
  const loaded = await store.execute({
    type: "LoadEnvironment",
    params: { body: JSON.stringify(model), validate: true },
  });
  if (!loaded.ok) throw new Error(`test model did not load: ${loaded.error.message}`);
  const log: string[] = [];
  const gateways: RunningOpcuaGateway[] = [];
  const clients: OpcuaTestClient[] = [];
  return {
    store,
    bus,
    log,
    async startGateway(overrides = []) {
      const port = await freePort();
      const { config } = loadConfig({
        role: "opcua-gateway",
        endpointKinds: ["opcua"],
        overrides: [
          `endpoints[0].tcpPort=${port}`,
          "endpoints[0].host=127.0.0.1",
          "endpoints[0].hostname=127.0.0.1",
          "endpoints[0].secondsTillShutdown=0",
          `endpoints[0].serverCertificateBasePath=${join(dir, "PKI", "CA")}`,
          `endpoints[0].userCertificateBasePath=${join(dir, "USERS_PKI", "CA")}`,
          ...overrides,
        ],
      });
      const gateway = await startOpcuaGateway({
        store,
        bus,
        endpoint: config.endpoints[0] as OpcUaEndpointConfig,
        stateDir: dir,
        log: (line) => log.push(line),
      });
      gateways.push(gateway);
      return gateway;
    },
    async connect(gateway) {
      const client = await connectOpcua(gateway.endpointUrl, dir);
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) await client.close().catch(() => undefined);
      for (const gateway of gateways) await gateway.stop();
      await store.close();
      await engine.close();
      await engineBus.close();
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
