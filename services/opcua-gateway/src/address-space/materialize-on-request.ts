import type { ErrorCode } from "@twinport/shared";
import {
  type AddressSpace,
  type BaseNode,
  type BrowsePath,
  BrowseRequest,
  CallRequest,
  CreateMonitoredItemsRequest,
  HistoryReadRequest,
  type NodeId,
  NodeIdType,
  type OPCUAServer,
  ReadRequest,
  type Request,
  ServiceFault,
  StatusCodes,
  TranslateBrowsePathsToNodeIdsRequest,
  WriteRequest,
} from "node-opcua";
import { AccessSessionContext } from "../security/access-session-context.ts";
import { StoreReadError } from "../sync/store-reads.ts";
import { answerWithinMs } from "../timeout-hint.ts";
import { statusForError } from "../values/error-status.ts";
import { answerWatch } from "./answer-watch.ts";
import type { LazyIdentifiables } from "./lazy-identifiables.ts";
import { identifiableIdOf } from "./node-ids.ts";
import { answerWithFault, type OnRequest, wrapRequests } from "./request-dispatch.ts";

/**
 * Makes the nodes a request needs before node-opcua serves it (ADR 0036). node-opcua finds nodes
 * synchronously in its services (read, browse, write, call, create monitored items, translate), and
 * has no hook for a node it does not have; but every request passes `on_request` before its service
 * runs, an instance method the endpoints call through the server object. Wrapped here: the NodeIds a
 * request names are mapped to their identifiables (the NodeId up to its last "|", node-ids.ts); when
 * one has no nodes below its own yet, they are made from the store first, then the request goes on
 * exactly as before (the "request" event included, which report-on-commit.ts relies on).
 *
 * A request that needs nothing made is served at once, in the same turn. Once one request of a
 * channel waits, the channel's later requests wait behind it, so they are still served in order
 * (a Write then a Read of the same value keep their order).
 */
