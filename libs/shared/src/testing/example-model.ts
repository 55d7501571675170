import { readFileSync } from "node:fs";

/** The example environment (3 shells, 6 submodels with every element kind, 2 concept descriptions). */
export const EXAMPLE_MODEL_TEXT = readFileSync(new URL("./fixtures/example-env.json", import.meta.url), "utf8");

export function exampleModel(): {
  assetAdministrationShells: Record<string, any>[];
  submodels: Record<string, any>[];
  conceptDescriptions: Record<string, any>[];
} {
  return JSON.parse(EXAMPLE_MODEL_TEXT);
}
