/**
 * A small Dockerfile linter for the basics docs/adr/0005 and 0021 promise of every image:
 * multi-stage on node:24-slim, a build stage that compiles, a runtime stage with production
 * dependencies only (from the lock file), the compiled output and no TypeScript sources or test
 * support, a numeric non-root user, a HEALTHCHECK that starts no Node process and tolerates a
 * loaded host, the ports exposed, exec-form entry point. And a .dockerignore matcher, to check what
 * reaches the build context. No Docker engine is needed.
 */

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  line: number;
}

export interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions grouped by stage; comment lines (also inside continuations) are dropped, as Docker does. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let pending: { parts: string[]; line: number } | undefined;
  const flush = () => {
    if (!pending) return;
    const joined = pending.parts.join(" ").trim();
    const match = /^(\S+)\s*(.*)$/s.exec(joined);
    const line = pending.line;
    pending = undefined;
    if (!match) return;
    const keyword = match[1]!.toUpperCase();
    const instruction: Instruction = { keyword, args: match[2]!.trim(), line };
    if (keyword === "FROM") {
      const [image = "", as, name] = instruction.args.split(/\s+/).filter((part) => !part.startsWith("--"));
      stages.push({ image, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    }
    stages.at(-1)?.instructions.push(instruction);
  };
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith("#")) return;
    if (line === "" && !pending) return;
    const continues = line.endsWith("\\");
    const content = continues ? line.slice(0, -1) : line;
    if (!pending) pending = { parts: [], line: index + 1 };
    pending.parts.push(content);
    if (!continues) flush();
  });
  flush();
  return stages;
}

/** The JSON-array argument of an exec-form instruction (`["a", "b"]`), else undefined. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith("[")) return undefined;
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((part) => typeof part === "string") ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The command of the final stage's HEALTHCHECK (exec form), for running it in a test. */
export function healthcheckCommand(text: string): string[] | undefined {
  const check = parseDockerfile(text)
    .at(-1)
    ?.instructions.find((i) => i.keyword === "HEALTHCHECK");
  const cmd = check ? /(?:^|\s)CMD\s+(.*)$/s.exec(check.args)?.[1] : undefined;
  return cmd ? execForm(cmd.trim()) : undefined;
}

export interface DockerfileExpectations {
  /** Ports the final stage must EXPOSE. */
  ports: number[];
  /** Workspace manifests (package.json paths) every stage that runs `npm ci` must copy before it. */
  manifests: string[];
  /**
   * Plain JavaScript files of the build context the launcher loads at run time (bin/twinport.js and
   * what it and the compiled CLI import from bin/): the final stage must copy each from the context.
   */
  launcherFiles?: string[];
}

const NODE_SLIM = /^node:24(?:\.\d+){0,2}-slim(?:@sha256:[0-9a-f]{64})?$/;
/** What compiles the TypeScript (scripts/build.ts, also `npm run build`). */
const BUILD_COMMAND = /\bnode\s+scripts\/build\.ts\b|\bnpm\s+run\s+build\b/;
/** Context paths the runtime stage must not copy: sources to compile, tests, their support, tools. */
const NOT_FOR_THE_RUNTIME =
  /^(\.|\.\/|libs|services|bin|tests|bench|scripts|docs)\/?$|\.[cm]?ts$|(^|\/)test-support(\/|$)|\.test\./;
/** What a health check may take on a loaded host: a slow answer is not a dead process. */
const HEALTHCHECK_AT_LEAST = { timeout: 5, "start-period": 30, retries: 3 };

/** Seconds of a Docker duration (`10s`, `1m30s`, `500ms`). */
function seconds(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as "ms" | "s" | "m" | "h"];
  return total;
}