export function materializeOnRequest(
  server: OPCUAServer,
  deps: { lazy: LazyIdentifiables; namespaceIndex: number; log(line: string): void },
): () => void {
  const addressSpace = server.engine.addressSpace as AddressSpace;
  const { lazy, namespaceIndex } = deps;
  /** Per channel: the last request still waiting (its later requests chain behind it). */
  const tails = new WeakMap<object, Promise<void>>();
  const answers = answerWatch(server, (held) => lazy.unhold(held));

  const identifiableOf = (nodeId: NodeId | undefined | null): string | undefined =>
    nodeId && nodeId.namespace === namespaceIndex && nodeId.identifierType === NodeIdType.STRING
      ? identifiableIdOf(nodeId.value as string)
      : undefined;

  /** What one request names: the identifiables it may use (held while it waits) and what to make first. */
  interface Needs {
    ids: string[];
    making: Promise<void>[];
    /** Whether the session may use identifiable `id` (the access rules); no rules: any. */
    mayUse(id: string): boolean;
  }

  /** Marks every named identifiable the session may use as used; the ones to make first are collected. */
  const collect = (nodeIds: (NodeId | undefined | null)[], needs: Needs): void => {
    for (const nodeId of nodeIds) {
      const id = identifiableOf(nodeId);
      // One the session may not see stays as it is: its request is refused on the own node or the
      // unknown NodeId, and must not cost memory (ADR 0036 "Bounded").
      if (id === undefined || !needs.mayUse(id)) continue;
      // Held until the request is served, so making another's nodes cannot release these first.
      needs.ids.push(id);
      lazy.hold([id]);
      const making = lazy.touch(id);
      if (making !== undefined) needs.making.push(making);
    }
  };

  const ensureNodes = async (nodes: BaseNode[], needs: Needs): Promise<void> => {
    const step: Needs = { ids: needs.ids, making: [], mayUse: needs.mayUse };
    collect(
      nodes.map((node) => node.nodeId),
      step,
    );
    await Promise.all(step.making);
  };

  /** Follows a browse path step by step, making each identifiable it passes through on the way. */
  const walk = async (path: BrowsePath, needs: Needs): Promise<void> => {
    const start = addressSpace.findNode(path.startingNode);
    if (!start) return;
    let current: BaseNode[] = [start];
    for (const element of path.relativePath?.elements ?? []) {
      await ensureNodes(current, needs);
      const next: BaseNode[] = [];
      for (const node of current) {
        // Any reference in the asked direction whose target has the name: a superset of node-opcua's match.
        for (const reference of node.allReferences()) {
          if (reference.isForward === element.isInverse) continue;
          const target = addressSpace.findNode(reference.nodeId);
          if (target && target.browseName.name === element.targetName?.name) next.push(target);
        }
      }
      if (next.length === 0) return;
      current = next;
    }
  };

  /** What must exist before the request is served (undefined: nothing, serve now). */
  const prepare = (request: Request, needs: Needs): Promise<unknown> | undefined => {
    if (request instanceof ReadRequest || request instanceof HistoryReadRequest)
      collect(
        (request.nodesToRead ?? []).map((item) => item.nodeId),
        needs,
      );
    else if (request instanceof BrowseRequest)
      collect(
        (request.nodesToBrowse ?? []).map((item) => item.nodeId),
        needs,
      );
    else if (request instanceof WriteRequest)
      collect(
        (request.nodesToWrite ?? []).map((item) => item.nodeId),
        needs,
      );
    else if (request instanceof CreateMonitoredItemsRequest)
      collect(
        (request.itemsToCreate ?? []).map((item) => item.itemToMonitor?.nodeId),
        needs,
      );
    else if (request instanceof CallRequest)
      collect(
        (request.methodsToCall ?? []).flatMap((item) => [item.objectId, item.methodId]),
        needs,
      );
    else if (request instanceof TranslateBrowsePathsToNodeIdsRequest)
      return Promise.all((request.browsePaths ?? []).map((path) => walk(path, needs)));
    return needs.making.length === 0 ? undefined : Promise.all(needs.making);
  };

  /** The request's needs, or undefined when it has no session (node-opcua refuses it without looking). */
  const needsOf = (request: Request): Needs | undefined => {
    const token = request.requestHeader?.authenticationToken;
    // getSession answers undefined, not null, for a token it does not know (a session timed out,
    // or one from before a restart): such a request reached `session.sessionContext`, threw, and
    // was never answered, so the client waited out its transaction timeout instead of hearing
    // BadSessionIdInvalid and making a new session.
    const session = token === undefined ? undefined : server.engine.getSession(token);
    if (session == null) return undefined;
    const context = session.sessionContext;
    const mayUse = context instanceof AccessSessionContext ? (id: string) => context.mayUse(id) : () => true;
    return { ids: [], making: [], mayUse };
  };

  const onRequest =
    (original: OnRequest): OnRequest =>
    (message, channel) => {
      const tail = tails.get(channel);
      // Only a session's requests make nodes: node-opcua refuses the others without looking at them.
      let named: Needs | undefined;
      let needs: Promise<unknown> | undefined;
      try {
        named = needsOf(message.request);
        needs = named === undefined ? undefined : prepare(message.request, named);
      } catch (error) {
        // Whatever went wrong here, the request is still node-opcua's to answer: a request lost in
        // this wrapper is one a client waits out its whole timeout for.
        deps.log(`opcua-gateway: a ${message.request.schema.name} went on unprepared: ${(error as Error).message}`);
        if (named !== undefined) lazy.unhold(named.ids);
        return original(message, channel);
      }
      const held = named?.ids ?? [];
      if (tail === undefined && needs === undefined) {
        // Before the call: a service that answers at once answers inside it.
        answers.releaseWithAnswer(channel, message.request, held);
        return original(message, channel);
      }
      const serve = async () => {
        await tail;
        try {
          await withinHint(needs, message.request);
        } catch (error) {
          // The store could not be read (a model-store restarting, say): the request is answered with
          // a fault of its own, e.g. BadResourceUnavailable, for the client to try again. Served with
          // what exists, it would say BadNodeIdUnknown, or browse Good without the elements, and a
          // client would drop nodes that exist.
          deps.log(
            `opcua-gateway: nodes for a ${message.request.schema.name} could not be made: ${(error as Error).message}`,
          );
          lazy.unhold(held);
          const status =
            error instanceof StoreReadError
              ? statusForError(error.code as ErrorCode)
              : error instanceof HintExpired
                ? StatusCodes.BadTimeout
                : StatusCodes.BadInternalError;
          answerWithFault(channel, message, status);
          return;
        }
        answers.releaseWithAnswer(channel, message.request, held);
        try {
          original(message, channel);
        } catch (error) {
          // node-opcua answers a failing service itself; this only keeps a later turn from an unhandled rejection.
          deps.log(`opcua-gateway: a ${message.request.schema.name} failed: ${(error as Error).message}`);
        }
      };
      const served = serve();
      tails.set(channel, served);
      void served.finally(() => {
        if (tails.get(channel) === served) tails.delete(channel);
      });
    };
  const unwrap = wrapRequests(server, onRequest);
  return () => {
    unwrap();
    answers.close();
  };
}

class HintExpired extends Error {}

/**
 * Waits for the nodes no longer than the client waits for its answer (its RequestHeader's
 * timeoutHint, 15 s from node-opcua clients): a store that stands still would otherwise hold the
 * request past it, and the client would see its own transport timeout instead of BadTimeout. The
 * nodes are still made when the store answers, for the next request.
 */
function withinHint(needs: Promise<unknown> | undefined, request: Request): Promise<unknown> | undefined {
  const hint = request.requestHeader?.timeoutHint;
  const limit = answerWithinMs(hint);
  if (needs === undefined || limit === undefined) return needs;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HintExpired(`not made within the request's timeoutHint (${hint} ms)`)), limit);
  });
  needs.catch(() => undefined);
  return Promise.race([needs, expired]).finally(() => clearTimeout(timer));
}
