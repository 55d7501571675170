import { Subscription } from "node-opcua";
import { AAS_NODESETS } from "./aas-types.ts";

/**
 * The OPCUAServer options the AAS address space needs: its nodesets, and value changes delivered
 * as they happen. Two node-opcua defaults would alone exceed the HTTP → OPC UA latency target
 * (p99 ≤ 20 ms):
 * - a monitored value node (MinimumSamplingInterval 0, exception-based) coalesces changes over a
 *   window of MinSupportedSampleRate (50 ms): a change within 50 ms of the previous one waits for
 *   the window's end. 0 delivers every change at once; a client still bounds its traffic with the
 *   publishing interval and queue size it asks for.
 * - publishing intervals under 50 ms are raised to 50 ms. Clients that ask for less get down to
 *   5 ms (process-wide, since node-opcua keeps it on the class); others keep what they ask for.
 */
const MINIMUM_PUBLISHING_INTERVAL_MS = 5;

/** node-opcua's own bound of monitored items per subscription. */
const NODE_OPCUA_ITEMS_PER_SUBSCRIPTION = 100_000;

/**
 * `maxMonitoredItems`: monitored items of all sessions together. node-opcua allows 1,000,000, at
 * ~1.5 KB each (36,538 items took ~50 MB): one anonymous client could make the process hold 1.5 GB.
 */
export function aasServerOptions(
  maxSessions = 100,
  maxMonitoredItems = 100_000,
): {
  nodesets: string[];
  maxConnectionsPerEndpoint: number;
  serverCapabilities: {
    minSupportedSampleRate: number;
    maxSessions: number;
    maxMonitoredItems: number;
    maxMonitoredItemsPerSubscription: number;
  };
} {
  Subscription.minimumPublishingInterval = Math.min(
    Subscription.minimumPublishingInterval,
    MINIMUM_PUBLISHING_INTERVAL_MS,
  );
  // Each session holds a secure channel: as many connections as sessions (the endpoint's maxSessions).
  return {
    nodesets: [...AAS_NODESETS],
    maxConnectionsPerEndpoint: maxSessions,
    serverCapabilities: {
      minSupportedSampleRate: 0,
      maxSessions,
      maxMonitoredItems,
      maxMonitoredItemsPerSubscription: Math.min(NODE_OPCUA_ITEMS_PER_SUBSCRIPTION, maxMonitoredItems),
    },
  };
}
