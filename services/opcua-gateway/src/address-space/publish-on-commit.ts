import {
  AttributeIds,
  type MonitoredItem,
  NodeClass,
  type OPCUAServer,
  type ServerSession,
  type Subscription,
  SubscriptionState,
  type UAVariable,
} from "node-opcua";

/** What node-opcua keeps private but the publishing decision needs (2.186.4, ADR 0028). */
interface SubscriptionInternals {
  process_subscription(): void;
  publishIntervalCount: number;
  publishEngine?: { pendingPublishRequestCount: number; subscriptionCount: number };
}

interface Watched {
  /** performance.now() of the subscription's last NotificationMessage (0: none yet). */
  lastMessageAt: number;
  /** Monitored items of this subscription per watched node (a client may monitor one node twice). */
  readonly items: Map<UAVariable, number>;
}

/**
 * Sends a commit's data changes to a subscription at once when it sent no NotificationMessage
 * during the last publishing interval, instead of at the next tick of its publishing timer.
 *
 * node-opcua publishes a subscription only from its timer: a change waits 0…P ms for the tick
 * (P the publishing interval), plus the timer's own lateness on a busy event loop. With ADR 0016
 * our values are queued the moment a commit's event reaches the node; this takes them out the same
 * turn. A subscription that already sent a message within the last P ms still waits for its tick,
 * so a client never gets more than one message per interval from this path, and a burst of commits
 * still folds into one message per interval (ADR 0028 has the reasoning and what depends on
 * node-opcua internals).
 *
 * Only Value items on variables of our namespace that are exception-based (report-on-commit.ts),
 * and only when the session has queued more PublishRequests than it has other subscriptions, so
 * taking one never leaves a sibling subscription without a request at its own tick.
 */
export function publishChangesOnCommit(server: OPCUAServer, namespaceIndex: number): () => void {
  const watched = new Map<Subscription, Watched>();
  /** Watched variables → the subscriptions with an item on them. */
  const byNode = new Map<UAVariable, Set<Subscription>>();
  const dirty = new Set<Subscription>();
  let flushScheduled = false;

  const flush = () => {
    flushScheduled = false;
    const now = performance.now();
    for (const subscription of dirty) {
      const state = watched.get(subscription);
      if (state === undefined || now - state.lastMessageAt < subscription.publishingInterval) continue;
      const internals = subscription as unknown as SubscriptionInternals;
      const engine = internals.publishEngine;
      if (
        subscription.state === SubscriptionState.CLOSED ||
        !subscription.publishingEnabled ||
        internals.publishIntervalCount === 0 || // the first message waits for the first cycle (Part 4 5.13.1)
        engine === undefined ||
        engine.pendingPublishRequestCount <= engine.subscriptionCount - 1 ||
        !subscription.hasUncollectedMonitoredItemNotifications
      )
        continue;
      try {
        internals.process_subscription();
      } catch {
        // node-opcua asserts its own preconditions; whatever one refuses, the subscription's timer
        // still publishes it at the next tick, as it did before this path existed.
      }
    }
    dirty.clear();
  };

  const onValueChanged = (node: UAVariable) => () => {
    const subscriptions = byNode.get(node);
    if (subscriptions === undefined) return;
    for (const subscription of subscriptions) dirty.add(subscription);
    if (!flushScheduled) {
      flushScheduled = true;
      // After the I/O callbacks of this turn: every event that arrived together is in the queues.
      setImmediate(flush);
    }
  };
  const listeners = new Map<UAVariable, () => void>();

  const watchItem = (subscription: Subscription, item: MonitoredItem) => {
    const node = item.node as UAVariable | null;
    const state = watched.get(subscription);
    // The variables report-on-commit.ts makes exception-based: their items queue a change the
    // moment setValueFromSource runs.
    if (
      state === undefined ||
      !node ||
      node.nodeClass !== NodeClass.Variable ||
      node.nodeId.namespace !== namespaceIndex ||
      node.minimumSamplingInterval !== 0 ||
      item.itemToMonitor.attributeId !== AttributeIds.Value
    )
      return;
    state.items.set(node, (state.items.get(node) ?? 0) + 1);
    let subscriptions = byNode.get(node);
    if (subscriptions === undefined) {
      byNode.set(node, (subscriptions = new Set()));
      const listener = onValueChanged(node);
      listeners.set(node, listener);
      node.on("value_changed", listener);
    }
    subscriptions.add(subscription);
  };

  const unwatchNode = (subscription: Subscription, node: UAVariable) => {
    const subscriptions = byNode.get(node);
    subscriptions?.delete(subscription);
    if (subscriptions?.size === 0) {
      byNode.delete(node);
      const listener = listeners.get(node);
      listeners.delete(node);
      if (listener) node.off("value_changed", listener);
    }
  };

  const unwatchItem = (subscription: Subscription, item: MonitoredItem) => {
    const node = item.node as UAVariable | null;
    const state = watched.get(subscription);
    const count = node ? state?.items.get(node) : undefined;
    if (!node || state === undefined || count === undefined) return;
    if (count > 1) state.items.set(node, count - 1);
    else {
      state.items.delete(node);
      unwatchNode(subscription, node);
    }
  };

  const watchSubscription = (subscription: Subscription) => {
    if (watched.has(subscription)) return;
    watched.set(subscription, { lastMessageAt: 0, items: new Map() });
    subscription.on("notification", () => {
      const state = watched.get(subscription);
      if (state) state.lastMessageAt = performance.now();
    });
    subscription.on("monitoredItem", (item: MonitoredItem) => watchItem(subscription, item));
    subscription.on("removeMonitoredItem", (item: MonitoredItem) => unwatchItem(subscription, item));
    subscription.once("terminated", () => {
      const state = watched.get(subscription);
      watched.delete(subscription);
      dirty.delete(subscription);
      for (const node of state?.items.keys() ?? []) unwatchNode(subscription, node);
    });
  };

  const onSession = (session: ServerSession) => session.on("new_subscription", watchSubscription);
  server.on("create_session", onSession);
  return () => {
    server.off("create_session", onSession);
    for (const [node, listener] of listeners) node.off("value_changed", listener);
    listeners.clear();
    byNode.clear();
    watched.clear();
    dirty.clear();
  };
}
