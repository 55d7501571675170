/**
 * Test launcher: `twinport [embedded|model-store] …` exactly as bin/cli.ts starts it, with a short
 * bound after which an interrupted package write is rolled back (production: 2 min,
 * PACKAGE_INTENT_STALE_MS), so a suite that cuts Redis or kills the model-store in the middle of a
 * package post sees the sweep within seconds. It lives under tests/ so that no production process
 * can run with it.
 */
import { type RoleContext, type RunningRole, roleOf, runRole } from "@twinport/shared";

// Not exported: importing this file runs it. Suites name it by path.
const TEST_PACKAGE_INTENT_STALE_MS = 1500;

const argv = process.argv.slice(2);
const role = roleOf(argv);

let start: (context: RoleContext) => Promise<RunningRole>;
if (role === "embedded") {
  const { startEmbedded } = await import("../../bin/embedded.ts");
  start = (context) => startEmbedded(context, { packageIntentStaleMs: TEST_PACKAGE_INTENT_STALE_MS });
} else if (role === "model-store") {
  const { startModelStore } = await import("@twinport/model-store");
  start = ({ config, models, validateOnLoad, log, metrics, logger }) =>
    startModelStore(config, {
      models,
      validateOnLoad,
      log,
      ...(metrics ? { metrics } : {}),
      ...(logger ? { logger } : {}),
      packageIntentStaleMs: TEST_PACKAGE_INTENT_STALE_MS,
    });
} else {
  throw new Error(`package-intents-launcher runs the engine's roles only (embedded, model-store), not ${role}`);
}

await runRole({ role, argv, io: process, start });
