import { CreateMonitoredItemsRequest, type NodeId, type OPCUAServer, StatusCodes } from "node-opcua";
import { answerWithFault, wrapRequests } from "./request-dispatch.ts";

/**
 * At most MAX_ITEMS_PER_NODE monitored items of one session watch one node. Every item of a node gets
 * its own notification of each change: one anonymous session with 50,000 items on one Property
 * turned each write of it into 50,000 notifications and held HTTP writes for up to 22 s (black-box
 * finding). Clients watch a node once, or a few times (another attribute, another subscription's
 * interval); more is amplification, not monitoring. A CreateMonitoredItems that would pass the
 * bound is refused whole with BadTooManyMonitoredItems, before node-opcua creates any of it.
 * Many items on many nodes stay allowed: each change then costs what it costs any client.
 */
export const MAX_ITEMS_PER_NODE = 16;

interface SessionItems {
  publishEngine?: { subscriptions: { monitoredItems: Map<number, { itemToMonitor?: { nodeId?: NodeId } | null }> }[] };
}

export function boundItemsPerNode(server: OPCUAServer): () => void {
  return wrapRequests(server, (original) => (message, channel) => {
    const request = message.request;
    if (request instanceof CreateMonitoredItemsRequest && passesTheBound(server, request))
      answerWithFault(channel, message, StatusCodes.BadTooManyMonitoredItems);
    else original(message, channel);
  });
}

function passesTheBound(server: OPCUAServer, request: CreateMonitoredItemsRequest): boolean {
  const token = request.requestHeader?.authenticationToken;
  const session = (token === undefined ? undefined : server.engine.getSession(token)) as SessionItems | undefined;
  if (session == null) return false;
  const counts = new Map<string, number>();
  const add = (nodeId: NodeId | undefined | null): boolean => {
    if (!nodeId) return false;
    const key = nodeId.toString();
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    return count > MAX_ITEMS_PER_NODE;
  };
  const asked = request.itemsToCreate ?? [];
  // Only the nodes this request names can pass the bound now.
  const named = new Set(asked.map((item) => item.itemToMonitor?.nodeId?.toString()).filter(Boolean));
  for (const subscription of session.publishEngine?.subscriptions ?? [])
    for (const item of subscription.monitoredItems.values()) {
      const nodeId = item.itemToMonitor?.nodeId;
      if (nodeId && named.has(nodeId.toString())) add(nodeId);
    }
  return asked.some((item) => add(item.itemToMonitor?.nodeId));
}
