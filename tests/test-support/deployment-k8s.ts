/**
 * k8s/ as data: rendered with kubectl's bundled kustomize, each object validated against the
 * Kubernetes schemas (kubernetes-models), misspelled fields caught through kubernetes-models' own
 * TypeScript types (the JSON schemas accept unknown fields; `kubectl apply` does not), the
 * kustomization files held to the subset old kustomize understands, and the structural rules of
 * docs/adr/0005 checked. The view of each service matches deployment-compose.ts's.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isoDurationToMs } from "@twinport/shared";
import ts from "typescript";
import { parse, parseAllDocuments } from "yaml";
import type { ServiceView } from "./deployment-compose.ts";
import { runTool } from "./deployment-tools.ts";

// Objects are plain JSON from YAML; these types name only what the checks read.
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string } & Record<string, unknown>;
} & Record<string, any>;

/** `kubectl kustomize <dir>`: the objects, or the tool's own error. */
export function renderKustomization(dir: string): K8sObject[] {
  const run = runTool("kubectl", ["kustomize", dir]);
  if (run.status !== 0)
    throw new Error(`kubectl kustomize ${dir} failed: ${run.stderr.trim() || `exit ${run.status}`}`);
  return parseAllDocuments(run.stdout)
    .map((doc) => doc.toJSON() as K8sObject | null)
    .filter((doc): doc is K8sObject => doc !== null);
}

const label = (object: K8sObject) => `${object.kind}/${object.metadata?.name}`;

/** kubernetes-models' JSON-schema validation of each object; an unknown apiVersion/kind is a problem too. */
export async function schemaProblems(objects: readonly K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    let models: Record<string, unknown>;
    try {
      models = await import(`kubernetes-models/${object.apiVersion}`);
    } catch {
      problems.push(`${label(object)}: unknown apiVersion ${object.apiVersion}`);
      continue;
    }
    const Model = models[object.kind] as (new (data: unknown) => { validate(): void }) | undefined;
    if (!Model) {
      problems.push(`${label(object)}: ${object.apiVersion} has no kind ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${label(object)}: ${(error as Error).message}`);
    }
  }
  return problems;
}

const HERE = dirname(new URL(import.meta.url).pathname);

/**
 * Type-checks every object against kubernetes-models' interface for its kind, as an object
 * literal: TypeScript's excess-property check then names any field Kubernetes does not know
 * (`readinesProbe`), at any depth. One compiler run for all objects (a few seconds).
 */
export function unknownFieldProblems(objects: readonly K8sObject[]): string[] {
  const lines = objects.flatMap((object, index) => [
    `import type { I${object.kind} as T${index} } from "kubernetes-models/${object.apiVersion}/${object.kind}";`,
    `export const o${index}: T${index} = ${JSON.stringify(object)};`,
  ]);
  const file = join(HERE, "deployment-k8s-objects.virtual.ts");
  const text = lines.join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? text : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, version, onError) =>
    name === file ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, onError);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
        : -1;
    const object = objects[Math.floor(line / 2)];
    const where = object ? label(object) : "(objects)";
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
  });
}

/**
 * Fields kustomize v2.0.3 (bundled in kubectl up to 1.20, Debian's kubernetes-client) knows. Newer
 * ones (`patches`, `labels`, `components`, `replacements`, …) make it fail, and a directory under
 * `resources` is an error there: directories go under `bases`.
 */
const OLD_KUSTOMIZE_FIELDS = new Set([
  "apiVersion",
  "kind",
  "namespace",
  "namePrefix",
  "nameSuffix",
  "commonLabels",
  "commonAnnotations",
  "resources",
  "bases",
  "configMapGenerator",
  "secretGenerator",
  "generatorOptions",
  "patchesStrategicMerge",
  "patchesJson6902",
  "images",
  "vars",
  "crds",
]);

/** The kustomization in `dir` and every base it names, held to kustomize v2.0.3's subset. */
export function oldKustomizeProblems(dir: string, seen = new Set<string>()): string[] {
  const root = resolve(dir);
  if (seen.has(root)) return [];
  seen.add(root);
  const file = join(root, "kustomization.yaml");
  const doc = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(doc))
    if (!OLD_KUSTOMIZE_FIELDS.has(key)) problems.push(`${file}: '${key}' is unknown to old kustomize (v2.0.3)`);
  for (const entry of (doc.resources as string[] | undefined) ?? []) {
    const path = join(root, entry);
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
      problems.push(`${file}: directory '${entry}' under resources (old kustomize wants it under bases)`);
  }
  for (const base of (doc.bases as string[] | undefined) ?? [])
    problems.push(...oldKustomizeProblems(join(root, base), seen));
  return problems;
}

