import type { EngineContext } from "../engine-context.ts";
import { collect, type EnvironmentSelection, environmentItems } from "./environment-items.ts";

export type { EnvironmentSelection } from "./environment-items.ts";

export interface SelectedEnvironment {
  shells: Record<string, unknown>[];
  submodels: Record<string, unknown>[];
  conceptDescriptions: Record<string, unknown>[];
}

/** The selected environment in memory (environment-items.ts says what is selected). */
export async function selectEnvironment(
  ctx: EngineContext,
  selection: EnvironmentSelection,
): Promise<SelectedEnvironment> {
  const items = await environmentItems(ctx, selection);
  const shells = await collect(items.shells);
  const submodels = await collect(items.submodels);
  return { shells, submodels, conceptDescriptions: await collect(items.conceptDescriptions) };
}
