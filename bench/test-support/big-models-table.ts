import { readFileSync } from "node:fs";

/** The rows of issue 19's table (and what shows that the rest scales): key and title. */
export const ROWS: [string, string][] = [
  ["seed", "model-store seeding: time, elements/s (embedded: model load)"],
  ["opcuaReady", "opcua-gateway ready / RSS (embedded: process ready / RSS)"],
  ["browse", "OPC UA browse of a never-touched element"],
  ["subscribe", "OPC UA subscribe → first notification"],
  ["serialization", "`/serialization` (whole environment, JSON)"],
  ["serializationRss", "`/serialization` peak RSS growth per process (target ≤ +300 MB)"],
  ["shellsIdShort", "`/shells?idShort=…` cold / warm"],
  ["submodelsSemanticId", "`/submodels?semanticId=…` cold / warm"],
  ["noSuch", "`/shells?idShort=NoSuch&limit=1` cold / warm"],
  ["point", "point GET / PATCH `…/P1/$value` of 20 untouched submodels (median)"],
  ["paging", "`/shells?limit=1000` paged to the end: first page / last pages (median of 5)"],
  ["readCache", "HTTP process RSS: start → every submodel read once → twice"],
  ["redisBytes", "Redis bytes per element"],
  ["storePeak", "model-store peak RSS (embedded: the process)"],
];

export type Cells = Record<string, string>;

/** One size in one mode: what was measured, where and when. */
export interface Column {
  mode: string;
  size: string;
  shells: number;
  properties: number;
  scale: number;
  commit: string;
  /** Load average (1, 5, 15 min) when the column started (merged from older logs: when it ended). */
  load: string;
  /** When it finished (UTC, "YYYY-MM-DD HH:MM"). */
  at?: string;
  cells: Cells;
}

/** Columns of earlier runs (BENCH_RESULTS files, JSON lines); a later column of a mode and size replaces an earlier one. */
export function readColumns(files: string[]): Column[] {
  const columns = new Map<string, Column>();
  for (const file of files)
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const column = JSON.parse(line) as Column;
      columns.set(`${column.mode} ${column.size} ${column.scale}`, column);
    }
  return [...columns.values()];
}

/** One Markdown table per mode, columns in size order, then when and where each column was measured. */
export function markdownTables(columns: Column[]): string {
  const out: string[] = [];
  for (const mode of [...new Set(columns.map((c) => c.mode))]) {
    const ofMode = columns.filter((c) => c.mode === mode).sort((x, y) => x.size.localeCompare(y.size));
    const header = ofMode.map(
      (c) =>
        `${c.size}${c.scale !== 1 ? ` ×${c.scale}` : ""}: ${(c.shells * c.properties).toLocaleString("en")} elements, ${c.shells.toLocaleString("en")} shells × ${c.properties}`,
    );
    out.push(`### ${mode}`, "", `| | ${header.join(" | ")} |`, `|---|${ofMode.map(() => "---").join("|")}|`);
    for (const [row, title] of ROWS)
      out.push(
        `| ${title} | ${ofMode.map((c) => (c.cells[row] ?? "not reached").replaceAll("|", "\\|")).join(" | ")} |`,
      );
    out.push(
      "",
      ofMode
        .map(
          (c) =>
            `${c.size}${c.scale !== 1 ? ` ×${c.scale}` : ""}: ${c.at ?? "unfinished"} UTC, commit ${c.commit}, load average ${c.load}`,
        )
        .join("; "),
      "",
    );
  }
  return out.join("\n");
}
