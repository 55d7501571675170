import {
  AttributeIds,
  CreateMonitoredItemsRequest,
  ModifyMonitoredItemsRequest,
  NodeClass,
  type NodeId,
  type OPCUAServer,
  type Request,
  type UAVariable,
} from "node-opcua";

/**
 * Makes every monitored item on the Value of one of our variables exception-based: reported when a
 * commit changes the node (setValueFromSource), whatever sampling interval the client asks for.
 *
 * Our values change only through the store's events, so sampling them on a timer can only delay and
 * fold changes. node-opcua (2.182.2 to 2.186.4) serves an item exception-based only when the client asks for 0 on
 * a variable whose MinimumSamplingInterval is 0 (ours all are); any other request (-1, 100, 5000, …)
 * gets a sampling timer of at least 50 ms. Common clients ask for their publishing interval, so they
 * saw changes up to one sampling interval late, and several changes within it folded into one.
 *
 * No server option selects the model, so the request is rewritten before node-opcua handles it: the
 * server's "request" event fires synchronously before the service handler runs, with the decoded
 * request. Asking for 0 on a MinimumSamplingInterval-0 variable is node-opcua's own exception-based
 * path: revisedSamplingInterval 0 (what OPC 10000-4 5.12.1.2 calls exception-based), every change
 * queued (with aasServerOptions' MinSupportedSampleRate 0), queueSize and discardOldest as asked.
 * ADR 0016 records why, and what to re-check when node-opcua changes.
 *
 * Only Value items on variables of our namespace with MinimumSamplingInterval 0: server diagnostics
 * and other namespaces keep node-opcua's behaviour (some of them are bound to getters, which only
 * a timer sees change).
 */
export function reportValuesOnCommit(server: OPCUAServer, namespaceIndex: number): () => void {
  const addressSpace = server.engine.addressSpace;
  if (!addressSpace) throw new Error("reportValuesOnCommit needs an initialized OPC UA server");

  const isCommitDriven = (nodeId: NodeId): boolean => {
    if (nodeId.namespace !== namespaceIndex) return false;
    const node = addressSpace.findNode(nodeId);
    return node?.nodeClass === NodeClass.Variable && (node as UAVariable).minimumSamplingInterval === 0;
  };

  const onRequest = (request: Request): void => {
    if (request instanceof CreateMonitoredItemsRequest) {
      for (const item of request.itemsToCreate ?? []) {
        if (item.itemToMonitor.attributeId === AttributeIds.Value && isCommitDriven(item.itemToMonitor.nodeId))
          item.requestedParameters.samplingInterval = 0;
      }
    } else if (request instanceof ModifyMonitoredItemsRequest && (request.itemsToModify?.length ?? 0) > 0) {
      // A modify keeps an exception-based item exception-based only when it asks for 0 again
      // (node-opcua turns any other interval into a timer, and a 0 on a sampled item into 50 ms).
      const subscription = server.engine.findSubscription(request.subscriptionId);
      for (const item of request.itemsToModify ?? []) {
        const monitored = subscription?.getMonitoredItem(item.monitoredItemId);
        const node = monitored?.node;
        if (
          monitored?.isExceptionBased &&
          node &&
          monitored.itemToMonitor.attributeId === AttributeIds.Value &&
          isCommitDriven(node.nodeId)
        ) {
          item.requestedParameters.samplingInterval = 0;
        }
      }
    }
  };
  server.on("request", onRequest);
  return () => void server.off("request", onRequest);
}
