import { readFileSync } from "node:fs";

/** The example environment (3 shells, 6 submodels with every element kind, 2 concept descriptions). */
export const EXAMPLE_MODEL_TEXT = readFileSync(new URL("./fixtures/example-env.json", import.meta.url), "utf8");

// Test fixtures are read loosely on purpose: tests poke at arbitrary parts of the model.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

export function exampleModel(): {
  assetAdministrationShells: Loose[];
  submodels: Loose[];
  conceptDescriptions: Loose[];
} {
  return JSON.parse(EXAMPLE_MODEL_TEXT);
}