/** Every folder below `dir` that holds a kustomization (k8s/, its base, each overlay). */
export function kustomizationDirs(dir: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    const entries = readdirSync(folder, { withFileTypes: true });
    if (entries.some((entry) => entry.isFile() && entry.name === "kustomization.yaml")) found.push(folder);
    for (const entry of entries) if (entry.isDirectory()) walk(join(folder, entry.name));
  };
  walk(dir);
  return found.sort();
}

type PodSpec = Record<string, any>;
type Container = Record<string, any>;

const WORKLOAD_KINDS = new Set(["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"]);

function podSpecOf(object: K8sObject): PodSpec | undefined {
  if (object.kind === "CronJob") return object.spec?.jobTemplate?.spec?.template?.spec;
  return WORKLOAD_KINDS.has(object.kind) ? object.spec?.template?.spec : undefined;
}

function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((object) => object.kind === kind && object.metadata.name === name);
}

function containerPortNumber(container: Container, port: number | string | undefined): number | undefined {
  if (typeof port === "number") return port;
  return (container.ports as { name?: string; containerPort: number }[] | undefined)?.find(
    (entry) => entry.name === port,
  )?.containerPort;
}

function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return (
    !!selector &&
    Object.keys(selector).length > 0 &&
    Object.entries(selector).every(([key, value]) => labels?.[key] === value)
  );
}

/** A generated ConfigMap is named `<name>-<hash>`; references in the render already carry the hash. */
function configMapData(objects: readonly K8sObject[], name: string): Record<string, string> | undefined {
  return find(objects, "ConfigMap", name)?.data as Record<string, string> | undefined;
}

/** The workload (Deployment or StatefulSet) named `name`, its first container, and the Services in front of it. */
export function k8sServiceView(objects: readonly K8sObject[], name: string): ServiceView {
  const workload = find(objects, "Deployment", name) ?? find(objects, "StatefulSet", name);
  if (!workload) throw new Error(`k8s: no Deployment or StatefulSet '${name}'`);
  const container =
    (podSpecOf(workload)!.containers as Container[]).find((entry) => entry.name === name) ??
    podSpecOf(workload)!.containers[0];
  const env = Object.fromEntries(
    ((container.env as { name: string; value?: string; valueFrom?: any }[] | undefined) ?? []).map((entry) => {
      const ref = entry.valueFrom?.configMapKeyRef;
      return [entry.name, ref ? configMapData(objects, ref.name)?.[ref.key] : entry.value];
    }),
  );
  const podLabels = workload.spec.template.metadata?.labels as Record<string, string> | undefined;
  const published = objects
    .filter((object) => object.kind === "Service" && selects(object.spec?.selector, podLabels))
    .flatMap((service) =>
      (service.spec.ports as { port: number; targetPort?: number | string }[]).map((port) => ({
        host: port.port,
        container: containerPortNumber(container, port.targetPort ?? port.port) ?? -1,
      })),
    );
  const probe = container.livenessProbe?.httpGet;
  return {
    image: String(container.image),
    entrypoint: container.command,
    command: container.args,
    env,
    containerPorts: ((container.ports as { containerPort: number }[] | undefined) ?? [])
      .map((port) => port.containerPort)
      .sort((a, b) => a - b),
    published,
    health: probe ? { path: probe.path, port: containerPortNumber(container, probe.port) ?? -1 } : undefined,
  };
}

/** runRole's bound on a shutdown (after core.shutdownDelay), past which the process exits 1 by itself. */
const STOP_TIMEOUT_S = 30;

