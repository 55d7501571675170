// Dispatches `twinport [command] ...` to the program of that role. Every role's program parses the
// same arguments (runRole in @twinport/shared), so this file only picks which one runs.
import { roleOf } from "@twinport/shared";

const argv = process.argv.slice(2);
const role = roleOf(argv);

// The services' programs are their main.ts files: run them as `node services/<role>/src/main.ts`
// would, not imported as a library (their package entries export factories, not programs).
const programs = {
  embedded: new URL("./embedded-main.ts", import.meta.url),
  "model-store": new URL("../services/model-store/src/main.ts", import.meta.url),
  "http-gateway": new URL("../services/http-gateway/src/main.ts", import.meta.url),
  "opcua-gateway": new URL("../services/opcua-gateway/src/main.ts", import.meta.url),
} as const;

await import(programs[role].href);
