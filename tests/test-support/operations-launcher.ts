/**
 * Test launcher: `twinport [embedded|model-store] …` exactly as bin/cli.ts starts it, plus the test
 * operation providers (libs/shared/src/test-support/operation-fixtures.ts) registered in the process
 * that runs the engine. It lives under tests/ so that nothing of it can reach a production process:
 * there, Operations run only through the providers of configured asset connections.
 *
 * The model-store's invocation lease is short (1 s), so a test that kills it sees its handles
 * marked Failed soon after.
 */
import { createOperationProviderRegistry, type RoleContext, type RunningRole, roleOf, runRole } from "@twinport/shared";
import { registerTestOperationProviders } from "@twinport/shared/test-support";

// Not exported: importing this file runs it. Suites name it by path.
const TEST_OPERATION_LEASE_MS = 1000;

const argv = process.argv.slice(2);
const role = roleOf(argv);
const operationProviders = createOperationProviderRegistry();
registerTestOperationProviders(operationProviders);

let start: (context: RoleContext) => Promise<RunningRole>;
if (role === "embedded") {
  const { startEmbedded } = await import("../../bin/embedded.ts");
  start = (context) => startEmbedded(context, { operationProviders });
} else if (role === "model-store") {
  const { startModelStore } = await import("@twinport/model-store");
  start = ({ config, models, validateOnLoad, log }) =>
    startModelStore(config, {
      models,
      validateOnLoad,
      log,
      operationProviders,
      operationLeaseMs: TEST_OPERATION_LEASE_MS,
    });
} else {
  throw new Error(`operations-launcher runs the engine's roles only (embedded, model-store), not ${role}`);
}

await runRole({ role, argv, io: process, start });
