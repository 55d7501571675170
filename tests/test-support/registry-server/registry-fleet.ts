/**
 * The registries of the registry-sync black-box tests: two AAS registries (one configured the
 * FA³ST 1.3.0 way without /api/v3.0, one the FA³ST main way with it, behind a path and its own
 * auth header) and one submodel registry; helpers to compare what they hold with the model.
 */
import assert from "node:assert/strict";
import { type RecordedRequest, type RegistryServer, startRegistryServer } from "./registry-server.ts";

export const EXTERNAL_HOST = "twin.example.com";
export const SYNC_AUTH = { name: "Authorization", value: "Bearer sync-token" };
export const OWN_HEADER = { name: "X-Registry-Key", value: "key-2" };

export interface Fleet {
  aas1: RegistryServer;
  aas2: RegistryServer;
  submodels: RegistryServer;
  all: RegistryServer[];
  /** core.* settings naming these registries, with short retry bounds for tests. */
  core: Record<string, unknown>;
  stop(): Promise<void>;
}

export async function startFleet(): Promise<Fleet> {
  const aas1 = await startRegistryServer();
  const aas2 = await startRegistryServer({ prefix: "/registry/api/v3.0", requiredHeader: OWN_HEADER });
  const submodels = await startRegistryServer();
  const all = [aas1, aas2, submodels];
  return {
    aas1,
    aas2,
    submodels,
    all,
    core: {
      aasRegistries: [
        `http://127.0.0.1:${aas1.port}`,
        { url: aas2.url, headers: { [OWN_HEADER.name]: OWN_HEADER.value } },
      ],
      submodelRegistries: [`http://127.0.0.1:${submodels.port}/`],
      registrySynchronization: {
        auth: { header: SYNC_AUTH },
        retryMinDelay: 100,
        retryMaxDelay: 800,
        requestTimeout: 1000,
        shutdownTimeout: 2000,
      },
    },
    stop: async () => {
      await Promise.all(all.map((r) => r.stop()));
    },
  };
}

export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) assert.fail(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const b64 = (id: string) => Buffer.from(id, "utf8").toString("base64url");

/** The href of an interface of this server for an id, as the configuration says it is reachable. */
export function href(port: number, kind: "shells" | "submodels", id: string): string {
  return `https://${EXTERNAL_HOST}:${port}/api/v3.0/${kind}/${b64(id)}`;
}

type Descriptor = Record<string, any>;

/** The descriptor's endpoints: exactly one, of this server, with the interface name of its kind. */
export function assertEndpoints(descriptor: Descriptor, port: number, kind: "shells" | "submodels"): void {
  assert.deepEqual(descriptor.endpoints, [
    {
      interface: kind === "shells" ? "AAS-3.0" : "SUBMODEL-3.0",
      protocolInformation: {
        href: href(port, kind, descriptor.id),
        endpointProtocol: "HTTP",
        endpointProtocolVersion: ["1.1"],
      },
    },
  ]);
}

/** Shells as the model holds them → what the registries must hold (ids, idShorts, nesting). */
export interface ExpectedShell {
  id: string;
  idShort?: string;
  submodels: string[];
}

export function holdsExactly(registry: RegistryServer, shells: ExpectedShell[]): boolean {
  if (registry.shells.size !== shells.length) return false;
  return shells.every((shell) => {
    const held = registry.shells.get(shell.id);
    if (!held) return false;
    if (shell.idShort !== undefined && held.idShort !== shell.idShort) return false;
    const nested = ((held.submodelDescriptors as Descriptor[] | undefined) ?? []).map((d) => d.id);
    return JSON.stringify(nested) === JSON.stringify(shell.submodels);
  });
}

export function holdsSubmodels(registry: RegistryServer, ids: string[]): boolean {
  return registry.submodels.size === ids.length && ids.every((id) => registry.submodels.has(id));
}

/** Every body the registries received passed the schema validation (a 400 would be recorded). */
export function assertNoSchemaViolations(fleet: Fleet): void {
  for (const registry of fleet.all) {
    const refused = registry.requests.filter((r) => r.status === 400 || r.status === 401);
    assert.deepEqual(
      refused.map((r) => `${r.method} ${r.path} → ${r.status}`),
      [],
      `${registry.url} refused requests`,
    );
  }
}

export function requestsFor(registry: RegistryServer, id: string): RecordedRequest[] {
  return registry.requests.filter((r) => r.path.includes(b64(id)) || (r.body as Descriptor | undefined)?.id === id);
}

/**
 * With no HTTP endpoint serving the AAS API, the AAS registry is never asked (an AAS descriptor
 * would point nowhere) and the process log says why.
 */
export function assertNoShellRegistered(registry: RegistryServer, log: string): void {
  assert.equal(registry.shells.size, 0);
  assert.deepEqual(
    registry.requests.filter((r) => r.path.includes("/shell-descriptors")).map((r) => `${r.method} ${r.path}`),
    [],
  );
  assert.match(log, /registry-sync: no HTTP endpoint serves the AAS API .*: shells are not registered/);
}
