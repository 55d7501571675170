/**
 * The external programs the deployment checks run: Debian's docker-compose (validates the compose
 * file), kubectl (its bundled kustomize renders k8s/) and haproxy (checks the compose proxy's
 * configuration). scripts/ensure-servers.sh installs them; a missing one fails the check that
 * needs it with the command to fix it, never skips it.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export type DeploymentTool = "docker-compose" | "kubectl" | "haproxy";

const DEBIAN_PACKAGE: Record<DeploymentTool, string> = {
  "docker-compose": "docker-compose",
  kubectl: "kubernetes-client",
  haproxy: "haproxy",
};

/** Debian puts haproxy in /usr/sbin, which is not on every user's PATH. */
export function toolBinary(name: DeploymentTool): string {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/usr/bin", "/usr/local/bin"])) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(
    `${name} is not installed: run 'bash scripts/ensure-servers.sh' as root (it installs the Debian package ${DEBIAN_PACKAGE[name]}), or install it yourself`,
  );
}

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a tool to completion; a timeout counts as a failure (status null). */
export function runTool(
  name: DeploymentTool,
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): ToolRun {
  const result = spawnSync(toolBinary(name), args, {
    cwd: options.cwd,
    encoding: "utf8",
    timeout: options.timeoutMs ?? 60_000,
    // docker-compose reads COMPOSE_* and the variables the file interpolates; keep the caller's
    // own settings out so a developer's shell cannot change the verdict.
    env: Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith("COMPOSE_") && key !== "OPCUA_HOSTNAME"),
    ),
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code !== "ETIMEDOUT") throw result.error;
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}
