/**
 * A small Dockerfile linter for the basics docs/adr/0005 promises of every image: multi-stage on
 * node:20-slim, production dependencies only (from the lock file), a numeric non-root user, a
 * HEALTHCHECK, the ports exposed, exec-form entry point. And a .dockerignore matcher, to check
 * what reaches the build context. No Docker engine is needed.
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
  const check = parseDockerfile(text).at(-1)?.instructions.find((i) => i.keyword === "HEALTHCHECK");
  const cmd = check ? /(?:^|\s)CMD\s+(.*)$/s.exec(check.args)?.[1] : undefined;
  return cmd ? execForm(cmd.trim()) : undefined;
}

export interface DockerfileExpectations {
  /** Ports the final stage must EXPOSE. */
  ports: number[];
  /** Workspace manifests (package.json paths) the dependency stage must copy before `npm ci`. */
  manifests: string[];
}

const NODE_SLIM = /^node:20(?:\.\d+){0,2}-slim(?:@sha256:[0-9a-f]{64})?$/;

/** What is wrong with a Dockerfile, one sentence per problem; empty when it passes. */
export function lintDockerfile(text: string, expect: DockerfileExpectations): string[] {
  const problems: string[] = [];
  const stages = parseDockerfile(text);
  if (stages.length < 2) problems.push("not multi-stage: dependencies must be installed in a stage of their own");
  const stageNames = new Set(stages.flatMap((stage) => (stage.name ? [stage.name] : [])));
  for (const stage of stages) {
    if (!NODE_SLIM.test(stage.image) && !stageNames.has(stage.image)) problems.push(`FROM ${stage.image}: every stage must be based on node:20-slim`);
  }
  const final = stages.at(-1);
  if (!final) return ["no FROM instruction"];
  const all = stages.flatMap((stage) => stage.instructions);

  const npmRuns = all.filter((i) => i.keyword === "RUN" && /\bnpm\s+(ci|install|i)\b/.test(i.args));
  if (!npmRuns.some((i) => /\bnpm\s+ci\b/.test(i.args))) problems.push("no 'npm ci': dependencies must come from package-lock.json");
  for (const run of npmRuns) {
    if (/\bnpm\s+(install|i)\b/.test(run.args)) problems.push(`RUN ${run.args}: use 'npm ci --omit=dev', not npm install`);
    if (!/--omit[= ]dev\b/.test(run.args)) problems.push(`RUN ${run.args}: installs dev dependencies (add --omit=dev)`);
  }
  const npmCiStage = stages.find((stage) => stage.instructions.some((i) => i.keyword === "RUN" && /\bnpm\s+ci\b/.test(i.args)));
  if (npmCiStage) {
    const ciIndex = npmCiStage.instructions.findIndex((i) => i.keyword === "RUN" && /\bnpm\s+ci\b/.test(i.args));
    const copied = npmCiStage.instructions.slice(0, ciIndex).filter((i) => i.keyword === "COPY").map((i) => i.args);
    for (const manifest of ["package.json", "package-lock.json", ...expect.manifests]) {
      const pattern = new RegExp(`(^|\\s)${manifest.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(\\s|$)`);
      if (!copied.some((args) => pattern.test(args))) problems.push(`${manifest} is not copied before 'npm ci': npm ci needs every workspace's manifest`);
    }
  }
  if (final.instructions.some((i) => i.keyword === "COPY" && !/--from=/.test(i.args) && /(^|\s|\/)node_modules(\s|\/|$)/.test(i.args))) {
    problems.push("the final stage copies node_modules from the build context (dev dependencies and host binaries); copy it from the dependency stage");
  }

  const user = final.instructions.filter((i) => i.keyword === "USER").at(-1);
  if (!user) problems.push("the final stage has no USER: the image would run as root");
  else {
    const [name = "", group] = user.args.split(":");
    if (name === "root" || name === "0" || group === "0" || group === "root") problems.push(`USER ${user.args}: must not be root`);
    else if (!/^\d+$/.test(name)) problems.push(`USER ${user.args}: use a numeric user, which Kubernetes' runAsNonRoot can verify`);
  }

  const health = final.instructions.filter((i) => i.keyword === "HEALTHCHECK").at(-1);
  if (!health || /^NONE\b/i.test(health.args)) problems.push("the final stage has no HEALTHCHECK");
  else if (!healthcheckCommand(text)) problems.push("HEALTHCHECK CMD must be in exec form (a JSON array): node:20-slim has no curl, call node");

  const exposed = new Set(
    final.instructions.filter((i) => i.keyword === "EXPOSE").flatMap((i) => i.args.split(/\s+/).map((port) => Number(port.split("/")[0]))),
  );
  for (const port of expect.ports) if (!exposed.has(port)) problems.push(`port ${port} is not EXPOSEd`);

  const entry = final.instructions.filter((i) => i.keyword === "ENTRYPOINT").at(-1);
  if (!entry) problems.push("no ENTRYPOINT: the image must start the twinport command");
  else if (!execForm(entry.args)) problems.push("ENTRYPOINT must be in exec form: in shell form, sh is PID 1 and SIGTERM never reaches node (no graceful shutdown)");
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
        .map((part) => part.split("*").map((piece) => piece.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\?/g, "[^/]")).join("[^/]*"))
        .join(".*");
      return { include, regex: new RegExp(`^${source.replace(/^\.\*\//, "(?:.*/)?")}$`) };
    });
  const segments = path.split("/");
  const candidates = segments.map((_, index) => segments.slice(0, index + 1).join("/"));
  let ignored = false;
  for (const rule of rules) if (candidates.some((candidate) => rule.regex.test(candidate))) ignored = !rule.include;
  return ignored;
}
