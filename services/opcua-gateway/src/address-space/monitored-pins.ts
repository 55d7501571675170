import { type MonitoredItem, NodeIdType, type OPCUAServer, type ServerSession, type Subscription } from "node-opcua";
import type { LazyIdentifiables } from "./lazy-identifiables.ts";
import { identifiableIdOf } from "./node-ids.ts";

/**
 * Keeps the nodes of an identifiable while a monitored item watches one of them (ADR 0036): the item
 * holds the node object itself, so releasing and re-making the node would leave it watching a node
 * nobody updates. Counted from the subscriptions' own events (the ones publish-on-commit.ts uses).
 */
export function pinMonitoredIdentifiables(
  server: OPCUAServer,
  lazy: LazyIdentifiables,
  namespaceIndex: number,
): () => void {
  const idOf = (item: MonitoredItem): string | undefined => {
    const nodeId = item.node?.nodeId;
    return nodeId && nodeId.namespace === namespaceIndex && nodeId.identifierType === NodeIdType.STRING
      ? identifiableIdOf(nodeId.value as string)
      : undefined;
  };

  const watched = new WeakSet<Subscription>();
  const watchSubscription = (subscription: Subscription) => {
    // A subscription transferred to another session is announced there again.
    if (watched.has(subscription)) return;
    watched.add(subscription);
    const pinned = new Map<MonitoredItem, string>();
    subscription.on("monitoredItem", (item: MonitoredItem) => {
      const id = idOf(item);
      if (id === undefined || pinned.has(item)) return;
      pinned.set(item, id);
      lazy.pin(id);
    });
    subscription.on("removeMonitoredItem", (item: MonitoredItem) => {
      const id = pinned.get(item);
      if (id === undefined) return;
      pinned.delete(item);
      lazy.unpin(id);
    });
    subscription.once("terminated", () => {
      for (const id of pinned.values()) lazy.unpin(id);
      pinned.clear();
    });
  };

  const onSession = (session: ServerSession) => session.on("new_subscription", watchSubscription);
  server.on("create_session", onSession);
  return () => void server.off("create_session", onSession);
}
