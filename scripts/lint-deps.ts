/** Fails (exit 1) when a source file breaks the dependency rules (scripts/dependency-rules.ts). */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  checkImport,
  checkNodeOpcuaVersions,
  checkProcessAccess,
  importsOf,
  type Violation,
} from "./dependency-rules.ts";

const root = new URL("..", import.meta.url).pathname;

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    // dist/: the compiled output of these very sources (npm run build), not sources of its own.
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (name.endsWith(".ts") || name.endsWith(".tsx")) yield path;
  }
}

const violations: Violation[] = [];
let count = 0;
for (const top of ["libs", "services", "bin", "console"]) {
  for (const path of sourceFiles(join(root, top))) {
    const file = relative(root, path);
    const source = readFileSync(path, "utf8");
    count++;
    for (const { specifier, typeOnly } of importsOf(source)) {
      const violation = checkImport(file, specifier, typeOnly);
      if (violation) violations.push(violation);
    }
    violations.push(...checkProcessAccess(file, source));
  }
}
const manifests = [
  "package.json",
  ...["libs", "services"].flatMap((top) => readdirSync(join(root, top)).map((name) => join(top, name, "package.json"))),
];
violations.push(
  ...checkNodeOpcuaVersions(manifests.map((file) => ({ file, ...JSON.parse(readFileSync(join(root, file), "utf8")) }))),
);
for (const v of violations) console.error(`${v.file}: '${v.specifier}': ${v.rule}`);
if (violations.length > 0) {
  console.error(`${violations.length} dependency rule violation(s) in ${count} files`);
  process.exit(1);
}
console.log(`dependency rules: ${count} files ok`);