/** What is wrong with a Dockerfile, one sentence per problem; empty when it passes. */
export function lintDockerfile(text: string, expect: DockerfileExpectations): string[] {
  const problems: string[] = [];
  const stages = parseDockerfile(text);
  if (stages.length < 2) problems.push("not multi-stage: dependencies must be installed in a stage of their own");
  const stageNames = new Set(stages.flatMap((stage) => (stage.name ? [stage.name] : [])));
  for (const stage of stages) {
    if (!NODE_SLIM.test(stage.image) && !stageNames.has(stage.image))
      problems.push(`FROM ${stage.image}: every stage must be based on node:24-slim`);
  }
  const final = stages.at(-1);
  if (!final) return ["no FROM instruction"];
  const all = stages.flatMap((stage) => stage.instructions);
  const copies = (stage: Stage) => stage.instructions.filter((i) => i.keyword === "COPY");
  const fromStage = (i: Instruction) => /--from=(\S+)/.exec(i.args)?.[1];
  /** COPY's sources (every argument but the destination, flags left out). */
  const sources = (i: Instruction) =>
    i.args
      .split(/\s+/)
      .filter((part) => !part.startsWith("--"))
      .slice(0, -1);

  for (const file of expect.launcherFiles ?? []) {
    const copied = copies(final).some(
      (i) => fromStage(i) === undefined && sources(i).some((source) => source.replace(/\/$/, "") === file),
    );
    if (!copied) problems.push(`${file}: the launcher loads it at run time, but the final stage does not copy it`);
  }

  const npmRuns = all.filter((i) => i.keyword === "RUN" && /\bnpm\s+(ci|install|i)\b/.test(i.args));
  if (!npmRuns.some((i) => /\bnpm\s+ci\b/.test(i.args)))
    problems.push("no 'npm ci': dependencies must come from package-lock.json");
  for (const run of npmRuns)
    if (/\bnpm\s+(install|i)\b/.test(run.args)) problems.push(`RUN ${run.args}: use 'npm ci', not npm install`);
  for (const stage of stages) {
    const ciIndex = stage.instructions.findIndex((i) => i.keyword === "RUN" && /\bnpm\s+ci\b/.test(i.args));
    if (ciIndex < 0) continue;
    const copied = stage.instructions
      .slice(0, ciIndex)
      .filter((i) => i.keyword === "COPY")
      .map((i) => i.args);
    for (const manifest of ["package.json", "package-lock.json", ...expect.manifests]) {
      const pattern = new RegExp(`(^|\\s)${manifest.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(\\s|$)`);
      if (!copied.some((args) => pattern.test(args)))
        problems.push(
          `${manifest} is not copied before 'npm ci' in stage ${stage.name ?? stage.image}: npm ci needs every workspace's manifest`,
        );
    }
  }

  // node_modules: from a stage that installed production dependencies only, never from the host.
  const modules = copies(final).filter((i) => sources(i).some((source) => /(^|\/)node_modules\/?$/.test(source)));
  if (modules.some((i) => !fromStage(i)))
    problems.push(
      "the final stage copies node_modules from the build context (dev dependencies and host binaries); copy it from the dependency stage",
    );
  for (const copy of modules.filter(fromStage)) {
    const stage = stages.find((candidate) => candidate.name === fromStage(copy));
    const ci = stage?.instructions.find((i) => i.keyword === "RUN" && /\bnpm\s+ci\b/.test(i.args));
    if (!ci)
      problems.push(
        `the final stage copies node_modules from stage ${fromStage(copy)}, which runs no 'npm ci --omit=dev'`,
      );
    else if (!/--omit[= ]dev\b/.test(ci.args))
      problems.push(`RUN ${ci.args}: installs dev dependencies into the runtime's node_modules (add --omit=dev)`);
  }
  if (modules.length === 0) problems.push("the final stage gets no node_modules from a dependency stage");

  // Compiled in a build stage, and only the output copied: no TypeScript, no test support at run time.
  const builders = stages
    .slice(0, -1)
    .filter((stage) => stage.instructions.some((i) => i.keyword === "RUN" && BUILD_COMMAND.test(i.args)));
  if (builders.length === 0)
    problems.push(
      "no stage compiles the TypeScript (node scripts/build.ts): production runs compiled JavaScript (docs/adr/0021)",
    );
  const builderNames = new Set(builders.flatMap((stage) => (stage.name ? [stage.name] : [])));
  if (
    !copies(final).some(
      (i) => builderNames.has(fromStage(i) ?? "") && sources(i).some((source) => /(^|\/)dist\/?$/.test(source)),
    )
  ) {
    problems.push("the final stage copies no compiled output (dist/) from the build stage");
  }
  for (const copy of copies(final).filter((i) => !fromStage(i))) {
    for (const source of sources(copy)) {
      if (NOT_FOR_THE_RUNTIME.test(source))
        problems.push(
          `COPY ${copy.args}: the runtime gets no TypeScript sources, tests or test support (${source}); copy the compiled output from the build stage`,
        );
    }
  }

  const user = final.instructions.filter((i) => i.keyword === "USER").at(-1);
  if (!user) problems.push("the final stage has no USER: the image would run as root");
  else {
    const [name = "", group] = user.args.split(":");
    if (name === "root" || name === "0" || group === "0" || group === "root")
      problems.push(`USER ${user.args}: must not be root`);
    else if (!/^\d+$/.test(name))
      problems.push(`USER ${user.args}: use a numeric user, which Kubernetes' runAsNonRoot can verify`);
  }

  const health = final.instructions.filter((i) => i.keyword === "HEALTHCHECK").at(-1);
  const command = healthcheckCommand(text);
  if (!health || /^NONE\b/i.test(health.args)) problems.push("the final stage has no HEALTHCHECK");
  else if (!command) problems.push("HEALTHCHECK CMD must be in exec form (a JSON array)");
  else {
    if (/(^|\/)node$/.test(command[0]!))
      problems.push(
        "HEALTHCHECK starts a Node process: seconds of CPU on a loaded host for one request; ask the management port from bash (/dev/tcp)",
      );
    const options = Object.fromEntries(
      [...health.args.split(/\s+CMD\s/)[0]!.matchAll(/--([\w-]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    for (const [option, least] of Object.entries(HEALTHCHECK_AT_LEAST)) {
      const value =
        options[option] === undefined
          ? undefined
          : option === "retries"
            ? Number(options[option])
            : seconds(options[option]!);
      if (value === undefined || value < least)
        problems.push(
          `HEALTHCHECK --${option}=${options[option] ?? "(default)"} is too tight for a loaded host (at least ${least}${option === "retries" ? "" : "s"})`,
        );
    }
  }

  const exposed = new Set(
    final.instructions
      .filter((i) => i.keyword === "EXPOSE")
      .flatMap((i) => i.args.split(/\s+/).map((port) => Number(port.split("/")[0]))),
  );
  for (const port of expect.ports) if (!exposed.has(port)) problems.push(`port ${port} is not EXPOSEd`);

  const entry = final.instructions.filter((i) => i.keyword === "ENTRYPOINT").at(-1);
  if (!entry) problems.push("no ENTRYPOINT: the image must start the twinport command");
  else if (!execForm(entry.args))
    problems.push(
      "ENTRYPOINT must be in exec form: in shell form, sh is PID 1 and SIGTERM never reaches node (no graceful shutdown)",
    );
  return problems;
}

/**
 * Docker's .dockerignore rules: patterns relative to the context root, `*` within a path segment,
 * `**` across segments, `!` re-includes, the last matching line wins, and a pattern that matches a
 * folder excludes everything below it.
 */
export function dockerIgnored(patterns: string, path: string): boolean {
  const rules = patterns
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const include = line.startsWith("!");
      const body = (include ? line.slice(1) : line).replace(/^\/+/, "").replace(/\/+$/, "");
      const source = body
        .split("**")
        .map((part) =>
          part
            .split("*")
            .map((piece) => piece.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\?/g, "[^/]"))
            .join("[^/]*"),
        )
        .join(".*");
      return { include, regex: new RegExp(`^${source.replace(/^\.\*\//, "(?:.*/)?")}$`) };
    });
  const segments = path.split("/");
  const candidates = segments.map((_, index) => segments.slice(0, index + 1).join("/"));
  let ignored = false;
  for (const rule of rules) if (candidates.some((candidate) => rule.regex.test(candidate))) ignored = !rule.include;
  return ignored;
}
