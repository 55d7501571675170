import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "@twinport/shared";
import { commandRefusals } from "./command-refusals.ts";

test("refusals are gathered per reason for a burst: one warn line each, with the count per command type", async () => {
  let text = "";
  const logger = createLogger({ role: "model-store", destination: { write: (line: string) => (text += line) } });
  const refusals = commandRefusals(logger, 50);
  const late = "not executed, its deadline passed before this model-store could run it";
  for (let i = 0; i < 3; i++)
    refusals.note("PatchSubmodelElementValueByPath", `PatchSubmodelElementValueByPath: ${late}`);
  refusals.note("GetSubmodelById", `GetSubmodelById: ${late}`);
  refusals.note("PutSubmodelById", "Redis is unavailable: Connection is closed.");
  assert.equal(text, "", "nothing before the burst is over");
  await new Promise((resolve) => setTimeout(resolve, 100));
  const lines = text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    lines.map(({ level, component, reason, count, commands, msg }) => ({
      level,
      component,
      reason,
      count,
      commands,
      msg,
    })),
    [
      {
        level: 40,
        component: "command-responder",
        reason: late,
        count: 4,
        commands: { PatchSubmodelElementValueByPath: 3, GetSubmodelById: 1 },
        msg: `refused 4 commands (503 to their callers): ${late}`,
      },
      {
        level: 40,
        component: "command-responder",
        reason: "Redis is unavailable: Connection is closed.",
        count: 1,
        commands: { PutSubmodelById: 1 },
        msg: "refused 1 command (503 to their callers): Redis is unavailable: Connection is closed.",
      },
    ],
  );
  // The next burst starts afresh; a stop logs what is gathered at once.
  refusals.note("GetSubmodelById", `GetSubmodelById: ${late}`);
  refusals.flush();
  assert.equal(JSON.parse(text.trimEnd().split("\n").at(-1)!).count, 1);
});
