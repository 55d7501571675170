/**
 * How far an import is, for progress lines while a large model loads: `reading` counts the
 * identifiables read and checked (the first pass, before anything is written; the total is not
 * known yet), `writing` the identifiables committed, out of `total`.
 */
export type ImportPhase = "reading" | "writing";

export type ImportProgressListener = (done: number, total: number | undefined, phase: ImportPhase) => void;
