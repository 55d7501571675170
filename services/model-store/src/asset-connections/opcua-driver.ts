import type { OpcUaAssetConnectionConfig, ProviderTarget, StoreClient } from "@twinport/shared";
import {
  AttributeIds,
  type ClientSession,
  ClientSubscription,
  coerceNodeId,
  DataType,
  type DataValue,
  MessageSecurityMode,
  type NodeId,
  OPCUAClient,
  SecurityPolicy,
  type StatusCode,
  TimestampsToReturn,
} from "node-opcua-client";
import {
  type AssetConnectionDriver,
  AssetError,
  type AssetReading,
  type ProviderConfigs,
  type ReadSource,
} from "./asset-connection-types.ts";
import { propertyBody, propertyLexical } from "./asset-value.ts";
import { createOpcuaOperationProvider } from "./opcua-operation.ts";
import { type OpcuaClientSecurity, prepareClientSecurity } from "./opcua-security.ts";
import {
  concreteDataType,
  lexicalFromOpcua,
  opcuaFromLexical,
  parseArrayIndex,
  scalarOf,
  withElement,
} from "./opcua-values.ts";

type OpcuaConfigs = Extract<ProviderConfigs, { kind: "opcua" }>;

export interface OpcuaDriverOptions {
  config: OpcUaAssetConnectionConfig;
  store: StoreClient;
  log: (line: string) => void;
  /** How long a session opened only for operation calls stays open after the last one. */
  idleCloseMs?: number;
}

/** The session and what belongs to it; replaced as a whole on reconnect. */
export interface OpcuaLink {
  session: ClientSession;
  /** Resolves "nsu=<uri>;…" through the server's namespace table. */
  nodeId(text: string): NodeId;
}

function isGood(dataValue: DataValue): boolean {
  return dataValue.statusCode.isGood();
}

/**
 * Statuses saying the node itself is not there (not yet made, or deleted by a reconfigured device;
 * node-opcua's server answers BadNodeIdInvalid for a deleted one). They are worth trying again, and a
 * monitored item that reported one stays dead on the server even when the node comes back.
 */
function isNodeMissing(statusCode: StatusCode): boolean {
  return statusCode.name === "BadNodeIdUnknown" || statusCode.name === "BadNodeIdInvalid";
}

/** One message for every way a missing node shows, so an outage is logged once, not once per status. */
function nodeMissing(nodeText: string): AssetError {
  return new AssetError(`the server has no node ${nodeText} (BadNodeIdUnknown/BadNodeIdInvalid)`, { retryable: true });
}

function connectError(error: unknown, host: string): AssetError {
  const message = (error as Error).message ?? String(error);
  return new AssetError(`${host}: ${message.split("\n")[0]}`, { retryable: true, cause: error });
}

/** A text key of a scalar for duplicate detection. */
function keyOf(value: unknown): string {
  if (Buffer.isBuffer(value)) return `b:${value.toString("base64")}`;
  if (value instanceof Date) return `d:${value.toISOString()}`;
  if (Array.isArray(value)) return `a:${value.join(",")}`;
  if (typeof value === "object" && value !== null)
    return `o:${String((value as { text?: unknown }).text ?? value.toString())}`;
  return `${typeof value}:${String(value)}`;
}

/**
 * OPC UA asset connection (docs/reference/faaast-asset-connections.md §4) with node-opcua-client. Connecting means
 * endpoint selection (by security policy and mode), session and — once a monitored item needs it —
 * one subscription for the whole connection. node-opcua's own reconnection is off (maxRetry 0): the
 * runner's retry with back-off is the one place that reconnects, so the state it reports is true.
 *
 * Operation calls work on every replica: without the runner's session they open one on demand and
 * close it after `idleCloseMs` without calls.
 */
