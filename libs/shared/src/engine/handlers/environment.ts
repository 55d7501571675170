import { isDeepStrictEqual } from "node:util";
import { parseJsonText } from "../../aas/index.ts";
import { type Command, CommandError, type CommandResult } from "../../contracts/index.ts";
import { readJsonable, rethrowAsCommandError } from "../aas-input.ts";
import { eventDraft } from "../commit-runner.ts";
import { insertOps } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import type { IdentifiableKind } from "../ports/index.ts";
import { splitSubmodel } from "../submodel-json.ts";
import { elementTarget, identifiableTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

const SECTIONS: { key: string; kind: IdentifiableKind }[] = [
  { key: "assetAdministrationShells", kind: "shell" },
  { key: "submodels", kind: "submodel" },
  { key: "conceptDescriptions", kind: "concept-description" },
];

/**
 * Spec §7.3: a model holding exactly the same Identifiable twice loads (the copies collapse); the
 * same id with different content is an error, reported with both positions.
 */
function collapseDuplicates(environment: Record<string, unknown>): Record<string, unknown> {
  const seen = new Map<string, { where: string; value: unknown }>();
  const result: Record<string, unknown> = { ...environment };
  for (const { key } of SECTIONS) {
    const list = environment[key];
    if (!Array.isArray(list)) continue;
    const kept: unknown[] = [];
    list.forEach((item, i) => {
      const id = (item as { id?: unknown })?.id;
      if (typeof id !== "string") return kept.push(item);
      const where = `${key}[${i}]`;
      const earlier = seen.get(id);
      if (!earlier) {
        seen.set(id, { where, value: item });
        kept.push(item);
      } else if (!isDeepStrictEqual(earlier.value, item)) {
        throw new CommandError(
          "validation",
          `The id '${id}' is used by ${earlier.where} and ${where} with different content`,
          { path: where },
        );
      }
    });
    result[key] = kept;
  }
  return result;
}

export async function loadEnvironment(
  ctx: EngineContext,
  cmd: Command<"LoadEnvironment">,
): Promise<Handled<CommandResult<"LoadEnvironment">>> {
  const validate = cmd.params.validate ?? ctx.validation.onLoad;
  let parsed: unknown;
  try {
    parsed = parseJsonText(cmd.params.body);
  } catch (error) {
    rethrowAsCommandError(error);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new CommandError("bad-request", "An AAS environment must be a JSON object");
  }
  const environment = readJsonable(collapseDuplicates(parsed as Record<string, unknown>), "Environment", validate);
  const counts = { shells: 0, submodels: 0, conceptDescriptions: 0, skipped: false };
  if (cmd.params.onlyIfEmpty) {
    const sizes = await Promise.all(SECTIONS.map(({ kind }) => ctx.repository.countIdentifiables(kind)));
    if (sizes.some((n) => n > 0)) return { value: { ...counts, skipped: true } };
  }
  // One commit (and one event) per identifiable: the same granularity as the API's writes.
  for (const { key, kind } of SECTIONS) {
    for (const item of (environment[key] ?? []) as Record<string, unknown>[]) {
      const id = item.id as string;
      const { meta, elements } = kind === "submodel" ? splitSubmodel(item) : { meta: item, elements: [] };
      await ctx.commit(identifiableTarget(kind, id), async () => ({
        commit: {
          preconditions: [{ on: "id-free", id }],
          ops: [
            { op: "put-identifiable", kind, id, json: JSON.stringify(meta) },
            ...insertOps(id, "", elements, false),
          ],
          event: eventDraft(
            { kind: `${kind}.created`, id, origin: cmd.origin ?? "load", correlationId: cmd.correlationId },
            item,
            ctx.clock.now(),
          ),
        },
      }));
      if (kind === "shell") counts.shells++;
      else if (kind === "submodel") counts.submodels++;
      else counts.conceptDescriptions++;
    }
  }
  return { value: counts };
}
