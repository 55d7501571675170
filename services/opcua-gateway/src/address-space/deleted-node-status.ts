import { DataValue, MonitoredItem, type StatusCode, StatusCodes } from "node-opcua";

/**
 * A monitored item whose node is deleted reports Bad_NodeIdUnknown, as OPC 10000-4 (5.12.1.5, the
 * "Node no longer exists" case) says. node-opcua reports Bad_NodeIdInvalid there, which means "the
 * NodeId's syntax is not valid" and tells a SCADA client its configuration is wrong. node-opcua has no
 * option for it: its item pushes that DataValue from `_on_node_disposed`, so the push is rewritten
 * while that method runs, once per process. sync.test.ts ("elements created, replaced and deleted …") fails
 * if a node-opcua upgrade changes this.
 */
let installed = false;

interface DisposingItem {
  _on_node_disposed(node: unknown): void;
  _on_value_changed(dataValue: DataValue, ...rest: unknown[]): void;
}

export function reportDeletedNodesAsUnknown(): void {
  if (installed) return;
  installed = true;
  const prototype = MonitoredItem.prototype as unknown as DisposingItem;
  const dispose = prototype._on_node_disposed;
  if (typeof dispose !== "function") return;
  prototype._on_node_disposed = function (this: DisposingItem, node: unknown) {
    const push = this._on_value_changed;
    this._on_value_changed = function (this: DisposingItem, dataValue: DataValue, ...rest: unknown[]) {
      const replaced = isInvalid(dataValue.statusCode)
        ? new DataValue({ sourceTimestamp: dataValue.sourceTimestamp, statusCode: StatusCodes.BadNodeIdUnknown })
        : dataValue;
      return push.call(this, replaced, ...rest);
    };
    try {
      dispose.call(this, node);
    } finally {
      // The prototype's method again (the own property only shadowed it).
      delete (this as Partial<DisposingItem>)._on_value_changed;
    }
  };
}

function isInvalid(status: StatusCode | undefined): boolean {
  return status?.value === StatusCodes.BadNodeIdInvalid.value;
}
