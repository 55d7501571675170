/**
 * A real OPC UA client (node-opcua-client over TCP) for tests of the AAS address space: connects
 * with its own PKI folder (never ~/.config), resolves our namespace, reads, writes, browses and
 * monitors nodes by their local NodeId (the part after "s=", see address-space/node-ids.ts).
 */
import { join } from "node:path";
import {
  AttributeIds,
  BrowseDirection,
  type ClientSession,
  ClientSubscription,
  DataType,
  type DataValue,
  MessageSecurityMode,
  NodeClass,
  OPCUACertificateManager,
  OPCUAClient,
  type ReferenceDescription,
  SecurityPolicy,
  type StatusCode,
  TimestampsToReturn,
  type UserIdentityInfo,
  Variant,
  type VariantOptions,
} from "node-opcua";

export const AAS_V3_NAMESPACE_URI = "urn:twinport:UA:AAS:v3";

/** How a monitor subscribes; the defaults are a low-latency client (publishing 5 ms, sampling 0). */
export interface MonitorOptions {
  publishingInterval?: number;
  /** 0: on change; -1: the publishing interval; common clients ask for the publishing interval. */
  samplingInterval?: number;
  queueSize?: number;
  /** The attribute to monitor (default Value). */
  attributeId?: AttributeIds;
}

export interface ValueMonitor {
  /** What the server answered: its revised publishing and sampling intervals and queue size. */
  readonly revised: { publishingInterval: number; samplingInterval: number; queueSize: number };
  /** The item's own result in the CreateMonitoredItems response. */
  readonly statusCode: StatusCode;
  /** Every notification received, oldest first. */
  readonly values: DataValue[];
  /** The first notification (already received or to come) that satisfies `predicate`. */
  waitFor(predicate: (value: DataValue) => boolean, timeoutMs?: number, what?: string): Promise<DataValue>;
  stop(): Promise<void>;
}

export interface OpcuaTestClient {
  session: ClientSession;
  /** Index of our AAS namespace on this server. */
  ns: number;
  nodeId(local: string): string;
  read(local: string, attributeId?: AttributeIds): Promise<DataValue>;
  write(local: string, value: VariantOptions): Promise<StatusCode>;
  /** Hierarchical children: browse name (without namespace) → reference. */
  children(local: string): Promise<Map<string, ReferenceDescription>>;
  /** undefined when the node does not exist. */
  exists(local: string): Promise<boolean>;
  monitor(local: string, options?: MonitorOptions): Promise<ValueMonitor>;
  call(
    objectLocal: string,
    methodLocal: string,
    inputArguments?: VariantOptions[],
  ): Promise<{ statusCode: StatusCode; outputArguments: Variant[] }>;
  close(): Promise<void>;
}

/** `userIdentity`: the session's identity (default anonymous), e.g. a UserName from the endpoint's userMap. */
export async function connectOpcua(
  endpointUrl: string,
  pkiDir: string,
  userIdentity?: UserIdentityInfo,
): Promise<OpcuaTestClient> {
  const certificates = new OPCUACertificateManager({
    rootFolder: join(pkiDir, "client-pki"),
    automaticallyAcceptUnknownCertificate: true,
  });
  await certificates.initialize();
  const client = OPCUAClient.create({
    endpointMustExist: false,
    securityMode: MessageSecurityMode.None,
    securityPolicy: SecurityPolicy.None,
    clientCertificateManager: certificates,
    connectionStrategy: { maxRetry: 0, initialDelay: 100 },
  });
  await client.connect(endpointUrl);
  const session = await client.createSession(userIdentity);
  const namespaces = (await session.readNamespaceArray()) as string[];
  const ns = namespaces.indexOf(AAS_V3_NAMESPACE_URI);
  if (ns < 0) throw new Error(`the server has no ${AAS_V3_NAMESPACE_URI} namespace: ${namespaces.join(", ")}`);
  const nodeId = (local: string) => `ns=${ns};s=${local}`;
  const subscriptions: ClientSubscription[] = [];

  return {
    session,
    ns,
    nodeId,
    read: (local, attributeId = AttributeIds.Value) => session.read({ nodeId: nodeId(local), attributeId }),
    write: (local, value) =>
      session.write({ nodeId: nodeId(local), attributeId: AttributeIds.Value, value: { value: new Variant(value) } }),
    async children(local) {
      const result = await session.browse({
        nodeId: nodeId(local),
        browseDirection: BrowseDirection.Forward,
        referenceTypeId: "HierarchicalReferences",
        includeSubtypes: true,
        nodeClassMask: 0,
        resultMask: 63,
      });
      return new Map((result.references ?? []).map((reference) => [reference.browseName.name ?? "", reference]));
    },
    async exists(local) {
      const value = await session.read({ nodeId: nodeId(local), attributeId: AttributeIds.NodeClass });
      return value.statusCode.isGood() && value.value.value !== NodeClass.Unspecified;
    },
    async monitor(local, options = {}) {
      const publishingInterval = options.publishingInterval ?? 5;
      const subscription = ClientSubscription.create(session, {
        requestedPublishingInterval: publishingInterval,
        // A keep-alive at least every 20 s: node-opcua-client refuses a subscription that could stay
        // silent for longer than the session timeout (60 s).
        requestedMaxKeepAliveCount: Math.max(3, Math.min(100, Math.floor(20_000 / publishingInterval))),
        requestedLifetimeCount: 1000,
        maxNotificationsPerPublish: 0,
        publishingEnabled: true,
      });
      subscriptions.push(subscription);
      const values: DataValue[] = [];
      const listeners = new Set<() => void>();
      const item = await subscription.monitor(
        { nodeId: nodeId(local), attributeId: options.attributeId ?? AttributeIds.Value },
        { samplingInterval: options.samplingInterval ?? 0, discardOldest: true, queueSize: options.queueSize ?? 100 },
        TimestampsToReturn.Both,
      );
      item.on("changed", (value: DataValue) => {
        values.push(value);
        for (const listener of [...listeners]) listener();
      });
      const revised = {
        publishingInterval: subscription.publishingInterval,
        samplingInterval: item.result?.revisedSamplingInterval ?? Number.NaN,
        queueSize: item.result?.revisedQueueSize ?? Number.NaN,
      };
      return {
        revised,
        statusCode: item.statusCode,
        values,
        waitFor(predicate, timeoutMs = 5000, what = "a matching notification") {
          return new Promise<DataValue>((resolve, reject) => {
            const check = () => {
              const found = values.find(predicate);
              if (found === undefined) return false;
              listeners.delete(check);
              clearTimeout(timer);
              resolve(found);
              return true;
            };
            const timer = setTimeout(() => {
              listeners.delete(check);
              reject(
                new Error(
                  `no ${what} within ${timeoutMs} ms; got ${values.map((v) => v.value.toString()).join(" | ")}`,
                ),
              );
            }, timeoutMs);
            if (!check()) listeners.add(check);
          });
        },
        async stop() {
          await subscription.terminate();
        },
      };
    },
    async call(objectLocal, methodLocal, inputArguments = []) {
      const result = await session.call({
        objectId: nodeId(objectLocal),
        methodId: nodeId(methodLocal),
        inputArguments,
      });
      return { statusCode: result.statusCode, outputArguments: result.outputArguments ?? [] };
    },
    async close() {
      for (const subscription of subscriptions) await subscription.terminate().catch(() => undefined);
      await session.close().catch(() => undefined);
      await client.disconnect();
      await certificates.dispose();
    },
  };
}

export { DataType };
