import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { b64 } from "../../tests/test-support/http-client.ts";
import { generatedSubmodel } from "./generated-model.ts";

/** The submodels written to "spread over many elements": 10 of 10 Properties each. */
export const SPREAD = Array.from({ length: 10 }, (_, i) => `urn:bench:write:sm${i}`);
/** The submodel read whole: 1,000 elements. */
export const LARGE = "urn:bench:write:large";

export const valuePath = (sm: string, i: number) => `/submodels/${b64(sm)}/submodel-elements/P${i}/$value`;
/** PATCH or GET of one element, as 16 connections hammer it. */
export const ONE_PATH = valuePath(SPREAD[0]!, 5);
/** 100 elements in 10 submodels, taken in turn. */
export const SPREAD_PATHS = SPREAD.flatMap((sm) => Array.from({ length: 10 }, (_, i) => valuePath(sm, i)));

/**
 * The model of bench/write-path.ts (and bench/embedded-patch.ts, so their figures compare), written
 * to `dir`; returns the file.
 */
export function writeWritePathModel(dir: string): string {
  const file = join(dir, "model.json");
  writeFileSync(
    file,
    JSON.stringify({ submodels: [...SPREAD.map((id) => generatedSubmodel(id, 10)), generatedSubmodel(LARGE, 1000)] }),
  );
  return file;
}
