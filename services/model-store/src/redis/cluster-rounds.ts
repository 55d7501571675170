import { batchIndexOf, type Commit } from "@twinport/shared";

/**
 * Splits a batch into rounds for the cluster commit (docs/adr/0040, cluster-commit.ts). Within a
 * round the element checks of every commit are made by PREPARE against the state before the round,
 * so a commit whose checks could see an earlier commit of the same round has to wait for the next
 * round: it checks an element of a submodel on which an earlier commit of the round wrote, touched
 * or deleted that same path, inserted or deleted a list item (ranks shift) or deleted the submodel.
 * One exception keeps the hot path batched: a check that the element has the revision of commit i
 * of this round (`batchRevision(i)`, a write planned on top of an earlier one) where commit i was the
 * last of the round to rewrite or touch that path (`pe`/`te`: it keeps its place and orderKey).
 * That check holds exactly when commit i commits, so it is split: PREPARE checks the element exists
 * (with its orderKey), the catalog step checks commit i took a seq (cluster-commit.ts).
 * Rounds are consecutive runs of the batch, so commits keep their order. Catalog checks need no
 * cut: the catalog step applies the round's commits one after the other, as the single script does.
 * Value writes to different elements of one submodel (the hot path) share a round.
 */
export function splitRounds(commits: readonly Commit[]): number[][] {
  const rounds: number[][] = [];
  let round: number[] = [];
  let start = 0;
  /** Per submodel: the last commit (batch index) writing each path, -1 when it inserted or deleted it. */
  let written = new Map<string, { paths: Map<string, number>; shifted: boolean }>();
  const state = (submodelId: string) => {
    let s = written.get(submodelId);
    if (!s) written.set(submodelId, (s = { paths: new Map(), shifted: false }));
    return s;
  };
  commits.forEach((commit, at) => {
    const dependsOnRound = commit.preconditions.some((p) => {
      const revision = "revision" in p ? p.revision : null;
      const index = batchIndexOf(revision);
      const inRound = index !== undefined && index >= start;
      if (p.on !== "element") return inRound && p.on !== "identifiable";
      const s = written.get(p.submodelId);
      if (inRound) return s === undefined || s.shifted || s.paths.get(p.path) !== index;
      return s !== undefined && (s.shifted || s.paths.has(p.path));
    });
    if (dependsOnRound && round.length > 0) {
      rounds.push(round);
      round = [];
      start = at;
      written = new Map();
    }
    round.push(at);
    for (const op of commit.ops) {
      switch (op.op) {
        case "put-element":
          state(op.submodelId).paths.set(op.path, op.insert ? -1 : at);
          if (op.insert?.segment.startsWith("[")) state(op.submodelId).shifted = true;
          break;
        case "delete-element":
          state(op.submodelId).paths.set(op.path, -1);
          if (op.path.endsWith("]")) state(op.submodelId).shifted = true;
          break;
        case "touch-element":
          state(op.submodelId).paths.set(op.path, at);
          break;
        case "delete-identifiable":
          if (op.kind === "submodel") state(op.id).shifted = true;
          break;
        default:
          break;
      }
    }
  });
  if (round.length > 0) rounds.push(round);
  return rounds;
}
