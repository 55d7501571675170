/**
 * The cost of the access check on the write path: the same $value write (memory repository, in
 * process) with no rules, and with a 60-rule set whose grants for the caller are element-scoped.
 * Prints µs per write for both and the check alone (checkCommand without the write).
 */
import {
  type AccessRuleInput,
  type Command,
  compileAccessPolicy,
  createEngine,
  createMemoryRepository,
  type Principal,
} from "@twinport/shared";
import { ACCESS_RULES, ACCESS_SM_1, accessModel } from "@twinport/shared/test-support";

const rules: AccessRuleInput[] = [
  ...ACCESS_RULES,
  ...Array.from({ length: 50 }, (_, i) => ({
    subjects: [{ role: `team-${i}` }],
    rights: ["READ", "UPDATE"] as const,
    objects: [{ submodels: `urn:plant:${i}:*`, idShortPath: "Live" }],
  })),
] as AccessRuleInput[];
const principal: Principal = { kind: "user", name: "partial", roles: ["team-3", "team-7"] };
const N = 50_000;

async function run(withRules: boolean): Promise<number> {
  const repository = createMemoryRepository();
  const engine = createEngine({ repository, ...(withRules ? { access: compileAccessPolicy(rules) } : {}) });
  await engine.execute({ type: "LoadEnvironment", params: { body: JSON.stringify(accessModel()) } });
  const write = (i: number): Command => ({
    type: "PatchSubmodelElementValueByPath",
    params: { submodelId: ACCESS_SM_1, idShortPath: "C.X", body: String(i % 1000) },
    principal,
  });
  for (let i = 0; i < 2_000; i++) await engine.execute(write(i));
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const reply = await engine.execute(write(i));
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  }
  const us = Number(process.hrtime.bigint() - start) / 1000 / N;
  await engine.close();
  return us;
}

const open = [];
const checked = [];
for (let round = 0; round < 3; round++) {
  open.push(await run(false));
  checked.push(await run(true));
}
const best = (xs: number[]) => Math.min(...xs).toFixed(2);
console.log(
  `$value write, memory repository, in process: no rules ${best(open)} µs, ${rules.length} rules ${best(checked)} µs, ratio ${(Math.min(...checked) / Math.min(...open)).toFixed(2)} (best of 3 × ${N})`,
);

// The check alone, as the engine runs it before the handler.
const { checkCommand } = await import("../libs/shared/src/engine/access/command-access.ts");
const policy = compileAccessPolicy(rules);
const repository = createMemoryRepository();
const command: Command = {
  type: "PatchSubmodelElementValueByPath",
  params: { submodelId: ACCESS_SM_1, idShortPath: "C.X", body: "1" },
  principal,
};
const CHECKS = 1_000_000;
for (let i = 0; i < 100_000; i++) await checkCommand(policy, repository, command);
const start = process.hrtime.bigint();
for (let i = 0; i < CHECKS; i++) await checkCommand(policy, repository, command);
console.log(`the check alone: ${(Number(process.hrtime.bigint() - start) / CHECKS).toFixed(0)} ns per command`);