/** The rules of docs/adr/0005 for the rendered objects; one sentence per broken rule. */
export function k8sProblems(
  objects: readonly K8sObject[],
  expect: { namespace: string; services: readonly string[]; gateways: readonly string[]; stateful: readonly string[] },
): string[] {
  const problems: string[] = [];
  if (!find(objects, "Namespace", expect.namespace)) problems.push(`no Namespace ${expect.namespace}`);
  for (const object of objects) {
    if (object.kind !== "Namespace" && object.metadata.namespace !== expect.namespace)
      problems.push(`${label(object)}: not in namespace ${expect.namespace}`);
    const pod = podSpecOf(object);
    if (pod && pod.enableServiceLinks !== false)
      problems.push(`${label(object)}: enableServiceLinks must be false (Kubernetes would inject service variables)`);
    // Every ConfigMap and Secret a pod names must be one the render makes (generated names carry a hash).
    for (const volume of (pod?.volumes as any[] | undefined) ?? []) {
      if (volume.configMap && !find(objects, "ConfigMap", volume.configMap.name))
        problems.push(
          `${label(object)}: volume ${volume.name} names ConfigMap ${volume.configMap.name}, which the render does not contain`,
        );
    }
    for (const container of (pod?.containers as Container[] | undefined) ?? []) {
      for (const entry of (container.env as any[] | undefined) ?? []) {
        const ref = entry.valueFrom?.configMapKeyRef;
        if (ref && configMapData(objects, ref.name)?.[ref.key] === undefined)
          problems.push(
            `${label(object)}: ${entry.name} reads ${ref.name}/${ref.key}, which the render does not contain`,
          );
      }
    }
  }
  for (const name of expect.services) {
    const deployment = find(objects, "Deployment", name);
    if (!deployment) {
      problems.push(`no Deployment ${name}`);
      continue;
    }
    const container = (podSpecOf(deployment)!.containers as Container[])[0]!;
    if (!container.resources?.requests?.cpu || !container.resources?.requests?.memory)
      problems.push(`Deployment/${name}: no cpu and memory requests (the autoscaler needs the cpu request)`);
    if (!container.resources?.limits?.memory) problems.push(`Deployment/${name}: no memory limit`);
    for (const probe of ["readinessProbe", "livenessProbe"])
      if (!container[probe]) problems.push(`Deployment/${name}: no ${probe}`);
    const labels = deployment.spec.template.metadata?.labels;
    if (
      !objects.some(
        (object) => object.kind === "PodDisruptionBudget" && selects(object.spec?.selector?.matchLabels, labels),
      )
    )
      problems.push(`Deployment/${name}: no PodDisruptionBudget`);
    const hpa = objects.find(
      (object) =>
        object.kind === "HorizontalPodAutoscaler" &&
        object.spec?.scaleTargetRef?.kind === "Deployment" &&
        object.spec.scaleTargetRef.name === name,
    );
    if (!hpa) problems.push(`Deployment/${name}: no HorizontalPodAutoscaler`);
    else if (deployment.spec.replicas !== undefined)
      problems.push(`Deployment/${name}: sets replicas, which fights its HorizontalPodAutoscaler on every apply`);
  }
  // docs/adr/0052: a gateway behind a Service serves on while the Service drops it, and SIGKILL
  // comes only after the delay and the shutdown (at most STOP_TIMEOUT_S) are over.
  for (const name of expect.services) {
    const deployment = find(objects, "Deployment", name);
    if (!deployment) continue;
    const container = (podSpecOf(deployment)!.containers as Container[])[0]!;
    const delay = ((container.env as { name: string; value?: string }[] | undefined) ?? []).find(
      (entry) => entry.name === "TWINPORT_CORE_SHUTDOWNDELAY",
    )?.value;
    const delayS = delay === undefined ? 0 : isoDurationToMs(delay) / 1000;
    if (expect.gateways.includes(name) && delayS === 0)
      problems.push(
        `Deployment/${name}: no TWINPORT_CORE_SHUTDOWNDELAY, so it closes its port while the Service still sends to it`,
      );
    const grace = podSpecOf(deployment)!.terminationGracePeriodSeconds ?? 30;
    if (grace <= delayS + STOP_TIMEOUT_S)
      problems.push(
        `Deployment/${name}: terminationGracePeriodSeconds ${grace} does not cover the shutdown delay (${delayS} s) and the shutdown (${STOP_TIMEOUT_S} s)`,
      );
  }
  for (const name of expect.gateways) {
    const view = (() => {
      try {
        return k8sServiceView(objects, name);
      } catch {
        return undefined;
      }
    })();
    if (view && view.published.length === 0) problems.push(`Deployment/${name}: no Service in front of it`);
  }
  for (const name of expect.stateful) {
    const set = find(objects, "StatefulSet", name);
    if (!set) {
      problems.push(`no StatefulSet ${name}`);
      continue;
    }
    const claims = ((set.spec.volumeClaimTemplates as any[] | undefined) ?? []).map((claim) => claim.metadata?.name);
    const mounts =
      ((podSpecOf(set)!.containers as Container[])[0]!.volumeMounts as { name: string }[] | undefined) ?? [];
    if (!mounts.some((mount) => claims.includes(mount.name)))
      problems.push(`StatefulSet/${name}: its data is not on a persistent volume claim`);
    const labels = set.spec.template.metadata?.labels;
    if (
      !objects.some(
        (object) =>
          object.kind === "NetworkPolicy" &&
          selects(object.spec?.podSelector?.matchLabels, labels) &&
          (object.spec?.ingress?.length ?? 0) > 0,
      )
    ) {
      problems.push(`StatefulSet/${name}: no NetworkPolicy limits who reaches it`);
    }
  }
  return problems;
}