export function createOpcuaDriver(options: OpcuaDriverOptions): AssetConnectionDriver<OpcuaConfigs> {
  const { config } = options;
  const idleCloseMs = options.idleCloseMs ?? 60_000;
  let security: Promise<OpcuaClientSecurity> | undefined;
  let client: OPCUAClient | undefined;
  let link: OpcuaLink | undefined;
  let opening: Promise<OpcuaLink> | undefined;
  let subscription: Promise<ClientSubscription> | undefined;
  let wanted = false;
  let closed = false;
  let lastAttemptFailed = false;
  let idleTimer: NodeJS.Timeout | undefined;
  const lostListeners: ((reason: string) => void)[] = [];
  const samplingIntervals: number[] = [];

  const teardown = async () => {
    const [oldClient, oldLink, oldSubscription] = [client, link, subscription];
    client = undefined;
    link = undefined;
    subscription = undefined;
    await oldSubscription?.then((s) => s.terminate()).catch(() => undefined);
    await oldLink?.session.close().catch(() => undefined);
    await oldClient?.disconnect().catch(() => undefined);
  };

  const open = (): Promise<OpcuaLink> => {
    if (closed) return Promise.reject(new AssetError("the asset connection is closed", { retryable: false }));
    if (link) return Promise.resolve(link);
    opening ??= (async () => {
      try {
        const secured = await (security ??= prepareClientSecurity(config));
        // A refused server certificate is indexed as rejected until the folders are read again; an
        // operator may have moved it to pki/trusted/certs since the last attempt.
        if (lastAttemptFailed) await secured.certificateManager.reloadCertificates().catch(() => undefined);
        const created = OPCUAClient.create({
          applicationName: "Twinport asset connection",
          ...(secured.applicationUri ? { applicationUri: secured.applicationUri } : {}),
          clientName: `twinport-${config.host}`,
          securityMode: MessageSecurityMode[config.securityMode],
          securityPolicy: SecurityPolicy[config.securityPolicy],
          endpointMustExist: false,
          connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 1000 },
          keepSessionAlive: true,
          defaultTransactionTimeout: config.requestTimeout,
          transportTimeout: config.acknowledgeTimeout,
          clientCertificateManager: secured.certificateManager,
          ...(secured.certificateFile
            ? { certificateFile: secured.certificateFile, privateKeyFile: secured.privateKeyFile }
            : {}),
        });
        const lost = (reason: string) => {
          if (client !== created) return;
          void teardown();
          for (const listener of lostListeners) listener(reason);
        };
        created.on("connection_lost", () => lost("the connection to the server was lost"));
        created.on("close", (error?: Error | null) => {
          if (error) lost(`the connection closed: ${error.message}`);
        });
        let session: ClientSession;
        try {
          await created.connect(config.host);
          session = await created.createSession(secured.userIdentity);
        } catch (error) {
          lastAttemptFailed = true;
          await created.disconnect().catch(() => undefined);
          throw connectError(error, config.host);
        }
        lastAttemptFailed = false;
        session.on("keepalive_failure", () => lost("the session's keep-alive failed"));
        const namespaces = (await session.read({ nodeId: "i=2255", attributeId: AttributeIds.Value })).value
          .value as string[];
        const nodeId = (text: string) => {
          const match = /^nsu=([^;]*);(.*)$/.exec(text);
          if (!match) return coerceNodeId(text);
          const index = namespaces.indexOf(match[1]!);
          if (index < 0)
            throw new AssetError(`the server has no namespace ${match[1]} (nodeId ${text})`, { retryable: false });
          return coerceNodeId(`ns=${index};${match[2]}`);
        };
        client = created;
        link = { session, nodeId };
        return link;
      } finally {
        opening = undefined;
      }
    })();
    return opening;
  };

  /** The link the runner opened; a value provider never opens one by itself. */
  const current = (): OpcuaLink => {
    if (!link) throw new AssetError(`not connected to ${config.host}`, { retryable: true });
    return link;
  };

  const ensureSubscription = (session: ClientSession): Promise<ClientSubscription> =>
    (subscription ??= (async () => {
      const fastest = Math.min(1000, ...samplingIntervals);
      return ClientSubscription.create(session, {
        requestedPublishingInterval: Math.max(50, fastest),
        requestedLifetimeCount: 600,
        requestedMaxKeepAliveCount: 20,
        maxNotificationsPerPublish: 0,
        publishingEnabled: true,
        priority: 1,
      });
    })());

  /** Sends a stored-value reading into the model: OPC UA values only fit Properties (FA³ST checks the same). */
  const reading = (value: unknown, dataType: DataType): AssetReading => ({
    key: `${dataType}:${keyOf(value)}`,
    bodyFor(element) {
      if (element.modelType !== "Property")
        throw new AssetError(`OPC UA values go to Properties only (this element is a ${String(element.modelType)})`, {
          retryable: false,
        });
      return propertyBody(lexicalFromOpcua(value, dataType, String(element.valueType)));
    },
  });

  const readingOf = (dataValue: DataValue, index: number[] | undefined, nodeText: string): AssetReading => {
    if (isNodeMissing(dataValue.statusCode)) throw nodeMissing(nodeText);
    if (!isGood(dataValue))
      throw new AssetError(`reading ${nodeText} answered ${dataValue.statusCode.name}`, { retryable: false });
    return reading(scalarOf(dataValue.value, index), dataValue.value.dataType);
  };

  const monitored = (nodeText: string, index: number[] | undefined, samplingInterval: number): ReadSource => {
    samplingIntervals.push(samplingInterval);
    return {
      mode: "push",
      async start(sink) {
        const { session, nodeId } = current();
        const subscriptionNow = await ensureSubscription(session);
        const item = await subscriptionNow.monitor(
          { nodeId: nodeId(nodeText), attributeId: AttributeIds.Value },
          { samplingInterval, discardOldest: true, queueSize: 10 },
          TimestampsToReturn.Both,
        );
        if (item.statusCode && !item.statusCode.isGood()) {
          await item.terminate().catch(() => undefined);
          if (isNodeMissing(item.statusCode)) throw nodeMissing(nodeText);
          throw new AssetError(`monitoring ${nodeText} answered ${item.statusCode.name}`, { retryable: false });
        }
        item.on("changed", (dataValue: DataValue) => {
          if (isNodeMissing(dataValue.statusCode)) return sink.ended(nodeMissing(nodeText));
          try {
            sink.reading(readingOf(dataValue, index, nodeText));
          } catch (error) {
            sink.error(error);
          }
        });
        item.on("err", (message: string) =>
          sink.error(new AssetError(`monitoring ${nodeText}: ${message}`, { retryable: false })),
        );
        return async () => {
          await item.terminate().catch(() => undefined);
        };
      },
      async readOnce() {
        const { session, nodeId } = current();
        return readingOf(
          await session.read({ nodeId: nodeId(nodeText), attributeId: AttributeIds.Value }),
          index,
          nodeText,
        );
      },
    };
  };

  return {
    kind: "opcua",
    endpoint: config.host,
    async connect() {
      wanted = true;
      clearTimeout(idleTimer);
      await open();
    },
    async disconnect() {
      wanted = false;
      await teardown();
    },
    onLost(listener) {
      lostListeners.push(listener);
    },
    valueProvider(target: ProviderTarget, provider) {
      const index = parseArrayIndex(provider.arrayIndex);
      const mode = provider.readWriteMode;
      const canRead = mode === "READ" || mode === "READ_WRITE";
      const canWrite = mode === "WRITE" || mode === "READ_WRITE";
      let read: ReadSource | undefined;
      if (canRead) {
        read =
          provider.readInterval > 0
            ? monitored(provider.nodeId, index, provider.readInterval)
            : {
                mode: "poll",
                intervalMs: 0,
                async read() {
                  const { session, nodeId } = current();
                  return readingOf(
                    await session.read({ nodeId: nodeId(provider.nodeId), attributeId: AttributeIds.Value }),
                    index,
                    provider.nodeId,
                  );
                },
              };
      }
      return {
        target,
        ...(read ? { read } : {}),
        ...(canWrite
          ? {
              async write(element) {
                const lexical = propertyLexical(element);
                const { session, nodeId } = current();
                const node = nodeId(provider.nodeId);
                const [currentValue, dataTypeAttribute] = await session.read([
                  { nodeId: node, attributeId: AttributeIds.Value },
                  { nodeId: node, attributeId: AttributeIds.DataType },
                ]);
                if (!isGood(currentValue!))
                  throw new AssetError(
                    `reading ${provider.nodeId} before writing answered ${currentValue!.statusCode.name}`,
                    { retryable: false },
                  );
                const variant = currentValue!.value;
                const typeId = dataTypeAttribute!.value.value as NodeId | null;
                const dataType =
                  variant.dataType !== DataType.Null
                    ? variant.dataType
                    : typeId && typeId.namespace === 0
                      ? concreteDataType(Number(typeId.value))
                      : undefined;
                if (dataType === undefined)
                  throw new AssetError(`the DataType of ${provider.nodeId} is not one a Property value converts to`, {
                    retryable: false,
                  });
                const scalar = opcuaFromLexical(lexical, dataType, String(element.valueType));
                const value = index ? withElement(variant, index, scalar) : scalar;
                const status = await session.write({
                  nodeId: node,
                  attributeId: AttributeIds.Value,
                  value: {
                    value: {
                      dataType,
                      arrayType: variant.arrayType,
                      value,
                      ...(variant.dimensions ? { dimensions: variant.dimensions } : {}),
                    },
                  },
                });
                if (!status.isGood())
                  throw new AssetError(`writing ${provider.nodeId} answered ${status.name}`, { retryable: false });
              },
            }
          : {}),
      };
    },
    subscriptionProvider(target, provider) {
      // FA³ST parses `interval` and ignores it; here it is the monitored item's sampling interval.
      return { target, read: monitored(provider.nodeId, parseArrayIndex(provider.arrayIndex), provider.interval) };
    },
    operationProvider(target, provider) {
      return createOpcuaOperationProvider({
        target,
        config: provider,
        store: options.store,
        link: async () => {
          clearTimeout(idleTimer);
          return open();
        },
        done: () => {
          if (wanted || closed) return;
          clearTimeout(idleTimer);
          idleTimer = setTimeout(() => {
            if (!wanted) void teardown();
          }, idleCloseMs);
          idleTimer.unref();
        },
      });
    },
    async close() {
      closed = true;
      wanted = false;
      clearTimeout(idleTimer);
      await opening?.catch(() => undefined);
      await teardown();
      await (await security?.catch(() => undefined))?.dispose().catch(() => undefined);
    },
  };
}
