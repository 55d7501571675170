import {
  AttributeIds,
  DataValue,
  type MonitoredItem,
  MonitoredItemNotification,
  type OPCUAServer,
  PermissionType,
  type ServerSession,
  StatusCodes,
  type Subscription,
} from "node-opcua";

/**
 * Monitored items deliver only what their session may read (ADR 0050). node-opcua asks the session's
 * permissions when a timer samples a Value, but an exception-based item (every Value item of ours,
 * ADR 0016) and an item on another attribute record what the node hands to its listeners, whoever
 * the session is: a session refused a Read got every later value through a monitored item.
 *
 * OPC 10000-4 5.12.2: an item on a node the user may not read is created all the same, and the
 * Publish responses carry Bad_UserAccessDenied instead of data; when the rights change, the item
 * follows them. So the item is left to node-opcua, and two of its public methods are wrapped on the
 * instance (not the prototype) as it is created, before it samples anything:
 * - `recordValue`, which every sample of every kind passes through (the initial read, a change of
 *   the node, a sampling tick, an attribute or semantics change): a session without Read on the node
 *   at that moment records Bad_UserAccessDenied without a value instead, which node-opcua's own
 *   change test reports once and then holds back until something readable differs from it;
 * - `extractMonitoredItemNotifications`, which the subscription calls as it publishes: the last gate,
 *   for values queued before the rights went away (the semanticId moved the submodel out of a rule,
 *   ActivateSession changed the user) and for the values a transfer re-sends;
 * - `resendInitialValue`, which node-opcua calls after ActivateSession: the node's value is read
 *   and judged by the new user's rights, not the last one recorded under the old user's.
 *
 * Rights are asked at each sample, not once at creation, because they change while an item lives:
 * rules match submodels by semanticId, and a session may change its user. Items in other namespaces
 * keep node-opcua's behaviour (the rules decide only ours), and so do event items, whose events
 * node-opcua already filters by the session's ReceiveEvents permission.
 */
export function withholdUnreadableValues(server: OPCUAServer, namespaceIndex: number): void {
  const watched = new WeakSet<Subscription>();
  const watchSubscription = (subscription: Subscription) => {
    // A subscription transferred to another session is announced there again; its items are guarded.
    if (watched.has(subscription)) return;
    watched.add(subscription);
    subscription.on("monitoredItem", (item: MonitoredItem) => guard(item, namespaceIndex));
  };
  server.on("create_session", (session: ServerSession) => session.on("new_subscription", watchSubscription));
}

function guard(item: MonitoredItem, namespaceIndex: number): void {
  const node = item.node;
  if (node === null || node.nodeId.namespace !== namespaceIndex) return;
  if (item.itemToMonitor.attributeId === AttributeIds.EventNotifier) return;
  // The session that owns the item now (a transfer moves it); an orphaned subscription has none.
  const contextOf = () => item.$subscription?.$session?.sessionContext;
  const mayRead = () => contextOf()?.checkPermission(node, PermissionType.Read) === true;

  const record = item.recordValue;
  item.recordValue = function (this: MonitoredItem, dataValue, skipChangeTest, indexRange) {
    // Without a session (orphaned, waiting for a transfer) nothing is published; the gate below
    // judges what is queued by the session that takes the subscription over.
    const withheld = contextOf() !== undefined && !mayRead();
    return record.call(this, withheld ? accessDenied() : dataValue, skipChangeTest, indexRange);
  };

  // After ActivateSession (another user) node-opcua re-sends the value last recorded, which was
  // judged by the rights of the user before: a session switched to a user who may read the node kept
  // Bad_UserAccessDenied until the value next changed. The node's current value is judged again.
  const resend = item.resendInitialValue;
  item.resendInitialValue = function (this: MonitoredItem) {
    const context = contextOf();
    if (context !== undefined && this.queue.length === 0)
      this.oldDataValue = mayRead() ? node.readAttribute(context, this.itemToMonitor.attributeId) : accessDenied();
    return resend.call(this);
  };

  const extract = item.extractMonitoredItemNotifications;
  item.extractMonitoredItemNotifications = function (this: MonitoredItem, force?: boolean) {
    const notifications = extract.call(this, force);
    if (notifications.length === 0 || mayRead() || notifications.every(isAccessDenied)) return notifications;
    // Values recorded while the session could read; it no longer can. It learns that instead, once:
    // the change test compares the next sample with what the client was told last.
    this.oldDataValue = accessDenied();
    return [new MonitoredItemNotification({ clientHandle: this.clientHandle, value: accessDenied() })];
  };
}

/** No value and no timestamps, so two refusals in a row compare equal and the second is not sent. */
function accessDenied(): DataValue {
  return new DataValue({ statusCode: StatusCodes.BadUserAccessDenied });
}

function isAccessDenied(notification: unknown): boolean {
  return (
    notification instanceof MonitoredItemNotification &&
    notification.value.statusCode.value === StatusCodes.BadUserAccessDenied.value &&
    notification.value.value.value === null
  );
}
