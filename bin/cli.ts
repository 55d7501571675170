// Dispatches `twinport [command] ...` to the process of that role. Every role parses the same
// arguments (runRole in @twinport/shared); this file only picks the factory. Each service is loaded
// through its package entry, and only when its role runs, so `twinport http-gateway` never loads
// node-opcua or ioredis.
import { type RoleContext, type RunningRole, roleOf, runRole } from "@twinport/shared";
// "../bin/": this file also runs compiled as dist/cli.js, and the heap settings stay plain JavaScript in
// bin/ (bin/twinport.js loads them before any TypeScript); both spellings name the one module.
import { servesNoOpcUa } from "../bin/heap-settings.js";

const argv = process.argv.slice(2);
const role = roleOf(argv);

const factories: Record<typeof role, () => Promise<(context: RoleContext) => Promise<RunningRole>>> = {
  embedded: async () => {
    const { startEmbedded } = await import("./embedded.ts");
    return async (context) => {
      const running = await startEmbedded(context);
      // No OPC UA endpoint, no address space: V8's own heap sizing from now on (docs/adr/0046).
      if ((running.details.opcua as unknown[] | undefined)?.length === 0) servesNoOpcUa();
      return running;
    };
  },
  "model-store": async () => {
    const { startModelStore } = await import("@twinport/model-store");
    return ({ config, models, validateOnLoad, log, metrics, logger, fail }) =>
      startModelStore(config, { models, validateOnLoad, log, metrics, logger, fail });
  },
  "http-gateway": async () => {
    const { startHttpGateway } = await import("@twinport/http-gateway");
    return ({ config, metrics, logger }) => startHttpGateway(config, { metrics, logger });
  },
  "opcua-gateway": async () => {
    const { startOpcuaGatewayProcess } = await import("@twinport/opcua-gateway");
    return ({ config, log, metrics, logger }) => startOpcuaGatewayProcess(config, { log, metrics, logger });
  },
};

await runRole({ role, argv, io: process, ownsConsole: true, start: await factories[role]() });
