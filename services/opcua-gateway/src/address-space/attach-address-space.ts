import type { AccessPolicy, EventBus, OpcUaEndpointConfig, SecurityConfig, StoreClient } from "@twinport/shared";
import type { OPCUAServer } from "node-opcua";
import { createOperationInvoker } from "../methods/operation-invoker.ts";
import type { OperationInvoker } from "../methods/operation-method.ts";
import { applyAccessRules } from "../security/access-session-context.ts";
import type { IdentifiableCatalog } from "../security/node-access.ts";
import { type AddressSpaceSync, startAddressSpaceSync } from "../sync/address-space-sync.ts";
import { materializeIdentifiable, releaseIdentifiable } from "../sync/lazy-nodes.ts";
import { createValueWriter } from "../values/value-writer.ts";
import { resolveAasTypes } from "./aas-types.ts";
import { LazyIdentifiables } from "./lazy-identifiables.ts";
import { materializeOnRequest } from "./materialize-on-request.ts";
import { boundItemsPerNode } from "./monitored-items-per-node.ts";
import { pinMonitoredIdentifiables } from "./monitored-pins.ts";
import { NodeBuilder } from "./node-builder.ts";
import { CONCEPT_DESCRIPTIONS_NODE_ID, ENVIRONMENT_NODE_ID } from "./node-ids.ts";
import { publishChangesOnCommit } from "./publish-on-commit.ts";
import { reportValuesOnCommit } from "./report-on-commit.ts";
import type { SpecContext } from "./spec-context.ts";

/** The object every AAS node hangs below, under Objects (the layout FA³ST clients know). */
export const AAS_ENVIRONMENT_BROWSE_NAME = "AASEnvironment";

export interface AddressSpaceDeps {
  store: StoreClient;
  bus: EventBus;
  endpoint: OpcUaEndpointConfig;
  log(line: string): void;
  /** Lines that call for the operator's attention; default: `log`. */
  warn?(line: string): void;
  /** How Operation method calls run (default: InvokeOperation on the store, see operation-invoker.ts). */
  invoke?: OperationInvoker;
  /** The access rules, when security is configured: each session sees and may do what they grant it. */
  access?: { policy: AccessPolicy; roleAssignments: SecurityConfig["roleAssignments"] };
}

export interface AttachedAddressSpace {
  sync: AddressSpaceSync;
  /** Which identifiables have their nodes made now (ADR 0036). */
  lazy: LazyIdentifiables;
  /** Stops following the store's events (the nodes stay until the server shuts down). */
  stop(): Promise<void>;
}

/** Only *_READ profiles: value nodes read-only and methods not executable (docs/architecture.md §8). */
export function isReadOnlyEndpoint(endpoint: OpcUaEndpointConfig): boolean {
  return endpoint.profiles.length > 0 && endpoint.profiles.every((profile) => profile.endsWith("_READ"));
}

/**
 * Builds the AAS address space of an initialized server (made with aasServerOptions()) from a store
 * snapshot and keeps it in sync with the store's events. Resolves once the snapshot is built, so
 * the server can start serving a complete model.
 */
export async function attachAddressSpace(server: OPCUAServer, deps: AddressSpaceDeps): Promise<AttachedAddressSpace> {
  const addressSpace = server.engine.addressSpace;
  if (!addressSpace) throw new Error("attachAddressSpace needs an initialized OPC UA server");
  const types = resolveAasTypes(addressSpace);
  const builder = new NodeBuilder(types);
  const environment = builder.create(
    {
      class: "object",
      nodeId: ENVIRONMENT_NODE_ID,
      name: AAS_ENVIRONMENT_BROWSE_NAME,
      nameSpace: "v3",
      typeDefinition: types.objectType.AASEnvironmentType,
      reference: "organizes",
      children: [],
    },
    addressSpace.rootFolder.objects,
  );
  const conceptDescriptions = builder.create(
    {
      class: "object",
      nodeId: CONCEPT_DESCRIPTIONS_NODE_ID,
      name: "ConceptDescriptions",
      nameSpace: "v3",
      typeDefinition: types.objectType.FolderType,
      reference: "organizes",
      children: [],
    },
    environment,
  );

  let sync: AddressSpaceSync | undefined;
  const writer = createValueWriter({
    store: deps.store,
    // Writes can only arrive once the server started, i.e. after the first snapshot.
    waitForSeq: (seq, timeoutMs) => sync!.waitForSeq(seq, timeoutMs),
    log: deps.log,
  });
  const ctx: SpecContext = {
    types,
    structures: {
      addressSpace,
      key: types.dataType.AASKeyDataType,
      specificAssetId: types.dataType.AASSpecificAssetIdDataType,
    },
    writer,
    writable: !isReadOnlyEndpoint(deps.endpoint),
    invoke: deps.invoke ?? createOperationInvoker({ store: deps.store, log: deps.log }),
  };
  if (deps.access) {
    const catalog: IdentifiableCatalog = new Map();
    ctx.catalog = catalog;
    applyAccessRules(server, { ...deps.access, catalog, namespaceIndex: types.v3Index });
  }
  // Identifiables get their own node from the snapshot; what hangs below it on first use (ADR 0036).
  const lazy = new LazyIdentifiables({
    releaseAfterMs: deps.endpoint.releaseUnusedNodesAfterMs,
    maxElements: deps.endpoint.maxMaterializedElements,
    warn: deps.warn ?? deps.log,
  });
  const target = { store: deps.store, log: deps.log, builder, ctx, environment, conceptDescriptions, lazy };
  sync = await startAddressSpaceSync({ bus: deps.bus, target, log: deps.log });
  const running = sync;
  lazy.start({
    materialize: (id) => running.exclusive(() => materializeIdentifiable(target, id)),
    release: (ids) =>
      running.exclusive(() => {
        const released = new Set(ids.filter((id) => releaseIdentifiable(target, id)));
        if (released.size > 0) builder.forgetLinksOf(released);
      }),
  });
  const stopPinning = pinMonitoredIdentifiables(server, lazy, types.v3Index);
  const stopMaterializing = materializeOnRequest(server, { lazy, namespaceIndex: types.v3Index, log: deps.log });
  // Before making anything for it: a session's items per node are bounded (monitored-items-per-node.ts).
  const stopBounding = boundItemsPerNode(server);
  // Value items exception-based whatever sampling interval they ask for (ADR 0016); no client can
  // subscribe yet, the server starts serving after this.
  const stopReporting = reportValuesOnCommit(server, types.v3Index);
  // …and sent in the turn their commit arrives, unless the subscription just published (ADR 0028).
  const stopPublishing = publishChangesOnCommit(server, types.v3Index);
  return {
    sync,
    lazy,
    stop: () => {
      lazy.stop();
      stopBounding();
      stopMaterializing();
      stopPinning();
      stopReporting();
      stopPublishing();
      return sync.stop();
    },
  };
}
