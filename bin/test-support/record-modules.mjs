// Preloaded with `node --import` by bin/launcher.test.ts: appends the URL of every module the
// process loads (ours and third-party, ES modules and CommonJS) to the file named by
// RECORD_MODULES_FILE, one per line, so a test can tell which code a command really loaded
// without timing anything. Plain JavaScript: it must run in the compiled mode too, where no tsx is loaded.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.RECORD_MODULES_FILE;
if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