/** Spec §5.1: `<serverCertificateBasePath>/private/<application name>@<hostname>_2048.der` and `.pem`. */
export const OPCUA_SERVER_APPLICATION_NAME = "Twinport AAS OPC UA Server";

/**
 * Every OPC UA replica must find the shared certificate where the gateway looks for it: the Secret
 * mounted on `<serverCertificateBasePath>/private`, its two files named after the advertised host
 * name. A host name changed without renaming the files makes each replica create its own.
 */
export function opcuaCertificateProblems(
  objects: readonly K8sObject[],
  endpoint: { hostname: string; serverCertificateBasePath: string },
  secretName: string,
): string[] {
  const deployment = find(objects, "Deployment", "opcua-gateway");
  if (!deployment) return ["no Deployment opcua-gateway"];
  const pod = podSpecOf(deployment)!;
  const volume = ((pod.volumes as any[] | undefined) ?? []).find((entry) => entry.secret?.secretName === secretName);
  if (!volume) return [`Deployment/opcua-gateway: does not mount the Secret ${secretName}`];
  const problems: string[] = [];
  const stem = `${OPCUA_SERVER_APPLICATION_NAME}@${endpoint.hostname}_2048`;
  const paths = ((volume.secret.items as { path: string }[] | undefined) ?? []).map((item) => item.path).sort();
  if (JSON.stringify(paths) !== JSON.stringify([`${stem}.der`, `${stem}.pem`]))
    problems.push(
      `Deployment/opcua-gateway: the Secret's files are ${JSON.stringify(paths)}, the gateway looks for "${stem}.der" and "${stem}.pem"`,
    );
  const mounts = ((pod.containers as Container[])[0]!.volumeMounts as { name: string; mountPath: string }[])
    .filter((mount) => mount.name === volume.name)
    .map((mount) => mount.mountPath);
  const expected = `${endpoint.serverCertificateBasePath.replace(/\/$/, "")}/private`;
  if (JSON.stringify(mounts) !== JSON.stringify([expected]))
    problems.push(
      `Deployment/opcua-gateway: the Secret is mounted at ${JSON.stringify(mounts)}, the gateway looks in ${expected}`,
    );
  return problems;
}

/** Pods whose labels match a NetworkPolicy's `from` peers, by workload name. */
export function allowedClients(objects: readonly K8sObject[], target: string): string[] {
  const workload = find(objects, "StatefulSet", target) ?? find(objects, "Deployment", target);
  const labels = workload?.spec.template.metadata?.labels;
  const policies = objects.filter(
    (object) => object.kind === "NetworkPolicy" && selects(object.spec?.podSelector?.matchLabels, labels),
  );
  const workloads = objects.filter((object) => object.kind === "Deployment" || object.kind === "StatefulSet");
  const matches = (peer: any, podLabels: Record<string, string>) => {
    if (peer.namespaceSelector || peer.ipBlock) return false;
    const selector = peer.podSelector ?? {};
    const byLabels = Object.entries((selector.matchLabels ?? {}) as Record<string, string>).every(
      ([key, value]) => podLabels[key] === value,
    );
    const byExpressions = (
      (selector.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[]
    ).every((expression) =>
      expression.operator === "In"
        ? expression.values?.includes(podLabels[expression.key]!)
        : expression.operator === "Exists"
          ? expression.key in podLabels
          : false,
    );
    return byLabels && byExpressions;
  };
  return workloads
    .filter((candidate) =>
      policies.some((policy) =>
        // A rule without `from` lets everyone in.
        ((policy.spec.ingress ?? []) as any[]).some(
          (rule) =>
            !rule.from?.length ||
            rule.from.some((peer: any) => matches(peer, candidate.spec.template.metadata?.labels ?? {})),
        ),
      ),
    )
    .map((candidate) => candidate.metadata.name)
    .sort();
}
