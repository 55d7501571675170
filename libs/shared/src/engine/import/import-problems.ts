import type { ImportProblem } from "../../contracts/index.ts";

/**
 * The most problems a partial import lists one by one. A document can hold far more failing
 * identifiables than anyone reads (a 3 MB body of a million `{}`): listing them all cost a reply of
 * 35 MB and the memory to build it. Past these, one last entry says how many more there were.
 */
export const MAX_LISTED_PROBLEMS = 1_000;

/**
 * The problems as reported: the first MAX_LISTED_PROBLEMS, then (when there were more) one entry
 * counting the rest. `unlisted`: problems met but never kept (counted while reading).
 */
export function listedProblems(problems: readonly ImportProblem[], unlisted: number): ImportProblem[] {
  const more = Math.max(problems.length - MAX_LISTED_PROBLEMS, 0) + unlisted;
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  if (more === 0) return listed;
  const text = `${more} more problem${more === 1 ? "" : "s"} not listed (only the first ${MAX_LISTED_PROBLEMS} are)`;
  return [...listed, { code: "bad-request", text }];
}
