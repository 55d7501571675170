/**
 * docker-compose.yml and k8s/ describe the same topology; this names every place where they
 * disagree about a service: image, entry point and command (compose `command` = Kubernetes `args`),
 * environment keys, container ports, the ports offered to clients, and the liveness check.
 * Environment values may differ on purpose (the OPC UA host name, addresses); keys may not.
 */
import type { ServiceView } from "./deployment-compose.ts";

const same = (a: readonly unknown[] | undefined, b: readonly unknown[] | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const show = (value: unknown) => JSON.stringify(value ?? null);

export function parityProblems(
  compose: Record<string, ServiceView>,
  k8s: Record<string, ServiceView>,
  options: { published: readonly string[] },
): string[] {
  const problems: string[] = [];
  for (const name of [...new Set([...Object.keys(compose), ...Object.keys(k8s)])].sort()) {
    const c = compose[name];
    const k = k8s[name];
    if (!c || !k) {
      problems.push(`${name}: only in ${c ? "docker-compose.yml" : "k8s/"}`);
      continue;
    }
    if (c.image !== k.image) problems.push(`${name}: image ${c.image} in docker-compose.yml, ${k.image} in k8s/`);
    if (!same(c.entrypoint, k.entrypoint))
      problems.push(
        `${name}: entrypoint ${show(c.entrypoint)} in docker-compose.yml, command ${show(k.entrypoint)} in k8s/`,
      );
    if (!same(c.command, k.command))
      problems.push(`${name}: command ${show(c.command)} in docker-compose.yml, args ${show(k.command)} in k8s/`);
    const composeKeys = Object.keys(c.env).sort();
    const k8sKeys = Object.keys(k.env).sort();
    for (const key of composeKeys.filter((key) => !k8sKeys.includes(key)))
      problems.push(`${name}: environment ${key} only in docker-compose.yml`);
    for (const key of k8sKeys.filter((key) => !composeKeys.includes(key)))
      problems.push(`${name}: environment ${key} only in k8s/`);
    if (!same(c.containerPorts, k.containerPorts))
      problems.push(
        `${name}: container ports ${show(c.containerPorts)} in docker-compose.yml, ${show(k.containerPorts)} in k8s/`,
      );
    if (options.published.includes(name)) {
      const key = (ports: ServiceView["published"]) => ports.map((port) => `${port.host}->${port.container}`).sort();
      if (!same(key(c.published), key(k.published)))
        problems.push(
          `${name}: offered to clients as ${show(key(c.published))} in docker-compose.yml, ${show(key(k.published))} in k8s/`,
        );
    }
    if (!same([c.health?.path, c.health?.port], [k.health?.path, k.health?.port])) {
      problems.push(
        `${name}: health check ${show(c.health)} in docker-compose.yml, liveness probe ${show(k.health)} in k8s/`,
      );
    }
  }
  return problems;
}
