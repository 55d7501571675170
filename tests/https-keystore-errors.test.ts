/**
 * A configured HTTPS key store that cannot be used is a configuration mistake: the process stops
 * before it is ready with exit code 2 (bad configuration, as `--help` says) and one line naming the
 * key store, instead of exit code 1 (the process could not start).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { freePort } from "./test-support/servers.ts";
import { startTwinport } from "./test-support/system.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("a key store that is no key store, or missing, stops the start with exit code 2 naming it", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-keystore-"));
  dirs.push(cwd);
  const notAKeystore = join(cwd, "notes.txt");
  writeFileSync(notAKeystore, "this is not a certificate\n");
  for (const keyStorePath of [notAKeystore, join(cwd, "missing.p12")]) {
    const port = await freePort();
    await assert.rejects(
      startTwinport({
        cwd,
        args: [
          "--endpoint",
          "http",
          `endpoints[0].port=${port}`,
          "endpoints[0].host=127.0.0.1",
          `endpoints[0].certificate.keyStorePath=${keyStorePath}`,
          "core.managementPort=-1",
        ],
      }),
      (error: Error) => {
        assert.match(error.message, /exited with 2 before ready/, keyStorePath);
        assert.match(
          error.message,
          new RegExp(`keystore ${keyStorePath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
          keyStorePath,
        );
        return true;
      },
    );
  }
});
