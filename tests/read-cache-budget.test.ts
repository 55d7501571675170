/**
 * Issue 19 item 5, black-box in both modes: reading every submodel of a many-shells model twice
 * through the HTTP endpoint keeps the read cache within `readCacheMaxBytes`, bookkeeping included,
 * as /metrics reports it (twinport_read_cache_bytes / _entries / _tags). The RSS check at a bigger
 * size is bench/read-cache-budget.ts.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeBase64Url, MESSAGE_BUS_INTERNAL_CLASS, MESSAGE_BUS_NATS_CLASS } from "@twinport/shared";
import { manyShellsIds, metricSample, writeManyShellsModel } from "./test-support/many-shells-model.ts";
import { type Mode, type SystemUnderTest, startSystem } from "./test-support/system.ts";

const SHELLS = 1_500;
const BUDGET = 256 * 1024;
const dir = mkdtempSync(join(tmpdir(), "twinport-read-cache-budget-"));
const model = join(dir, "model.json");
writeManyShellsModel(model, SHELLS, 10);

for (const mode of ["embedded", "distributed"] as Mode[]) {
  describe(`read cache budget (${mode})`, () => {
    let system: SystemUnderTest;
    before(async () => {
      system = await startSystem(mode, {
        model,
        gateways: 1,
        config: {
          core: { managementPort: 0 },
          messageBus: {
            "@class": mode === "embedded" ? MESSAGE_BUS_INTERNAL_CLASS : MESSAGE_BUS_NATS_CLASS,
            readCacheMaxBytes: BUDGET,
            readCacheMaxAgeMs: 600_000,
          },
        },
      });
    });
    after(async () => {
      await system?.stop();
    });

    it("every submodel read twice (through its shell too): accounted bytes within the budget, no tag without an entry", async () => {
      const [client] = system.clients;
      const gateway = system.processes.at(-1)!;
      const metrics = async () => {
        const text = await (await fetch(`${gateway.details.management}/metrics`)).text();
        return {
          bytes: metricSample(text, "twinport_read_cache_bytes"),
          entries: metricSample(text, "twinport_read_cache_entries"),
          tags: metricSample(text, "twinport_read_cache_tags"),
        };
      };
      for (let pass = 0; pass < 2; pass++) {
        for (let n = 0; n < SHELLS; n++) {
          const { shell, submodel } = manyShellsIds(n);
          const path =
            n % 2 === 0
              ? `/submodels/${encodeBase64Url(submodel)}`
              : `/shells/${encodeBase64Url(shell)}/submodels/${encodeBase64Url(submodel)}`;
          const response = await client!.get(path);
          assert.equal(response.status, 200, response.text);
        }
        const { bytes, entries, tags } = await metrics();
        assert.ok(bytes !== undefined && entries !== undefined && tags !== undefined, "the gauges are exposed");
        assert.ok(bytes <= BUDGET, `pass ${pass + 1}: ${bytes} bytes accounted, budget ${BUDGET}`);
        assert.ok(bytes > BUDGET / 2 && entries > 0, `pass ${pass + 1}: the cache is in use (${bytes} bytes)`);
        assert.ok(entries < SHELLS / 4, `pass ${pass + 1}: ${entries} entries kept of ${SHELLS}`);
        // A read below a shell carries two tags (submodel and shell); the others one.
        assert.ok(tags <= entries * 2, `pass ${pass + 1}: ${tags} tags for ${entries} entries`);
      }
    });
  });
}

after(() => rmSync(dir, { recursive: true, force: true }));
