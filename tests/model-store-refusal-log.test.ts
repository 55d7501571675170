/**
 * The model-store's log says why its callers got 503s: the commands it refuses after a stall (their
 * budget spent while it stood still, docs/adr/0017) are logged as one line per burst, with the reason
 * and the count, not one line per command and not silently. Real redis-server, nats-server,
 * model-store and http-gateway; the store's own log file is read.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
import { sleep } from "./test-support/fault-cluster.ts";
import { type SystemUnderTest, startSystem } from "./test-support/system.ts";

const REQUEST_TIMEOUT_MS = 1000;
const WRITES = 12;

let sut: SystemUnderTest;
before(async () => {
  sut = await startSystem("distributed", {
    config: { messageBus: { "@class": "messagebus.nats.MessageBusNats", requestTimeoutMs: REQUEST_TIMEOUT_MS } },
  });
});
after(async () => {
  await sut?.stop();
});

/** The JSON lines of a log file that say "refused … command(s)". */
function refusalLines(
  file: string,
): { msg: string; reason: string; count: number; commands: Record<string, number> }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes('"component":"command-responder"'))
    .map((line) => JSON.parse(line));
}

test("commands refused after a model-store stall are logged once per burst, with the reason and the count", async (t) => {
  const store = sut.processes.find((process) => process.role === "model-store")!;
  const http = sut.clients[0]!;
  const path = `/submodels/${encodeBase64Url("https://example.org/submodels/technical-data-1")}/submodel-elements/MaxRotationSpeed/$value`;
  assert.equal((await http.get(path)).status, 200);
  assert.deepEqual(refusalLines(store.logFile), []);

  process.kill(store.child.pid!, "SIGSTOP");
  let statuses: number[];
  try {
    const answers = await Promise.all(
      Array.from({ length: WRITES }, (_, i) =>
        http.request("PATCH", path, { body: String(5000 + i), headers: { "content-type": "application/json" } }),
      ),
    );
    statuses = answers.map((answer) => answer.status);
    // The gateway has given up on every write; they wait in the stopped store's socket.
    await sleep(REQUEST_TIMEOUT_MS / 2);
  } finally {
    process.kill(store.child.pid!, "SIGCONT");
  }
  assert.deepEqual(statuses, Array(WRITES).fill(504));

  // The store reads them as it resumes, refuses each (its budget is spent) and logs the burst.
  const started = Date.now();
  while (Date.now() - started < 5000 && refusalLines(store.logFile).length === 0) await sleep(100);
  await sleep(1500); // a second line for the same burst would come within its gathering second
  const lines = refusalLines(store.logFile);
  t.diagnostic(JSON.stringify(lines));
  assert.equal(lines.length, 1, "one line for the burst");
  const [line] = lines;
  assert.match(line!.reason, /^not executed, its deadline passed before this model-store could run it/);
  assert.equal(line!.commands.PatchSubmodelElementValueByPath, WRITES);
  assert.equal(
    line!.count,
    Object.values(line!.commands).reduce((sum, n) => sum + n, 0),
  );
  assert.match(line!.msg, new RegExp(`^refused ${line!.count} commands \\(503 to their callers\\): not executed`));
  // Served again at once.
  assert.equal((await http.get(path)).status, 200);
});
